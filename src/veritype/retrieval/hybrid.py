"""Hybrid retrieval: weighted reciprocal rank fusion of several retrievers.

RRF needs no score calibration between BM25 weights and cosines: a chunk scores
Σ_i w_i / (rrf_k + rank_i). Hits are the same when they cover the same characters of the
same document, so retrievers over the same chunking fuse exactly.

The default ``rrf_k`` of 10 (the classic 60 was set for fusing dozens of runs) lets the top
ranks of two retrievers count more; it was chosen on the SciFact *train* claims, and the
benchmark reports the dev claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veritype.errors import ConfigurationError
from veritype.retrieval._base import Retriever, ScoredChunk, register_retriever

DEFAULT_RRF_K = 10


class HybridRetriever:
    """Fuses the rankings of ``retrievers`` (each asked for ``depth`` candidates)."""

    def __init__(
        self,
        retrievers: Sequence[Retriever],
        *,
        weights: Sequence[float] | None = None,
        rrf_k: float = DEFAULT_RRF_K,
        depth: int = 100,
        name: str = "hybrid",
    ) -> None:
        if not retrievers:
            raise ConfigurationError("a hybrid retriever needs at least one retriever")
        weights = list(weights) if weights is not None else [1.0] * len(retrievers)
        if len(weights) != len(retrievers):
            raise ConfigurationError(
                f"{len(weights)} weights for {len(retrievers)} retrievers; give one each"
            )
        if any(weight < 0 for weight in weights) or not any(weights):
            raise ConfigurationError(f"weights must be >= 0 and not all 0, got {weights}")
        if rrf_k < 0:
            raise ConfigurationError(f"rrf_k must be >= 0, got {rrf_k}")
        self.retrievers = list(retrievers)
        self.weights = weights
        self.rrf_k = rrf_k
        self.depth = depth
        self.name = name

    def retrieve(self, query: str, k: int = 10) -> list[ScoredChunk]:
        return self.retrieve_batch([query], k)[0]

    def retrieve_batch(self, queries: Sequence[str], k: int = 10) -> list[list[ScoredChunk]]:
        depth = max(k, self.depth)
        rankings: list[list[list[ScoredChunk]]] = [
            retriever.retrieve_batch(queries, depth) if weight else [[] for _ in queries]
            for retriever, weight in zip(self.retrievers, self.weights, strict=True)
        ]
        return [
            self._fuse([ranking[row] for ranking in rankings], k) for row in range(len(queries))
        ]

    def _fuse(self, rankings: list[list[ScoredChunk]], k: int) -> list[ScoredChunk]:
        scores: dict[tuple[str, int, int], float] = {}
        first: dict[tuple[str, int, int], ScoredChunk] = {}
        for ranking, weight in zip(rankings, self.weights, strict=True):
            for rank, hit in enumerate(ranking, start=1):
                scores[hit.key] = scores.get(hit.key, 0.0) + weight / (self.rrf_k + rank)
                first.setdefault(hit.key, hit)
        ordered = sorted(scores, key=lambda key: -scores[key])[:k]
        return [
            ScoredChunk(first[key].chunk, scores[key], self.name, first[key].title)
            for key in ordered
        ]


@register_retriever("hybrid")
def create_hybrid(*, retrievers: Sequence[Retriever], **options: Any) -> HybridRetriever:
    return HybridRetriever(retrievers, **options)
