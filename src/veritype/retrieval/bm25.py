"""Sparse retrieval: BM25 (bm25s) over one chunking of the store, persisted beside it.

The index is a derived artefact: it records the store generation it was built from and is
rebuilt whenever the store has changed since (after an ingest, or after an ingest that was
killed before it could refresh the index), so it can never serve chunks the store lacks.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veritype._files import exclusive
from veritype.errors import ConfigurationError
from veritype.retrieval._base import ScoredChunk, register_retriever
from veritype.store import IndexSpec, Store

if TYPE_CHECKING:
    import bm25s

_STATE_FILE = "state.json"
_IDS_FILE = "chunk_ids.json"


class BM25Index:
    """A bm25s index over the chunks of ``spec.chunking``, with the chunk id of each row."""

    def __init__(self, model: bm25s.BM25, chunk_ids: list[str], generation: int) -> None:
        import Stemmer

        self.model = model
        self.chunk_ids = chunk_ids
        self.generation = generation
        self._stemmer = Stemmer.Stemmer("english")

    @staticmethod
    def folder(store: Store, spec: IndexSpec) -> Path:
        return store.index_dir() / f"bm25-{spec.name}"

    @classmethod
    def build(cls, store: Store, spec: IndexSpec) -> BM25Index:
        import bm25s
        import Stemmer

        generation = store.generation()
        items = list(store.iter_chunks(spec.chunking))
        stemmer = Stemmer.Stemmer("english")
        model = bm25s.BM25()
        chunk_ids = [item.chunk.chunk_id for item in items]
        if items:
            tokens = bm25s.tokenize(
                [item.index_text for item in items],
                stopwords="en",
                stemmer=stemmer,
                show_progress=False,
            )
            if tokens.vocab:
                model.index(tokens, show_progress=False)
            else:
                # No chunk holds a term ("0", stopwords only): bm25s cannot index an empty
                # vocabulary, and such an index could find nothing anyway.
                chunk_ids = []
        return cls(model, chunk_ids, generation)

    def save(self, folder: Path) -> None:
        """Write into a fresh folder and swap it in, so readers never load half an index."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        staging.chmod(0o755)
        try:
            if self.chunk_ids:
                self.model.save(str(staging), show_progress=False)
            (staging / _IDS_FILE).write_text(json.dumps(self.chunk_ids))
            (staging / _STATE_FILE).write_text(json.dumps({"generation": self.generation}))
            backup = folder.with_name(f".{folder.name}-old")
            if folder.exists():
                shutil.rmtree(backup, ignore_errors=True)
                folder.rename(backup)
            staging.rename(folder)
            shutil.rmtree(backup, ignore_errors=True)
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path, generation: int) -> BM25Index | None:
        """The saved index if it was built at ``generation``, else ``None``."""
        import bm25s

        try:
            state = json.loads((folder / _STATE_FILE).read_text())
            if state.get("generation") != generation:
                return None
            chunk_ids = json.loads((folder / _IDS_FILE).read_text())
            model = bm25s.BM25.load(str(folder), show_progress=False) if chunk_ids else bm25s.BM25()
        except (OSError, ValueError, KeyError):
            return None
        return cls(model, chunk_ids, generation)

    @classmethod
    def refresh(cls, store: Store, spec: IndexSpec) -> BM25Index:
        """The current index: loaded if it is up to date, else rebuilt and saved. Processes
        sharing the folder (replicas of a service in one directory) rebuild one at a time,
        so each generation is built once and the others load it."""
        folder = cls.folder(store, spec)
        loaded = cls.load(folder, store.generation())
        if loaded is not None:
            return loaded
        with exclusive(folder):
            loaded = cls.load(folder, store.generation())
            if loaded is not None:
                return loaded
            built = cls.build(store, spec)
            built.save(folder)
            return built

    def search(self, queries: Sequence[str], k: int) -> list[list[tuple[str, float]]]:
        import bm25s

        if not self.chunk_ids or k < 1 or not queries:
            return [[] for _ in queries]
        tokens = bm25s.tokenize(
            list(queries),
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        rows, scores = self.model.retrieve(
            tokens, k=min(k, len(self.chunk_ids)), show_progress=False
        )
        return [
            [
                (self.chunk_ids[int(row)], float(score))
                for row, score in zip(row_ids, row_scores, strict=True)
                if score > 0
            ]
            for row_ids, row_scores in zip(np.asarray(rows), np.asarray(scores), strict=True)
        ]


class BM25Retriever:
    """BM25 over the store's chunks of one index; follows the store as it changes."""

    def __init__(self, store: Store, spec: IndexSpec, *, name: str = "") -> None:
        if spec.kind != "bm25":
            raise ConfigurationError(f"index {spec.name!r} is {spec.kind}, not bm25")
        self.store = store
        self.spec = spec
        self.name = name or spec.name
        self._index: BM25Index | None = None

    def index(self) -> BM25Index:
        if self._index is None or self._index.generation != self.store.generation():
            self._index = BM25Index.refresh(self.store, self.spec)
        return self._index

    def retrieve(self, query: str, k: int = 10) -> list[ScoredChunk]:
        return self.retrieve_batch([query], k)[0]

    def retrieve_batch(self, queries: Sequence[str], k: int = 10) -> list[list[ScoredChunk]]:
        hits = self.index().search(queries, k)
        return resolve_hits(self.store, hits, self.name)


def resolve_hits(
    store: Store, hits: list[list[tuple[str, float]]], retriever: str
) -> list[list[ScoredChunk]]:
    """Chunk ids and scores → scored chunks, with one store round trip for the whole batch."""
    found = store.chunks([chunk_id for row in hits for chunk_id, _ in row])
    return [
        [
            ScoredChunk(found[chunk_id].chunk, score, retriever, found[chunk_id].title)
            for chunk_id, score in row
            if chunk_id in found
        ]
        for row in hits
    ]


@register_retriever("bm25")
def create_bm25(*, store: Store, index: IndexSpec, **options: Any) -> BM25Retriever:
    return BM25Retriever(store, index, **options)
