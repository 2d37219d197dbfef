"""The retriever contract: a Protocol, its scored result and a registry by name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from veritype._registry import Registry
from veritype.evidence import Chunk, EvidencePack, Span


@dataclass(frozen=True, slots=True)
class ScoredChunk:
    """One retrieved chunk: its exact span in the document, its title and its score.

    Scores are comparable only within one retriever's results (BM25 weights, cosine
    similarities, fused reciprocal ranks).
    """

    chunk: Chunk
    score: float
    retriever: str
    title: str = ""

    @property
    def span(self) -> Span:
        return Span(self.chunk.doc_id, self.chunk.chunk_id, self.chunk.start, self.chunk.end)

    @property
    def key(self) -> tuple[str, int, int]:
        """Identity of the characters retrieved: the same span from two indexes is one hit."""
        return (self.chunk.doc_id, self.chunk.start, self.chunk.end)


@runtime_checkable
class Retriever(Protocol):
    """Finds the chunks most likely to hold evidence for a query or a claim."""

    name: str

    def retrieve(self, query: str, k: int = 10) -> list[ScoredChunk]: ...

    def retrieve_batch(self, queries: Sequence[str], k: int = 10) -> list[list[ScoredChunk]]: ...


_REGISTRY = Registry[Retriever]("retriever")
register_retriever = _REGISTRY.register
available_retrievers = _REGISTRY.names

create_retriever = _REGISTRY.create


def evidence_pack(results: Sequence[ScoredChunk]) -> EvidencePack:
    """An evidence pack of retrieved chunks (first occurrence of each chunk id wins)."""
    chunks = list({item.chunk.chunk_id: item.chunk for item in results}.values())
    return EvidencePack(chunks=chunks)
