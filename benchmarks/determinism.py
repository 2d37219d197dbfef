"""Does a verifier give the same scores to the same pair whatever it is batched with, and
what does that cost?

The shipped ``nli`` and ``align`` models are dynamically quantised: each run scales its
activations by the largest value in the run, so in a batch a pair's scores depend on its
batch-mates. veritype therefore scores each pair in a run of its own. This script measures,
on short pairs (MNLI dev-matched) and long ones (HaluEval QA knowledge against the right
answer, evaluation rows 8000+; only read, never fitted on), side by side in one process:

- pairs/s one pair per run and in length-sorted batches of 8 (best of three passes),
- how far batch-of-8 scores stray from the same pairs' scores alone (largest absolute
  difference, and how many pairs change their most likely label).

    python benchmarks/determinism.py [--data-dir ../shared/data] [--pairs 256]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from veritype.evaluation.machine import machine
from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir

ROOT = Path(__file__).resolve().parents[1]
PASSES = 3


def mnli_pairs(data_dir: Path, count: int) -> list[tuple[str, str]]:
    path = data_dir / "nli" / "eval" / "mnli_dev_matched_3k.jsonl"
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(count), handle, strict=False)]
    return [(row["premise"], row["hypothesis"]) for row in rows]


def halueval_pairs(data_dir: Path, count: int) -> list[tuple[str, str]]:
    lines = (data_dir / "halueval" / "qa_data.json").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines[8000 : 8000 + count]]
    return [(row["knowledge"], f"{row['question']} {row['right_answer']}") for row in rows]


def timed(encoder: CrossEncoder, pairs: list[tuple[str, str]]) -> tuple[float, np.ndarray]:
    best, scores = float("inf"), np.zeros((0, 3))
    for _ in range(PASSES):
        encoder.clear_cache()
        started = time.perf_counter()
        scores = encoder.predict(pairs)
        best = min(best, time.perf_counter() - started)
    return len(pairs) / best, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path(
        os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")))
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "determinism.json")
    args = parser.parse_args()
    sets = {"mnli_short": mnli_pairs(args.data_dir, args.pairs),
            "halueval_qa_long": halueval_pairs(args.data_dir, args.pairs)}
    report: dict[str, object] = {"pairs_per_set": args.pairs, "machine": machine()}
    for name in ("nli", "align"):
        alone = CrossEncoder(shipped_model_dir(name))
        batched = CrossEncoder(shipped_model_dir(name), batch_size=8)
        assert alone.batch_size == 1
        for label, pairs in sets.items():
            alone_speed, alone_scores = timed(alone, pairs)
            batch_speed, batch_scores = timed(batched, pairs)
            report[f"{name}_{label}"] = {
                "pairs_per_s_one_per_run": round(alone_speed, 1),
                "pairs_per_s_batch8": round(batch_speed, 1),
                "batch8_max_abs_difference": round(
                    float(np.abs(batch_scores - alone_scores).max()), 4),
                "batch8_label_flips": int(
                    (batch_scores.argmax(axis=1) != alone_scores.argmax(axis=1)).sum()),
            }
            print(name, label, report[f"{name}_{label}"], file=sys.stderr)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
