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

Pure: the similarity function is passed in, so this module loads no model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veritype._text import content_words, normalise_word
from veritype.graph import BeliefGraph

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


def off_question_claims(
    graph: BeliefGraph,
    question: str,
    *,
    similarity: Similarity | None = None,
    floor: float = 0.35,
) -> set[str]:
    """The ids of the claims of ``graph`` that do not address ``question``."""
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
    return {node.claim.claim_id for node in graph} - on_question
