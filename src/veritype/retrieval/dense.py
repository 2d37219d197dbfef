"""Dense retrieval: query embeddings against a dense index's vectors in the store.

The store does the nearest-neighbour search where the vectors live: exact cosine in numpy
(or a usearch HNSW graph for large corpora) for SQLite, pgvector HNSW for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veritype.errors import ConfigurationError
from veritype.retrieval._base import ScoredChunk, register_retriever
from veritype.retrieval.bm25 import resolve_hits
from veritype.retrieval.embedding import Embedder, create_embedder
from veritype.store import IndexSpec, Store


class DenseRetriever:
    """Cosine similarity between the query's embedding and each chunk's."""

    def __init__(
        self, store: Store, spec: IndexSpec, *, embedder: Embedder | None = None, name: str = ""
    ) -> None:
        if spec.kind != "dense":
            raise ConfigurationError(f"index {spec.name!r} is {spec.kind}, not dense")
        self.store = store
        self.spec = spec
        self.name = name or spec.name
        self.embedder = embedder or create_embedder(spec.model, max_tokens=spec.max_tokens)

    def retrieve(self, query: str, k: int = 10) -> list[ScoredChunk]:
        return self.retrieve_batch([query], k)[0]

    def retrieve_batch(self, queries: Sequence[str], k: int = 10) -> list[list[ScoredChunk]]:
        if not queries:
            return []
        vectors = self.embedder.embed_batch(list(queries))
        hits = self.store.search_vectors(self.spec, vectors, k)
        return resolve_hits(self.store, hits, self.name)


@register_retriever("dense")
def create_dense(*, store: Store, index: IndexSpec, **options: Any) -> DenseRetriever:
    return DenseRetriever(store, index, **options)
