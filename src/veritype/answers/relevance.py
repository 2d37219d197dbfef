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
subject, and about what the claims about it name (a two-hop question: "... the king whose reign
was ended by what?" reaches George V through "The Guelphic Legion was maintained at the
expense of George V"). A claim addresses it when the claim names it, or when the passage it is
cited to is about it: the document's title, or what the cited sentences are about (each one's
subject, the referent a pronoun-led one stands for, or, without a clear subject, its words).
A claim whose pronoun was resolved from the draft needs the passage: its resolved name may be
a shortening of the asked one ("The City weighs 21 kg." for the Voltra City), and the draft may
have put it after another subject's sentence. "It opened in 1894." cited to a
passage about Tower Bridge is about Tower Bridge, wherever the draft put it, and so is off
the question, whatever the belief graph says; a passage that mentions the asked subject in
passing ("The Danube is ..., after the Volga. It rises in the Black Forest") is not about it.

Pure: the similarity function is passed in, so this module loads no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

from veritype._text import (
    ANAPHORIC_LEAD,
    STOPWORDS,
    UPPER,
    content_families,
    normalise_word,
    tokens,
    word_family,
)
from veritype.clauses import heading_text, subject_of
from veritype.errors import ConfigurationError
from veritype.evidence import Chunk, EvidencePack, Span
from veritype.graph import BeliefGraph, EvidenceType, Node

# Scores each text against the question, higher meaning closer (cosine for embeddings).
Similarity = Callable[[str, Sequence[str]], Sequence[float]]

# Light verbs and generic nouns say nothing of a topic: "Can Apple computers get viruses?"
# and "Sharks can get cancer." share only "get".
_GENERIC_WORDS = (
    "get happen make go take come say use know think see give find tell become seem want "
    "need mean call keep let put thing way people person time year day true really "
    "actually usually often always many much lot kind type part"
)
_GENERIC = frozenset(word_family(word) for word in _GENERIC_WORDS.split())


def _topic_words(text: str) -> set[str]:
    return content_families(text) - _GENERIC


# Words that say what kind of thing a name names, not which one: "Tower Bridge" and "Golden
# Gate Bridge" share "Bridge" and are different bridges.
KIND_WORDS = frozenset(
    """bridge bridges river rivers lake lakes mount mountain mountains sea ocean island islands
    city town county state province country republic kingdom university college school
    company corporation inc ltd group bank church cathedral tower castle palace park street
    road station airport hospital museum war battle river's""".split()  # noqa: SIM905
)
_NAME = re.compile(rf"[{UPPER}][\w'\u2019.-]*")


def question_subjects(question: str, *, from_first_word: bool = False
                      ) -> list[frozenset[str]]:
    """The names a question asks about, each as the set of its distinctive words.

    A name is a run of capitalised words that does not open the question ("When", "Does";
    with ``from_first_word``, as in a statement, the first word may start one) and is not a
    stopword; its kind words ("Bridge", "River") are left out, since they do not tell one such
    thing from another ("the Golden Gate" is the Golden Gate Bridge), except in a name of two
    words whose first is no kind word: without "City", "Voltra City" would be every Voltra.
    """
    runs: list[list[str]] = []
    run: list[str] = []
    for index, match in enumerate(tokens(question)):
        word = match.group(0)
        # "I'm", "I've": a stopword with a contraction is no name either.
        names_something = ((index > 0 or from_first_word) and _NAME.fullmatch(word) is not None
                           and word.lower().replace("\u2019", "'").split("'")[0]
                           not in STOPWORDS)
        if names_something:
            run.append(name_word(word))
            continue
        if run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return [frozenset(run) if len(run) == 2 and run[0] not in KIND_WORDS
            else frozenset(run) - KIND_WORDS
            for run in runs if frozenset(run) - KIND_WORDS]


def name_word(word: str) -> str:
    """A word of a name as both sides compare it: lower case, no possessive ("Curie's")."""
    word = word.lower().replace("\u2019", "'")
    return word[:-2] if word.endswith("'s") else word


def names_any(text: str, subjects: Sequence[frozenset[str]]) -> bool:
    """Whether ``text`` names one of ``subjects``: it holds each of that subject's words, in
    any inflection ("Access tokens" names "an access token"), a hyphenated word also by its
    parts ("full-pay" by "at full pay")."""
    held = word_holder(text)
    return any(all(held(word) for word in subject) for subject in subjects)


