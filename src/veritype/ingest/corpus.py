"""A corpus: a store, its index layout, ingestion into it and retrieval from it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack

from veritype._closing import Closing
from veritype.errors import ConfigurationError, InputError, UnknownComponentError
from veritype.ingest.demo import demo_corpus_path, shipped_embedders
from veritype.ingest.engines import IngestEngine
from veritype.ingest.pipeline import IngestOptions, Ingestor, IngestReport
from veritype.ingest.readers import SourceDocument
from veritype.progress import Progress
from veritype.retrieval import (
    DEFAULT_RRF_K,
    BM25Index,
    BM25Retriever,
    DenseRetriever,
    HybridRetriever,
    Retriever,
    ScoredChunk,
)
from veritype.retrieval.embedding import DEFAULT_EMBEDDER
from veritype.store import Chunking, DocumentRecord, IndexSpec, Store, open_store

# BM25 and dense share a chunking so that hybrid fusion compares the same spans.
DEFAULT_CHUNKING = Chunking(max_chars=1000, overlap_sentences=0)
DEFAULT_INDEXES = (
    IndexSpec("bm25", "bm25", DEFAULT_CHUNKING),
    IndexSpec("dense", "dense", DEFAULT_CHUNKING, model=DEFAULT_EMBEDDER),
)
HYBRID = "hybrid"


def document_summary(record: DocumentRecord) -> dict[str, Any]:
    """What a listing of stored documents shows of one: its id, title, source and sizes."""
    return {
        "doc_id": record.doc_id,
        "title": record.document.title,
        "source": record.source,
        "media_type": record.media_type,
        "chars": len(record.document.text),
        "chunks": record.chunk_count,
    }


class TextLabels(TypedDict, total=False):
    """What names in-memory texts: a title and a source (its id in the store) per text."""

    titles: Sequence[str] | None
    sources: Sequence[str] | None


def text_source(text: str) -> str:
    """The source name of a text given without one: ``text-`` and a hash of its contents."""
    return "text-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Corpus(Closing):
    """Documents in a store plus the retrieval indexes over them.

    The layout (which indexes, with which chunking and model) is saved in the store on the
    first ingest and read back on open, so ingest and retrieval always agree.
    """

    def __init__(self, store: Store, indexes: Sequence[IndexSpec] | None = None) -> None:
        self.store = store
        self.indexes = list(indexes or store.layout() or DEFAULT_INDEXES)
        names = [spec.name for spec in self.indexes]
        if len(set(names)) != len(names) or HYBRID in names:
            raise ConfigurationError(f"index names must be unique and not {HYBRID!r}: {names}")
        self._retrievers: dict[tuple[object, ...], Retriever] = {}

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        indexes: Sequence[IndexSpec] | None = None,
        **store_options: Any,
    ) -> Corpus:
        return cls(open_store(url, **store_options), indexes)

    def ingest(self, paths: Sequence[Path | str], *, batch_size: int = 64,
               engine: IngestEngine | None = None, **options: Unpack[IngestOptions]
               ) -> IngestReport:
        """Ingest files and folders, here or on ``engine`` (such as ``ray``, from
        :func:`create_ingest_engine`), then bring the sparse indexes up to date."""
        ingestor = Ingestor(self.store, self.indexes, batch_size=batch_size)
        report = (ingestor.ingest(paths, **options) if engine is None
                  else engine.ingest(ingestor, paths, **options))
        self.refresh_indexes()
        return report

    def ingest_texts(self, texts: Sequence[str], **labels: Unpack[TextLabels]) -> IngestReport:
        """Ingest in-memory texts; ``sources`` name them. A text given without a source is
        named by its contents (``text-`` and a hash), so a later call never replaces it: the
        same text again is unchanged, another text is added beside it."""
        given_titles, given_sources = labels.get("titles"), labels.get("sources")
        titles = [""] * len(texts) if given_titles is None else list(given_titles)
        sources = ([text_source(text) for text in texts] if given_sources is None
                   else list(given_sources))
        if not len(texts) == len(titles) == len(sources):
            raise InputError("give one title and one source per text")
        documents = [
            SourceDocument(text, title, source, "text/plain")
            for text, title, source in zip(texts, titles, sources, strict=True)
        ]
        report = Ingestor(self.store, self.indexes).ingest_documents(documents)
        self.refresh_indexes()
        return report

    def refresh_indexes(self) -> None:
        """Rebuild derived indexes that are older than the store (cheap when up to date)."""
        for spec in self.indexes:
            if spec.kind == "bm25":
                BM25Index.refresh(self.store, spec)

    def index(self, name: str) -> IndexSpec:
        for spec in self.indexes:
            if spec.name == name:
                return spec
        raise UnknownComponentError(
            "retriever", name, [spec.name for spec in self.indexes] + [HYBRID]
        )

    def retriever(
        self,
        name: str = HYBRID,
        *,
        parts: Sequence[str] | None = None,
        weights: Sequence[float] | None = None,
        rrf_k: float = DEFAULT_RRF_K,
    ) -> Retriever:
        """An index's retriever by name, or ``hybrid``: reciprocal rank fusion of ``parts``
        (index names; default: every index chunked like the first, so that fused hits are
        the same spans), with one weight per part."""
        if name != HYBRID:
            key: tuple[object, ...] = (name,)
        else:
            parts = list(parts) if parts is not None else self.hybrid_parts()
            key = (name, tuple(parts), tuple(weights or ()), rrf_k)
        if key not in self._retrievers:
            self._retrievers[key] = self._build(name, parts or [], weights, rrf_k)
        return self._retrievers[key]

    def hybrid_parts(self) -> list[str]:
        first = self.indexes[0].chunking
        return [spec.name for spec in self.indexes if spec.chunking == first]

    def _build(
        self, name: str, parts: Sequence[str], weights: Sequence[float] | None, rrf_k: float
    ) -> Retriever:
        if name == HYBRID:
            retrievers = [self.retriever(part) for part in parts]
            return HybridRetriever(retrievers, weights=weights, rrf_k=rrf_k)
        spec = self.index(name)
        if spec.kind == "bm25":
            return BM25Retriever(self.store, spec)
        return DenseRetriever(self.store, spec)

    def retrieve(self, query: str, k: int = 10, *, retriever: str = HYBRID) -> list[ScoredChunk]:
        return self.retriever(retriever).retrieve(query, k)

    def retrieve_batch(
        self, queries: Sequence[str], k: int = 10, *, retriever: str = HYBRID
    ) -> list[list[ScoredChunk]]:
        return self.retriever(retriever).retrieve_batch(queries, k)

    def ensure_demo(self, progress: Progress | None = None) -> IngestReport | None:
        """Ingest the bundled demo corpus into an empty store, with the shipped vectors of its
        chunks where the encoder is the one that computed them; ``None`` if not empty."""
        if self.store.count_documents():
            return None
        ingestor = Ingestor(self.store, self.indexes, embedders=shipped_embedders(self.indexes))
        report = ingestor.ingest([demo_corpus_path()], progress=progress)
        self.refresh_indexes()
        return report

    def close(self) -> None:
        self.store.close()

