"""Answer relevance: does an answer address its question, right or wrong?

Faithfulness asks whether an answer's claims are stated in its contexts; relevance asks
whether the answer is about what was asked. A wrong answer to the question is relevant, a
true sentence about something else is not. This first version scores the cosine of the
question's and the answer's embeddings under the dense retriever's encoder (MiniLM), floored
at 0: a score to rank rows by, as RAGAS's answer relevancy is. It ships no verdict: on the
two sources of ``benchmarks/answer_relevance.py`` no floor chosen on one source separated the
other's answers to the question from answers to another question as well as the trivial rule
"shares a content word with the question".

It reads topic, not the asked attribute: "What is the range of the Trek?" answered with the
Trek's price scores as relevant.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veritype.retrieval.embedding import DEFAULT_EMBEDDER, Embedder, create_embedder


def default_encoder() -> Embedder:
    """The dense retriever's default encoder."""
    return create_embedder(DEFAULT_EMBEDDER)


class AnswerRelevance:
    """Scores (question, answer) pairs in [0, 1], higher for an answer closer to the question;
    the encoder loads on first use."""

    def __init__(self, encoder: Embedder | None = None) -> None:
        self._encoder = encoder

    @property
    def encoder(self) -> Embedder:
        if self._encoder is None:
            self._encoder = default_encoder()
        return self._encoder

    def score(self, question: str, answer: str) -> float:
        return self.score_batch([(question, answer)])[0]

    def score_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        vectors = self.encoder.embed_batch([text for pair in pairs for text in pair])
        questions, answers = vectors[0::2], vectors[1::2]
        cosines = np.sum(questions * answers, axis=1)
        return [float(value) for value in np.clip(cosines, 0.0, 1.0)]