# Words that name a side by its scope, not by a thing: "Was the effect bigger overall or for
# pupils on free school meals?"
SCOPE_WORDS = frozenset({"overall", "altogether", "total", "general", "whole", "everyone"})


def names_side(text: str, side: frozenset[str], sides: Sequence[frozenset[str]]) -> bool:
    """Whether ``text`` names ``side``, one of a comparison's ``sides``: it holds each of the
    side's words (as :func:`names_any` reads them), or, for a side of three words or more, all
    but one when it holds more of that side's words than of any other side's ("a long day
    trip" by "a day trip of more than ten hours"). A side of scope words ("overall") is named
    by a text that names no other side: "an effect size of 0.21" beside "larger for pupils on
    free school meals, at 0.29"."""
    if side <= SCOPE_WORDS:
        return not any(names_side(text, other, sides) for other in sides if other != side)
    holds = word_holder(text)
    held = sum(map(holds, side))
    return held == len(side) or (len(side) >= 3 and held >= len(side) - 1 and all(
        sum(map(holds, other)) < held for other in sides if other != side))


def names_a_side(text: str, sides: Sequence[frozenset[str]]) -> bool:
    """Whether ``text`` names one of a comparison's ``sides`` (:func:`names_side`)."""
    return any(names_side(text, side, sides) for side in sides)


def word_holder(text: str) -> Callable[[str], bool]:
    """Whether ``text`` holds a word, as ``names_any`` reads each word of a subject."""
    written = [name_word(match.group(0)) for match in tokens(text)]
    words = {*written, *map(normalise_word, written), *map(word_family, written)}

    def one(word: str) -> bool:
        return word in words or normalise_word(word) in words or word_family(word) in words

    def held(word: str) -> bool:
        return one(word) or ("-" in word and all(one(part) for part in word.split("-") if part))

    return held


_DEMONYM = re.compile(r"(?:ish|ese|ian|ean|can|french|german|dutch|greek|swiss|thai)$")


def is_demonym(word: str) -> bool:
    """Whether a lower-case word reads as a nationality ("english", "japanese", "american")."""
    return _DEMONYM.search(word) is not None


def _bridges(name: frozenset[str], asked: Sequence[frozenset[str]]) -> bool:
    """Whether a name in a claim about the asked subject leads on to another thing: not the
    subject itself, nor a part of its name ("Voltra" of the Voltra City), nor a nationality."""
    if any(name <= subject or subject <= name for subject in asked):
        return False
    # A nationality says where a thing is from, not what it is: "Rosalind Franklin was an
    # English chemist" does not put every English person on a question about her.
    return not (len(name) == 1 and is_demonym(next(iter(name))))


# Whether a text names one of the subjects: a name by all its words (``names_any``), a
# comparison's side as the question reads it (``names_a_side``).
Naming = Callable[[str, Sequence[frozenset[str]]], bool]


def _about_subject(node: Node, subjects: list[frozenset[str]], evidence: EvidencePack,
                   naming: Naming = names_any) -> bool:
    if node.claim.written:
        # A resolved claim must be cited to a passage about the subject: the draft may have
        # put another river's "It is 1,230 km long." after a Thames sentence.
        return _cited_about(node, subjects, evidence, naming)
    # The claim's own words count with its passage's: "They must upload receipts ..." under
    # "Company cards" names "uploading company card receipts".
    return naming(node.claim.text, subjects) or _cited_about(
        node, subjects, evidence, naming, node.claim.text)


def _cited_about(node: Node, subjects: list[frozenset[str]], evidence: EvidencePack,
                 naming: Naming = names_any, own_words: str = "") -> bool:
    for span in node.evidence:
        if not evidence.has_chunk(span.chunk_id):
            continue
        chunk = evidence.chunk(span.chunk_id)
        # The section's heading says what its passage is about too: "Its 212 steps ..." under
        # "## Holmø" is about Holmø, whatever the sentences between name.
        context = " ".join([own_words, evidence.title(span.doc_id), evidence.heading(span),
                            *_about(chunk, span)])
        if naming(context, subjects):
            return True
    return False


