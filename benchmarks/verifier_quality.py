"""How good are the shipped verifier models? Prints and writes JSON.

For each model (and the two together): accuracy on every NLI eval set; HaluEval detection
accuracy on rows ≥ 8000 (threshold fitted on training rows 7000–7999); SciFact dev label
accuracy with gold rationales; the TruthfulQA claim-verification protocol (evidence = Best
Answer, claims = Correct / Incorrect Answers, 30/70 split by question with a fixed seed,
threshold fitted on the 30% only, metrics on the 70%); and the two models' agreement.
The checks themselves live in ``veritype.evaluation.model_quality``.

    python benchmarks/verifier_quality.py [--data-dir ../shared/data] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from veritype.evaluation import model_quality
from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")),
    )
    parser.add_argument("--limit", type=int, default=None, help="Cap pairs per set (quick runs).")
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "verifier_quality.json"
    )
    args = parser.parse_args()
    # A cache big enough for every pair: "both" then reuses the single models' scores.
    encoders = {name: CrossEncoder(shipped_model_dir(name), cache_size=500_000)
                for name in ("nli", "align")}
    scorers: dict[str, model_quality.Scorer] = {
        name: enc.predict for name, enc in encoders.items()
    }
    # Together: a claim is entailed only as far as both models agree (the smaller entailment).
    scorers["both"] = lambda pairs: np.minimum(
        encoders["nli"].predict(pairs), encoders["align"].predict(pairs)
    )
    report: dict[str, Any] = {"data_dir": str(args.data_dir), "limit": args.limit}
    for name, score in scorers.items():
        started = time.perf_counter()
        report[name] = {
            "nli_eval_accuracy": model_quality.nli_sets(score, args.data_dir, args.limit),
            "halueval_detection": model_quality.halueval(score, args.data_dir, args.limit),
            "scifact_dev": model_quality.scifact_gold(score, args.data_dir, args.limit),
            "truthfulqa": model_quality.truthfulqa(score, args.data_dir),
            "seconds": round(time.perf_counter() - started, 1),
        }
        shown = {k: v for k, v in report[name].items() if k != "truthfulqa"}
        print(name, json.dumps(shown, indent=1), file=sys.stderr)
    verdicts = {name: np.array(report[name]["truthfulqa"].pop("verdicts")) for name in scorers}
    report["truthfulqa_agreement_nli_align"] = round(
        float(np.mean(verdicts["nli"] == verdicts["align"])), 4
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
