"""The demo corpus's shipped vectors: current, exactly what the encoder computes, and used
only where the encoder is the one that computed them, on a CPU of the family that did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veritype._cpu import int8_kernels
from veritype.ingest import DEFAULT_INDEXES, Corpus
from veritype.ingest.demo import (
    KnownVectors,
    _text_key,
    demo_vectors_path,
    shipped_embedders,
)
from veritype.retrieval.embedding import create_embedder
from veritype.store import IndexSpec

DENSE = next(spec for spec in DEFAULT_INDEXES if spec.kind == "dense")
STALE = ("the shipped demo vectors are not the default encoder's; write them anew: python -c "
         "'from veritype.ingest import DEFAULT_INDEXES; from veritype.ingest.demo import *; "
         "write_demo_vectors(demo_vectors_path(), DEFAULT_INDEXES)'")


def test_the_demo_is_ingested_with_its_shipped_vectors_which_the_encoder_would_compute(
        tmp_path: Path) -> None:
    if not demo_vectors_path().is_file():
        pytest.skip(f"no demo vectors ship for int8 kernels {int8_kernels()!r}")
    shipped = shipped_embedders(DEFAULT_INDEXES)
    assert isinstance(shipped.get(DENSE.name), KnownVectors), STALE
    known = shipped[DENSE.name].known  # type: ignore[attr-defined]
    with Corpus.open(f"sqlite:///{tmp_path / 'demo.sqlite'}") as corpus:
        assert corpus.ensure_demo() is not None
        texts = [chunk.index_text for chunk in corpus.store.iter_chunks(DENSE.chunking)]
        assert len(texts) == len(known)
        assert all(_text_key(text) in known for text in texts), STALE
        ids, vectors = corpus.store.vectors(DENSE)
        by_id = dict(zip(ids, vectors, strict=True))
        sample = list(corpus.store.chunks(ids[::75]).items())
    computed = create_embedder(DENSE.model, max_tokens=DENSE.max_tokens).embed_batch(
        [chunk.index_text for _, chunk in sample])
    stored = np.stack([by_id[chunk_id] for chunk_id, _ in sample])
    assert len(sample) >= 8
    np.testing.assert_array_equal(stored, computed)


def test_another_encoder_or_truncation_embeds_as_usual(tmp_path: Path) -> None:
    with np.load(demo_vectors_path(), allow_pickle=False) as bundle:
        fields = {name: bundle[name] for name in bundle.files}
    other = tmp_path / "other.npz"
    np.savez(other, **(fields | {"encoder": np.array("0" * 64)}))
    assert shipped_embedders(DEFAULT_INDEXES, other) == {}
    # Vectors another family of int8 kernels computed are not this CPU's.
    elsewhere = tmp_path / "elsewhere.npz"
    np.savez(elsewhere, **(fields | {"int8_kernels": np.array("another-cpu")}))
    assert shipped_embedders(DEFAULT_INDEXES, elsewhere) == {}
    assert shipped_embedders(DEFAULT_INDEXES, demo_vectors_path())
    shorter = IndexSpec(DENSE.name, "dense", DENSE.chunking, model=DENSE.model, max_tokens=64)
    assert shipped_embedders([shorter]) == {}
    assert shipped_embedders(DEFAULT_INDEXES, tmp_path / "absent.npz") == {}


def test_known_texts_read_their_vector_and_the_others_are_embedded() -> None:
    base = create_embedder(DENSE.model, max_tokens=DENSE.max_tokens)
    marker = np.full(base.dimensions, 0.5, dtype=np.float32)
    known = KnownVectors(base, {_text_key("a known text"): marker})
    vectors = known.embed_batch(["a known text", "The Eiffel Tower is in Paris."])
    np.testing.assert_array_equal(vectors[0], marker)
    np.testing.assert_array_equal(vectors[1], base.embed("The Eiffel Tower is in Paris."))
    assert known.name == base.name and known.dimensions == base.dimensions
