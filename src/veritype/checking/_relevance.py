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

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from veritype.retrieval.embedding import DEFAULT_EMBEDDER, Embedder, create_embedder


def default_encoder() -> Embedder:
    """The dense retriever's default encoder."""
    return create_embedder(DEFAULT_EMBEDDER)


class AnswerRelevance:
    """Scores (question, answer) pairs in [0, 1], higher for an answer closer to the question;
    the encoder loads on first use."""

    def __init__(self, encoder: Embedder | None = None, *, cache_size: int = 1024) -> None:
        self._encoder = encoder
        self.cache_size = cache_size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

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
        vectors = self._embedded([text for pair in pairs for text in pair])
        questions, answers = vectors[0::2], vectors[1::2]
        cosines = np.sum(questions * answers, axis=1)
        return [float(value) for value in np.clip(cosines, 0.0, 1.0)]

    def _embedded(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, each text embedded once. An encoder that embeds one text per
        run gives a text the same vector whatever comes with it, so a question asked of many
        answers (or the same answer checked again) is served from a cache; any other encoder
        embeds the texts as given."""
        encoder = self.encoder
        if getattr(encoder, "batch_size", None) != 1 or self.cache_size == 0:
            return encoder.embed_batch(texts)
        missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        found = {text: vector for text in texts
                 if (vector := self._vectors.get(text)) is not None}
        if missing:
            found |= dict(zip(missing, encoder.embed_batch(missing), strict=True))
        for text in dict.fromkeys(texts):
            self._vectors[text] = found[text]
            self._vectors.move_to_end(text)
        while len(self._vectors) > self.cache_size:
            self._vectors.popitem(last=False)
        return np.stack([found[text] for text in texts])
