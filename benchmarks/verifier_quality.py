"""How good and how fast are verifier models, side by side in one run? Prints and writes JSON.

For each model (the shipped ``nli`` and ``align`` by default, or any exported model directory
given as ``--model NAME=DIR``), and for ``nli`` and ``align`` together when both are run:
accuracy on every NLI eval set; HaluEval detection accuracy on rows ≥ 8000 (threshold fitted
on rows 7000–7999); SciFact dev label accuracy with gold rationales; the TruthfulQA protocol
(evidence = Best Answer, 30/70 split by question with a fixed seed, threshold fitted on the
30% only, metrics and ROC-AUC on the 70%, also on its non-verbatim claims); the two shipped
models' agreement; and pairs/s on the same MNLI pairs at batch 1 and 8 on the threads given
(best of three passes, scores not cached). The checks live in
``veritype.evaluation.model_quality``.

    python benchmarks/verifier_quality.py [--data-dir ../shared/data] [--limit N]
        [--model nli-large=runs/nli_mpnet/onnx ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from veritype.evaluation import model_quality
from veritype.evaluation.data import nli_examples
from veritype.evaluation.machine import machine
from veritype.models.cross_encoder import CrossEncoder, model_directory

ROOT = Path(__file__).resolve().parents[1]
SPEED_PAIRS = 256
CHECKS = ("nli", "halueval", "scifact", "truthfulqa")
PASSES = 3


def parse_model(text: str) -> tuple[str, str]:
    name, sep, where = text.partition("=")
    if not sep or not name or not where:
        raise argparse.ArgumentTypeError(f"--model must be NAME=DIR, got {text!r}")
    return name, where


def pairs_per_second(directory: Path, pairs: list[tuple[str, str]], batch: int,
                     threads: int) -> float:
    """The best of ``PASSES`` timed passes over ``pairs`` at ``batch``, nothing cached."""
    encoder = CrossEncoder(directory, threads=threads, batch_size=batch, cache_size=0)
    encoder.predict(pairs[:batch])
    best = float("inf")
    for _ in range(PASSES):
        started = time.perf_counter()
        encoder.predict(pairs)
        best = min(best, time.perf_counter() - started)
    return round(len(pairs) / best, 1)


def run_checks(score: model_quality.Scorer, checks: list[str], data_dir: Path,
               limit: int | None) -> dict[str, Any]:
    """The chosen checks of one scorer, by their report keys."""
    report: dict[str, Any] = {}
    if "nli" in checks:
        report["nli_eval_accuracy"] = model_quality.nli_sets(score, data_dir, limit)
    if "halueval" in checks:
        report["halueval_detection"] = model_quality.halueval(score, data_dir, limit)
    if "scifact" in checks:
        report["scifact_dev"] = model_quality.scifact_gold(score, data_dir, limit)
    if "truthfulqa" in checks:
        report["truthfulqa"] = model_quality.truthfulqa(score, data_dir)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")),
    )
    parser.add_argument("--limit", type=int, default=None, help="Cap pairs per set (quick runs).")
    parser.add_argument("--model", type=parse_model, action="append", default=None,
                        help="NAME=DIR: an exported model directory (or a shipped name) to "
                        "measure; repeatable. Default: nli=nli and align=align.")
    parser.add_argument("--checks", default=",".join(CHECKS),
                        help=f"Comma-separated checks (default: all of {', '.join(CHECKS)}).")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "verifier_quality.json"
    )
    args = parser.parse_args()
    checks = [check.strip() for check in args.checks.split(",") if check.strip()]
    if unknown := sorted(set(checks) - set(CHECKS)):
        parser.error(f"unknown checks {unknown}; known: {', '.join(CHECKS)}")
    chosen = dict(args.model or [("nli", "nli"), ("align", "align")])
    directories = {name: model_directory(where) for name, where in chosen.items()}
    # A cache big enough for every pair: "both" then reuses the single models' scores.
    encoders = {name: CrossEncoder(directory, threads=args.threads, cache_size=500_000)
                for name, directory in directories.items()}
    scorers: dict[str, model_quality.Scorer] = {
        name: enc.predict for name, enc in encoders.items()
    }
    if {"nli", "align"} <= set(encoders):
        # Together: a claim is entailed only as far as both agree (the smaller entailment).
        scorers["nli+align"] = lambda pairs: np.minimum(
            encoders["nli"].predict(pairs), encoders["align"].predict(pairs)
        )
    report: dict[str, Any] = {
        "benchmark": "verifier_quality",
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "data_dir": str(args.data_dir),
        "limit": args.limit,
        "checks": checks,
        "threads": args.threads,
        "models": {name: str(directory) for name, directory in directories.items()},
    }
    timed = [(e.evidence[0], e.claim)
             for e in nli_examples(args.data_dir, "mnli_dev_matched_3k", SPEED_PAIRS)]
    for name, score in scorers.items():
        started = time.perf_counter()
        report[name] = run_checks(score, checks, args.data_dir, args.limit)
        report[name]["seconds"] = round(time.perf_counter() - started, 1)
        if name in directories:
            report[name]["pairs_per_second"] = {
                f"batch_{batch}": pairs_per_second(directories[name], timed, batch,
                                                   args.threads)
                for batch in (1, 8)
            }
        shown = {k: v for k, v in report[name].items() if k != "truthfulqa"}
        print(name, json.dumps(shown, indent=1), file=sys.stderr)
    verdicts = {name: np.array(report[name]["truthfulqa"].pop("verdicts")) for name in scorers
                if "truthfulqa" in report[name]}
    if {"nli", "align"} <= set(verdicts):
        report["truthfulqa_agreement_nli_align"] = round(
            float(np.mean(verdicts["nli"] == verdicts["align"])), 4
        )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