def _about(chunk: Chunk, span: Span) -> list[str]:
    """What the cited sentences are about: each one's subject ("The Danube is ..., after the
    Volga." is about the Danube, not the Volga), the subject a pronoun-led one stands for
    (taken from the sentences before it, a heading included), or, without a clear subject,
    its words."""
    about: list[str] = []
    referent: str | None = None
    for sentence in chunk.sentences():
        if sentence.start >= span.end:
            break
        raw = chunk.slice(sentence.start, sentence.end)
        text = heading_text(raw) or raw
        leads_back = ANAPHORIC_LEAD.match(text) is not None
        own = None if leads_back else subject_of(text)
        if sentence.end > span.start:
            about.append(referent if leads_back and referent else own or text)
        referent = own or referent
    return about


def off_question_claims(
    graph: BeliefGraph,
    question: str,
    *,
    similarity: Similarity | None = None,
    floor: float = 0.35,
    evidence: EvidencePack | None = None,
    subjects: Sequence[frozenset[str]] | None = None,
    answering: Collection[str] = (),
    answer_scores: Mapping[str, float] | None = None,
) -> set[str]:
    """The ids of the claims of ``graph`` that do not address ``question``.

    With ``evidence`` (the pack the claims' evidence spans point into), a question that names
    its subject also needs each claim to name it or be cited to a passage that does, or, when
    none of the claims about the subject is among ``answering`` (the ids of the claims that
    answer the question), to name or be cited to a thing a Verified claim about it names.
    With ``answer_scores`` (P(answers) by claim id), such a claim that answers better than
    every claim about the subject is on the question too.
    ``subjects`` replaces the names read from the question (a comparison's two sides, which
    may be kind words: "the City or the Sport")."""
    if not 0.0 <= floor <= 1.0:
        raise ConfigurationError(f"the relevance floor must lie in [0, 1], got {floor}")
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
    if subjects is not None and evidence is not None:
        # A compared side's section is on the question whatever its sentences' words: "The
        # cost per person may not exceed £75." under "Client entertainment" gives one side's
        # value of "Which limit per person is bigger, client entertainment or gifts?".
        direct |= {node.claim.claim_id for node in graph
                   if _cited_about(node, list(subjects), evidence, names_a_side)}
    on_question = set(direct)
    for claim_id in direct:
        on_question.update(graph.ancestors(claim_id))
        on_question.update(graph.descendants(claim_id))
    asked_about = list(subjects) if subjects is not None else question_subjects(question)
    naming = names_a_side if subjects is not None else names_any
    if evidence is not None and asked_about:
        about = {claim_id for claim_id in on_question
                 if _about_subject(graph.node(claim_id), asked_about, evidence, naming)}
        # A two-hop question reaches its answer through a thing a claim about its subject
        # names: "The Guelphic Legion was maintained at the expense of George V" puts "George
        # V's reign was ended by the Unification of Germany" on a question about the Legion.
        # Only when no claim about the subject answers (``answering``): "The Danube is the
        # second-longest river in Europe, after the Volga" leads nowhere once "It is about
        # 2,850 kilometres long" answers how long the Danube is.
        # With ``answer_scores`` (P(answers) by claim id), a claim reached that way joins
        # even then when it answers better than every claim about the subject: "The
        # Goldfinch (2013) is the third novel by Donna Tartt" (0.86) beside "Donna Tartt ...
        # is the author of the novels 'The Secret History' ..." (0.68) for "For which
        # number novel did the author of 'The Secret History' win the Pulitzer Prize?".
        answered = about & set(answering)
        if answered and answer_scores is None:
            bridges = []
        else:
            bridges = [
                name for claim_id in about
                if graph.node(claim_id).evidence_type is EvidenceType.VERIFIED
                for name in question_subjects(graph.node(claim_id).claim.text,
                                              from_first_word=True)
                if _bridges(name, asked_about)
            ]
        if bridges:
            # Any claim about the thing reached: "Kurt Vonnegut Jr. (November 11,
            # 1922 – April 11, 2007) was an American writer" shares no word with "Breakfast
            # of Champions is the seventh novel by an author that died in this year?".
            bridged = {node.claim.claim_id for node in graph
                       if node.claim.claim_id not in about
                       and _about_subject(node, bridges, evidence)}
            if answered and answer_scores is not None:
                best = max(answer_scores.get(claim_id, 0.0) for claim_id in answered)
                bridged = {claim_id for claim_id in bridged if claim_id in answering
                           and answer_scores.get(claim_id, 0.0) > best}
            about |= bridged
        on_question = about
    return {node.claim.claim_id for node in graph} - on_question
