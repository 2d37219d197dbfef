"""Nearest-neighbour search over a dense index kept in memory: exact for small, HNSW for large.

Exact search is one matrix product in numpy and is faster than any graph index below a few
tens of thousands of vectors; above ``ann_threshold`` a usearch HNSW index is built once per
store generation and saved beside the store, so later processes load it instead of rebuilding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import numpy as np

from veritype._files import exclusive
from veritype.store._base import Vectors, normalise_rows

DEFAULT_ANN_THRESHOLD = 50_000
# Candidates an HNSW search keeps (usearch's own default: 64). Among 1 M clustered vectors 64
# finds 0.95 of the exact top 10 and 128 finds 0.98, for about 10% more latency
# (benchmarks/vector_search_1m.py). A search setting: saved graphs need no rebuild.
DEFAULT_EXPANSION_SEARCH = 128


class VectorIndex(Protocol):
    def search(self, queries: Vectors, k: int) -> list[list[tuple[str, float]]]: ...


class ExactIndex:
    """Cosine similarity against every vector (vectors and queries are unit length)."""

    def __init__(self, ids: list[str], vectors: Vectors) -> None:
        self.ids = ids
        self.vectors = normalise_rows(vectors) if len(ids) else vectors

    def search(self, queries: Vectors, k: int) -> list[list[tuple[str, float]]]:
        if not self.ids or k < 1:
            return [[] for _ in range(len(queries))]
        scores = normalise_rows(queries) @ self.vectors.T
        k = min(k, len(self.ids))
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        results: list[list[tuple[str, float]]] = []
        for row, candidates in zip(scores, top, strict=True):
            ordered = candidates[np.argsort(-row[candidates], kind="stable")]
            results.append([(self.ids[i], float(row[i])) for i in ordered])
        return results


class AnnIndex:
    """A usearch HNSW graph over the vectors; keys are positions in ``ids``."""

    def __init__(self, ids: list[str], vectors: Vectors, *, path: Path, generation: int) -> None:
        # onnxruntime 1.32 crashes on import in a process that has imported usearch 2.26 before
        # it, so it comes first: the embedder loads it in this process sooner or later anyway.
        import onnxruntime  # noqa: F401
        from usearch.index import Index

        self.ids = ids
        meta_path = path.with_suffix(".json")
        # Processes sharing the folder (replicas on one machine) build each generation once,
        # and never restore a file another is writing.
        with exclusive(path):
            restored = (Index.restore(str(path), expansion_search=DEFAULT_EXPANSION_SEARCH)
                        if path.exists() and self._is_current(meta_path, generation, ids)
                        else None)
            if restored is not None:
                self.index = restored
                return
            index = Index(ndim=vectors.shape[1], metric="cos", dtype="f32",
                          expansion_search=DEFAULT_EXPANSION_SEARCH)
            index.add(np.arange(len(ids), dtype=np.uint64), normalise_rows(vectors))
            index.save(str(path))
            meta_path.write_text(json.dumps({"generation": generation, "count": len(ids)}))
            self.index = index

    @staticmethod
    def _is_current(meta_path: Path, generation: int, ids: list[str]) -> bool:
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            return False
        return bool(meta.get("generation") == generation and meta.get("count") == len(ids))

    def search(self, queries: Vectors, k: int) -> list[list[tuple[str, float]]]:
        if not self.ids or k < 1:
            return [[] for _ in range(len(queries))]
        matches = self.index.search(normalise_rows(queries), min(k, len(self.ids)))
        keys = np.asarray(matches.keys).reshape(len(queries), -1)
        distances = np.asarray(matches.distances).reshape(len(queries), -1)
        results: list[list[tuple[str, float]]] = []
        for row_keys, row_distances in zip(keys, distances, strict=True):
            results.append(
                [
                    (self.ids[int(key)], 1.0 - float(distance))
                    for key, distance in zip(row_keys, row_distances, strict=True)
                    if 0 <= int(key) < len(self.ids)
                ]
            )
        return results


def build_vector_index(
    ids: list[str], vectors: Vectors, *, ann_threshold: int, path: Path, generation: int
) -> VectorIndex:
    if len(ids) > ann_threshold:
        return AnnIndex(ids, vectors, path=path, generation=generation)
    return ExactIndex(ids, vectors)
