"""The store contract: what a corpus keeps, a Protocol per job, and a registry by URL scheme.

A store holds documents, their chunks under one or more chunkings, and the dense vectors
of each dense index. Every write replaces whole documents inside one transaction, so a
reader (or a process that was killed mid-ingest) never sees half a document.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from veritype._registry import Registry
from veritype.errors import ConfigurationError, InputError, StoreError
from veritype.evidence import Chunk, Document, chunk_document
from veritype.settings import env

Vectors = npt.NDArray[np.float32]

IndexKind = Literal["bm25", "dense"]
# What a write did to one document: decided inside the write's transaction, so two
# processes writing the same document at once report it once as added.
WriteOutcome = Literal["added", "replaced", "unchanged"]


class StoreInputError(StoreError, InputError):
    """Input no store can keep as given; the message names the document and the field."""


class StoreNotFoundError(StoreError):
    """A store opened for reading that does not exist yet."""

    def __init__(self, where: str) -> None:
        super().__init__(f"no store at {where}; run `veritype ingest` first")


@dataclass(frozen=True, slots=True)
class Chunking:
    """How documents are cut for one index: sentence-aware, at most ``max_chars`` per chunk."""

    max_chars: int = 1200
    overlap_sentences: int = 0

    def __post_init__(self) -> None:
        if self.max_chars < 1:
            raise ConfigurationError(f"max_chars must be positive, got {self.max_chars}")
        if self.overlap_sentences < 0:
            raise ConfigurationError(
                f"overlap_sentences must be >= 0, got {self.overlap_sentences}"
            )

    @property
    def key(self) -> str:
        return f"c{self.max_chars}o{self.overlap_sentences}"

    def split(self, document: Document) -> list[Chunk]:
        """The document's chunks; ids carry the chunking so two chunkings never collide."""
        return [
            Chunk(
                chunk_id=f"{document.doc_id}:{self.key}:{number}",
                doc_id=chunk.doc_id,
                start=chunk.start,
                end=chunk.end,
                text=chunk.text,
            )
            for number, chunk in enumerate(
                chunk_document(
                    document,
                    max_chars=self.max_chars,
                    overlap_sentences=self.overlap_sentences,
                )
            )
        ]


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """One retrieval index over the store: its name, kind and chunking; for a dense index,
    the embedding model and how many tokens of each chunk it reads (the rest is cut off:
    embedding cost grows with it, and models have a maximum)."""

    name: str
    kind: IndexKind
    chunking: Chunking = field(default_factory=Chunking)
    model: str = ""
    max_tokens: int = 256

    def __post_init__(self) -> None:
        if not self.name.replace("_", "").replace("-", "").isalnum():
            raise ConfigurationError(f"index name {self.name!r} must be letters, digits, - or _")
        if self.kind not in ("bm25", "dense"):
            raise ConfigurationError(f"index {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "dense" and not self.model:
            raise ConfigurationError(f"dense index {self.name!r} needs a model")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IndexSpec:
        return cls(
            name=str(data["name"]),
            kind=data["kind"],
            chunking=Chunking(**data["chunking"]),
            model=str(data.get("model", "")),
            max_tokens=int(data.get("max_tokens", 256)),
        )


def layout_fingerprint(indexes: Sequence[IndexSpec]) -> str:
    """A short hash of an index layout: a document indexed under another layout is redone."""
    payload = json.dumps([spec.to_dict() for spec in indexes], sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """A stored document and where it came from.

    ``source`` names the document uniquely (a file path, or ``path#row`` for one row of a
    JSON Lines or CSV file); ``origin`` is the file it was read from; ``fingerprint``
    changes when the text or the index layout changes, which is what triggers a re-index.
    """

    document: Document
    origin: str
    media_type: str
    fingerprint: str
    added_at: float
    chunk_count: int = 0

    @property
    def doc_id(self) -> str:
        return self.document.doc_id

    @property
    def source(self) -> str:
        return self.document.source


@dataclass(frozen=True, slots=True)
class ChunkVectors:
    """The dense vectors of one index for some chunks, row ``i`` for ``chunk_ids[i]``."""

    chunk_ids: list[str]
    vectors: Vectors

    def __post_init__(self) -> None:
        if len(self.chunk_ids) != len(self.vectors):
            raise InputError(f"{len(self.chunk_ids)} chunk ids but {len(self.vectors)} vectors")


@dataclass(slots=True)
class DocumentWrite:
    """Everything one document adds to a store, written atomically: the record, its chunks
    by chunking key, and its vectors by dense index name."""

    record: DocumentRecord
    chunks: dict[str, list[Chunk]]
    vectors: dict[str, ChunkVectors] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.record = _with_chunk_count(self.record, sum(len(c) for c in self.chunks.values()))


def _with_chunk_count(record: DocumentRecord, count: int) -> DocumentRecord:
    return DocumentRecord(
        document=record.document,
        origin=record.origin,
        media_type=record.media_type,
        fingerprint=record.fingerprint,
        added_at=record.added_at,
        chunk_count=count,
    )


@dataclass(frozen=True, slots=True)
class TitledChunk:
    """A chunk with the title of its document (used to build and show index entries)."""

    chunk: Chunk
    title: str

    @property
    def index_text(self) -> str:
        """What an index sees: the title gives every chunk its document's context."""
        return f"{self.title}\n{self.chunk.text}" if self.title else self.chunk.text


@runtime_checkable
class DocumentStore(Protocol):
    """Documents and their chunks, written whole, with a counter of committed writes."""

    def generation(self) -> int:
        """A counter that every committed write increases; derived indexes compare it."""
        ...

    def write(self, writes: Sequence[DocumentWrite]) -> list[WriteOutcome]:
        """Store documents, replacing any with the same source, in one transaction; a
        document already stored with the same fingerprint is left as it is. Returns what
        happened to each document, in order. Raises :class:`StoreInputError` for text no
        store can keep (a NUL character), before anything is written."""
        ...

    def fingerprints(self, sources: Sequence[str]) -> dict[str, str]:
        """``source -> fingerprint`` for the given sources that are stored."""
        ...

    def sources_from(self, origin: str) -> list[str]:
        """Sources of every document read from the file ``origin``."""
        ...

    def delete(self, doc_ids: Sequence[str]) -> int:
        """Delete documents with their chunks and vectors; returns how many existed."""
        ...

    def delete_sources(self, sources: Sequence[str]) -> int: ...

    def document(self, doc_id: str) -> DocumentRecord | None: ...

    def documents(self, *, limit: int = 100, offset: int = 0) -> list[DocumentRecord]:
        """Stored documents in insertion order, ``limit`` of them from ``offset``."""
        ...

    def count_documents(self) -> int: ...

    def count_chunks(self, chunking: Chunking | None = None) -> int: ...

    def document_chunks(self, doc_id: str) -> list[tuple[str, Chunk]]:
        """A document's chunks as ``(chunking key, chunk)``, by chunking then position."""
        ...

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, TitledChunk]:
        """The chunks with these ids (unknown ids are left out)."""
        ...

    def iter_chunks(self, chunking: Chunking, *, batch_size: int = 2000) -> Iterator[TitledChunk]:
        """Every chunk of a chunking, in a stable order."""
        ...


@runtime_checkable
class IndexStore(Protocol):
    """The retrieval indexes over the documents: their layout, dense vectors and folder."""

    def index_dir(self) -> Path:
        """A local directory for derived indexes (BM25, ANN), kept beside the store."""
        ...

    def save_layout(self, indexes: Sequence[IndexSpec]) -> None: ...

    def layout(self) -> list[IndexSpec]:
        """The index layout last saved, or an empty list for a new store."""
        ...

    def vectors(self, index: IndexSpec) -> tuple[list[str], Vectors]:
        """All chunk ids and vectors of a dense index."""
        ...

    def search_vectors(
        self, index: IndexSpec, queries: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        """For each query vector, the ``k`` nearest chunk ids with their cosine similarity."""
        ...


@runtime_checkable
class TraceStore(Protocol):
    """The traces of verification runs, kept by id."""

    def save_trace(self, trace_id: str, kind: str, trace: Mapping[str, Any]) -> None:
        """Keep a run's trace (JSON-able) under its id, replacing any with the same id.
        NUL characters in its strings are kept as U+FFFD."""
        ...

    def prune_traces(self, *, older_than: float | None = None, keep: int | None = None) -> int:
        """Delete traces saved more than ``older_than`` seconds ago, then all but the newest
        ``keep``; returns how many were deleted."""
        ...

    def count_traces(self) -> int: ...

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        """A saved trace, or ``None`` for an unknown id."""
        ...


@runtime_checkable
class Store(DocumentStore, IndexStore, TraceStore, Protocol):
    """Where a corpus lives: its documents, indexes and traces behind one URL.
    Implementations: ``sqlite`` (embedded) and ``postgresql``."""

    url: str

    def close(self) -> None: ...


_REGISTRY = Registry[Store]("store")

DEFAULT_STORE_PATH = Path(".veritype") / "store.sqlite"


# Store factories by URL scheme (``sqlite``, ``postgresql``, ...).
register_store = _REGISTRY.register
available_stores = _REGISTRY.names


def default_store_url() -> str:
    """``$VERITYPE_STORE``, else a SQLite file under the project (current) directory."""
    return env("STORE") or f"sqlite:///{DEFAULT_STORE_PATH}"


def open_store(url: str | None = None, *, create: bool = True, **options: Any) -> Store:
    """Open the store at ``url``: ``sqlite:///path``, a plain file path, or ``postgresql://``.

    ``create=False`` is for readers: a store that does not exist yet raises
    :class:`StoreNotFoundError` instead of being created empty.
    """
    url = url or default_store_url()
    scheme, sep, _ = url.partition("://")
    if not sep:
        scheme, url = "sqlite", f"sqlite:///{url}"
    if scheme == "postgres":
        scheme = "postgresql"
    factory = _REGISTRY.find(scheme)
    if factory is None:
        known = ", ".join(f"{name}://" for name in available_stores()) or "none"
        raise StoreError(
            f"unknown store URL scheme {scheme!r} in {url!r}; known: {known}"
        ) from None
    return factory(url, create=create, **options)


def local_cache_dir(url: str) -> Path:
    """A per-store folder under the project directory, for stores that are not local files."""
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:12]
    return Path(".veritype") / "indexes" / digest


def normalise_rows(vectors: Vectors) -> Vectors:
    """Rows scaled to unit length (zero rows stay zero), so a dot product is a cosine."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def check_storable(writes: Sequence[DocumentWrite]) -> None:
    """Refuse NUL characters in what a write stores: PostgreSQL cannot keep them in text,
    and both stores must accept exactly the same input."""
    for item in writes:
        document = item.record.document
        for name, value in (("text", document.text), ("title", document.title),
                            ("source", document.source), ("origin", item.record.origin)):
            position = value.find("\0")
            if position >= 0:
                raise StoreInputError(
                    f"document {document.source!r}: its {name} has a NUL character at "
                    f"position {position}; nothing was stored"
                )


def storable_trace(value: Any) -> Any:
    """``value`` with NUL characters in its strings replaced by U+FFFD (see ``save_trace``)."""
    if isinstance(value, str):
        return value.replace("\0", "\ufffd")
    if isinstance(value, Mapping):
        return {storable_trace(key): storable_trace(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [storable_trace(item) for item in value]
    return value


def has_nul(*values: str) -> bool:
    """Whether any of ``values`` (ids looked up) holds a NUL: no stored id can."""
    return any("\0" in value for value in values)

