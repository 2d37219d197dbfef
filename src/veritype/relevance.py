"""Does a claim address the question it was drafted for?

Verification checks that a claim is grounded in the evidence, not that it answers the
question: a small generator often copies a true sentence from a neighbouring passage
("Can Apple computers get viruses?" → "Sharks can get cancer."), which the views rightly
verify. Such a claim is off the question. A claim addresses the question when it shares a
topical content word with it (light verbs such as "get" do not count) or, when a
similarity function is given (the dense retriever's embeddings), when its similarity to
the question reaches a floor. Claims keep their topic along the belief graph: what an
on-question claim depends on, and what depends on it (a pronoun-led continuation), is on
the question too.

A question that names its subject ("When did the Golden Gate Bridge open?") asks about that
subject only. A claim addresses it when the claim, as the draft wrote it, names it, or when
the passage the claim is cited to does (its document title, or the chunk up to the cited
words): "It opened in 1894." cited to a passage about Tower Bridge is about Tower Bridge,
wherever the draft put it, and so is off the question, whatever the belief graph says.

Pure: the similarity function is passed in, so this module loads no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from veritype._text import STOPWORDS, content_words, normalise_word, tokens
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph, Node

# Scores each text against the question, higher meaning closer (cosine for embeddings).
Similarity = Callable[[str, Sequence[str]], Sequence[float]]

# Light verbs and generic nouns say nothing of a topic: "Can Apple computers get viruses?"
# and "Sharks can get cancer." share only "get".
_GENERIC_WORDS = (
    "get happen make go take come say use know think see give find tell become seem want "
    "need mean call keep let put thing way people person time year day true really "
    "actually usually often always many much lot kind type part"
)
_GENERIC = frozenset(normalise_word(word) for word in _GENERIC_WORDS.split())


def _topic_words(text: str) -> set[str]:
    return set(content_words(text)) - _GENERIC


# Words that say what kind of thing a name names, not which one: "Tower Bridge" and "Golden
# Gate Bridge" share "Bridge" and are different bridges.
_KIND_WORDS = frozenset(
    """bridge bridges river rivers lake lakes mount mountain mountains sea ocean island islands
    city town county state province country republic kingdom university college school
    company corporation inc ltd group bank church cathedral tower castle palace park street
    road station airport hospital museum war battle river's""".split()  # noqa: SIM905
)
_NAME = re.compile(r"[A-Z][\w'\u2019.-]*")


def question_subjects(question: str) -> list[frozenset[str]]:
    """The names a question asks about, each as the set of its distinctive words.

    A name is a run of capitalised words that does not open the question ("When", "Does")
    and is not a stopword; its kind words ("Bridge", "River") are left out, since they do
    not tell one such thing from another.
    """
    subjects: list[frozenset[str]] = []
    run: list[str] = []
    for index, match in enumerate(tokens(question)):
        word = match.group(0)
        name_word = (index > 0 and _NAME.fullmatch(word) is not None
                     and word.lower() not in STOPWORDS)
        if name_word:
            run.append(_name_word(word))
            continue
        if run:
            subjects.append(frozenset(run))
            run = []
    if run:
        subjects.append(frozenset(run))
    return [words - _KIND_WORDS for words in subjects if words - _KIND_WORDS]


def _name_word(word: str) -> str:
    """A word of a name as both sides compare it: lower case, no possessive ("Curie's")."""
    word = word.lower().replace("\u2019", "'")
    return word[:-2] if word.endswith("'s") else word


def _names(text: str, subjects: list[frozenset[str]]) -> bool:
    words = {_name_word(match.group(0)) for match in tokens(text)}
    return any(subject <= words for subject in subjects)


def _about_subject(node: Node, subjects: list[frozenset[str]], evidence: EvidencePack) -> bool:
    # The words as written: a pronoun resolved from the draft ("It" → "The River Thames")
    # names the subject the draft meant, not the one its evidence is about.
    if _names(node.claim.shown, subjects):
        return True
    for span in node.evidence:
        if not evidence.has_chunk(span.chunk_id):
            continue
        chunk = evidence.chunk(span.chunk_id)
        context = f"{evidence.title(span.doc_id)} {chunk.slice(chunk.start, span.end)}"
        if _names(context, subjects):
            return True
    return False


def off_question_claims(
    graph: BeliefGraph,
    question: str,
    *,
    similarity: Similarity | None = None,
    floor: float = 0.35,
    evidence: EvidencePack | None = None,
) -> set[str]:
    """The ids of the claims of ``graph`` that do not address ``question``.

    With ``evidence`` (the pack the claims' evidence spans point into), a question that names
    its subject also needs each claim to name it or be cited to a passage that does."""
    if not 0.0 <= floor <= 1.0:
        raise ValueError(f"the relevance floor must lie in [0, 1], got {floor}")
    asked = _topic_words(question)
    if not asked and similarity is None:
        return set()
    direct = {
        node.claim.claim_id for node in graph if asked & _topic_words(node.claim.text)
    }
    rest = [node.claim.claim_id for node in graph if node.claim.claim_id not in direct]
    if similarity is not None and rest:
        scores = similarity(question, [graph.node(claim_id).claim.text for claim_id in rest])
        direct |= {claim_id for claim_id, score in zip(rest, scores, strict=True)
                   if score >= floor}
    on_question = set(direct)
    for claim_id in direct:
        on_question.update(graph.ancestors(claim_id))
        on_question.update(graph.descendants(claim_id))
    subjects = question_subjects(question)
    if evidence is not None and subjects:
        on_question = {claim_id for claim_id in on_question
                       if _about_subject(graph.node(claim_id), subjects, evidence)}
    return {node.claim.claim_id for node in graph} - on_question
