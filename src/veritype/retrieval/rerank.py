"""Reranking: a second, slower scorer over a retriever's top candidates.

The contract and registry live here; implementations (a cross-encoder) register
themselves by name, and :class:`RerankingRetriever` puts any of them behind any retriever.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from veritype._registry import Registry
from veritype.retrieval._base import Retriever, ScoredChunk


@runtime_checkable
class Reranker(Protocol):
    """Reorders candidates for a query, best first, with its own scores."""

    name: str

    def rerank(self, query: str, candidates: Sequence[ScoredChunk]) -> list[ScoredChunk]: ...

    def rerank_batch(
        self, queries: Sequence[str], candidates: Sequence[Sequence[ScoredChunk]]
    ) -> list[list[ScoredChunk]]: ...


class RerankerRegistryError(KeyError):
    """An unknown reranker name, or a name registered twice."""

    def __str__(self) -> str:
        return str(self.args[0])


RerankerFactory = Callable[..., Reranker]
_REGISTRY = Registry[RerankerFactory](
    lambda name: RerankerRegistryError(f"a reranker named {name!r} is already registered")
)


def register_reranker(name: str) -> Callable[[RerankerFactory], RerankerFactory]:
    """Register a reranker factory under ``name``."""
    return _REGISTRY.register(name)


def create_reranker(name: str, **options: Any) -> Reranker:
    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise RerankerRegistryError(
            f"unknown reranker {name!r}; known rerankers: {known}"
        ) from None
    return factory(**options)


def available_rerankers() -> list[str]:
    return sorted(_REGISTRY)


class RerankingRetriever:
    """``retriever``'s top ``depth`` candidates, reordered by ``reranker``, cut to ``k``."""

    def __init__(self, retriever: Retriever, reranker: Reranker, *, depth: int = 50) -> None:
        if depth < 1:
            raise ValueError(f"depth must be positive, got {depth}")
        self.retriever = retriever
        self.reranker = reranker
        self.depth = depth
        self.name = f"{retriever.name}+{reranker.name}"

    def retrieve(self, query: str, k: int = 10) -> list[ScoredChunk]:
        return self.retrieve_batch([query], k)[0]

    def retrieve_batch(self, queries: Sequence[str], k: int = 10) -> list[list[ScoredChunk]]:
        candidates = self.retriever.retrieve_batch(queries, max(k, self.depth))
        reranked = self.reranker.rerank_batch(queries, candidates)
        return [ranking[:k] for ranking in reranked]
