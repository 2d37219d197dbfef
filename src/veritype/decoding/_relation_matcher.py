"""Which knowledge-base relation a phrase means, by sentence embedding: "X's seat of
government is" means the relation "capital"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from veritype.errors import DecodingError

if TYPE_CHECKING:
    from veritype.retrieval.embedding import Embedder


class RelationMatcher:
    """Finds the knowledge-base relation a phrase means, by sentence embedding.

    The phrase (the subject written as "X": "X's seat of government is") is compared by
    cosine with every relation's name and surfaces ("capital", "the capital of X is");
    the nearest relation counts when its similarity reaches ``threshold`` and it is at least
    ``margin`` nearer than the next relation, so that a phrase between two relations
    ("the currency of X is" against currency and capital) is not forced into either.
    Embeddings are cached, so a phrase costs one model call per answer at most. MiniLM
    puts neighbouring relations close: "the vice president of X was" reaches "president"
    and "X was published in" reaches "author" above the defaults (see the docs), so
    relations a knowledge base lacks but that sound like one it has can be misread.
    """

    def __init__(
        self, embedder: Embedder | None = None, *, threshold: float = 0.7, margin: float = 0.1
    ) -> None:
        if not -1.0 <= threshold <= 1.0 or margin < 0.0:
            raise DecodingError(
                f"threshold must lie in [-1, 1] and margin be >= 0, got {threshold}, {margin}"
            )
        self._embedder = embedder
        self.threshold = threshold
        self.margin = margin
        self._vectors: dict[str, npt.NDArray[np.float32]] = {}
        self._choices: dict[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], str | None] = {}

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from veritype.retrieval.embedding import create_embedder

            self._embedder = create_embedder()
        return self._embedder

    def prepare(self, relations: Mapping[str, tuple[str, ...]]) -> None:
        """Embed every description of ``relations`` now (loading the model if need be),
        so that decoding pays only for the phrases it meets."""
        self._embed([d for descriptions in relations.values() for d in descriptions])

    def similarity(self, phrase: str, descriptions: Sequence[str]) -> float:
        """The highest cosine between ``phrase`` and one of ``descriptions``."""
        self._embed([phrase, *descriptions])
        vector = self._vectors[phrase]
        return max(float(vector @ self._vectors[d]) for d in descriptions)

    def nearest(self, phrase: str, relations: Mapping[str, tuple[str, ...]]) -> str | None:
        """The relation ``phrase`` means among ``relations`` (name → descriptions), or None
        when none is near enough or two are about as near."""
        key = (phrase, tuple(relations.items()))
        if key in self._choices:
            return self._choices[key]
        ranked = sorted(((self.similarity(phrase, d), r) for r, d in relations.items()),
                        reverse=True)
        best = ranked[0] if ranked else None
        runner_up = ranked[1][0] if len(ranked) > 1 else -1.0
        choice = (best[1] if best is not None and best[0] >= self.threshold
                  and best[0] - runner_up >= self.margin else None)
        self._choices[key] = choice
        return choice

    def _embed(self, texts: Sequence[str]) -> None:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if not missing:
            return
        vectors = np.asarray(self.embedder.embed_batch(missing), dtype=np.float32)
        for text, vector in zip(missing, vectors, strict=True):
            self._vectors[text] = vector
