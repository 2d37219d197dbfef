"""What the ``judge`` view adds over the ``nli`` view, on the same pairs, side by side.

Held-out-style sets, none of them trained on by any veritype model, a fixed random sample
of each (seed 0):

- HaluEval QA rows >= 8000: "question + right answer" (supported) and "question +
  hallucinated answer" (unsupported) against the row's knowledge;
- SciFact dev: each claim against its cited abstracts; SUPPORT is supported, CONTRADICT
  and NEI are not;
- TruthfulQA (2021 file) claims that are not verbatim copies of their evidence (the Best
  Answer); correct answers are supported, incorrect ones not.

Nothing is fitted, so no calibration split is needed. Each view scores every pair through
the view itself (the same evidence windows a run would use); the report gives ROC-AUC per
view with a bootstrap interval, the paired bootstrap interval of the judge's gain, and
seconds per claim.

    python benchmarks/judge_quality.py [--pairs 80] [--judge-options '{"model_path": ...}']
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import add_data_dir, write_report

from veritype.claims import Claim
from veritype.evaluation.data import (
    Example,
    halueval_examples,
    is_verbatim,
    read_jsonl,
    scifact_claims,
    truthfulqa_examples,
)
from veritype.evaluation.metrics import roc_auc
from veritype.evidence import EvidencePack
from veritype.views import create_view

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "judge_quality.json"
RESAMPLES = 1000


def scifact_examples(data_dir: Path) -> list[Example]:
    abstracts = {str(row["doc_id"]): " ".join(row["abstract"])
                 for row in read_jsonl(data_dir / "scifact" / "corpus.jsonl")}
    return [
        Example(example_id=f"scifact-{claim.claim_id}", group=str(claim.claim_id),
                evidence=tuple(abstracts[doc] for doc in claim.cited_docs if doc in abstracts),
                claim=claim.claim, label=claim.label)
        for claim in scifact_claims(data_dir, "dev") if claim.cited_docs
    ]


def sample(examples: list[Example], count: int) -> list[Example]:
    """``count`` examples, half supported and half not where the set allows."""
    rng = random.Random(0)
    positives = [e for e in examples if e.supported]
    negatives = [e for e in examples if not e.supported]
    rng.shuffle(positives)
    rng.shuffle(negatives)
    half = count // 2
    chosen = positives[:half] + negatives[: count - min(half, len(positives))]
    rng.shuffle(chosen)
    return chosen


def score(view: Any, examples: list[Example]) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    scores = [view.verify(Claim(f"c{i}", example.claim), EvidencePack.from_texts(
        list(example.evidence))).score for i, example in enumerate(examples)]
    return np.asarray(scores), (time.perf_counter() - started) / max(len(examples), 1)


def bootstrap(truth: np.ndarray, first: np.ndarray, second: np.ndarray) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    firsts, seconds, gains = [], [], []
    for _ in range(RESAMPLES):
        rows = rng.integers(0, len(truth), len(truth))
        if truth[rows].all() or not truth[rows].any():
            continue
        a, b = roc_auc(first[rows], truth[rows]), roc_auc(second[rows], truth[rows])
        firsts.append(a)
        seconds.append(b)
        gains.append(b - a)

    def interval(values: list[float]) -> list[float]:
        return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]

    return {"nli_ci95": interval(firsts), "judge_ci95": interval(seconds),
            "gain_ci95": interval(gains)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_dir(parser)
    parser.add_argument("--pairs", type=int, default=80, help="pairs per set")
    parser.add_argument("--judge-options", default="{}", help="JSON options for the judge view")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    sets = {
        "halueval_qa_rows_8000_up": halueval_examples(args.data_dir, "qa", 8000, None),
        "scifact_dev": scifact_examples(args.data_dir),
        "truthfulqa_2021_non_verbatim": [
            e for e in truthfulqa_examples(args.data_dir, "2021") if not is_verbatim(e)],
    }
    nli = create_view("nli")
    judge = create_view("judge", **json.loads(args.judge_options))
    results: dict[str, Any] = {}
    for name, examples in sets.items():
        chosen = sample(examples, args.pairs)
        truth = np.asarray([e.supported for e in chosen])
        nli_scores, nli_seconds = score(nli, chosen)
        judge_scores, judge_seconds = score(judge, chosen)
        results[name] = {
            "pairs": len(chosen), "supported": int(truth.sum()),
            "nli_auc": roc_auc(nli_scores, truth), "judge_auc": roc_auc(judge_scores, truth),
            **bootstrap(truth, nli_scores, judge_scores),
            "nli_seconds_per_claim": nli_seconds, "judge_seconds_per_claim": judge_seconds,
        }
        print(f"{name}: nli {results[name]['nli_auc']:.3f}, judge "
              f"{results[name]['judge_auc']:.3f} (gain {results[name]['gain_ci95']}), "
              f"{judge_seconds:.2f} s per claim for the judge, {nli_seconds:.3f} for nli",
              flush=True)
    write_report(
        args.output, "judge_quality",
        config={"pairs": args.pairs, "judge_options": json.loads(args.judge_options),
                "resamples": RESAMPLES, "seed": 0},
        sets=results,
    )


if __name__ == "__main__":
    main()
