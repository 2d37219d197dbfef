"""The default's judge stage in both directions, measured on training-side claims.

The judge is asked only about claims the default's encoders leave Uncertain. This takes
such claims from the calibrated aggregator's fitting sources (``veritype.train.
fitting_data``: HaluEval dialogue, COVID-Fact, TruthfulQA calibration questions,
perturbations), as many from each source, asks the judge once (cached in ``--work``), and
reports, with every source weighing the same:

- the lift: the share of the lifted claims (second stage ≥ τ) that are supported, and the
  share of the supported borderline claims lifted;
- the sink: for each P(yes) cut, the share of claims at or below it that are not supported,
  and how many; the highest cut at which that share is at least 0.90 (the precision the
  default's τ' was chosen for) on at least 20 claims is the sink the shipped default uses
  (``--write`` puts it into the shipped ``aggregator.json``).

    python benchmarks/judge_stage.py [--data-dir ../shared/data] [--work DIR] [--write]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from _common import ROOT, add_data_dir, write_report

from veritype.aggregate import DEFAULT_AGGREGATOR, StagedAggregator, load_fitted
from veritype.evaluation.configurations import view_results
from veritype.evaluation.metrics import roc_auc
from veritype.evaluation.scoring import LocalEngine, score_examples
from veritype.train._score_cache import cached_scores
from veritype.train.aggregator import VIEWS as ENCODERS
from veritype.train.aggregator import rescored
from veritype.train.fitting_data import fitting_examples
from veritype.train.judge_head import borderline, borderline_sample, judged_scores
from veritype.verdicts import Verdict, ViewResult

# The precision the default's own τ' was chosen for: a sunk claim is Unsupported as one at
# or below τ' is, so it must be right as often.
SINK_PRECISION = 0.90
CUTS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)


def balanced(hits: np.ndarray, where: np.ndarray, sources: np.ndarray) -> float | None:
    shares = [float(hits[where & (sources == s)].mean()) for s in np.unique(sources)
              if np.any(where & (sources == s))]
    return float(np.mean(shares)) if shares else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_data_dir(parser)
    parser.add_argument("--work", type=Path, default=Path("runs/judge_stage"))
    parser.add_argument("--per-source", type=int, default=100)
    parser.add_argument("--write", action="store_true",
                        help="set the chosen sink in the shipped default aggregator")
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "judge_stage.json")
    args = parser.parse_args()
    shipped = load_fitted(DEFAULT_AGGREGATOR)
    if not isinstance(shipped, StagedAggregator):
        raise SystemExit("the shipped default has no judge stage")
    examples = fitting_examples(args.data_dir)
    table = rescored(cached_scores(args.work / "encoders.npz", examples,
                                   lambda new: score_examples(LocalEngine(ENCODERS), new)),
                     examples)
    assert shipped.first.thresholds is not None
    tau, tau_low = shipped.first.thresholds
    uncertain = borderline(shipped.first.aggregate_batch(view_results(table, list(ENCODERS))),
                           shipped.first.thresholds)
    sources = np.array([e.meta["source"] for e in examples])
    supported = np.array([e.supported for e in examples])
    rows = borderline_sample(examples, uncertain, sources,
                             args.per_source * len(np.unique(sources)), seed=0)
    judged = judged_scores(args.work / "judge.npz", [examples[row] for row in rows], None)
    p_yes = judged.score[:, judged.column("judge")]
    truth, groups = supported[rows], sources[rows]
    second = np.array(shipped.second.scores(view_results(judged, ["judge"])))
    lifted = second >= tau
    cuts = []
    chosen = None
    for cut in CUTS:
        below = p_yes <= cut
        precision = balanced(~truth, below, groups)
        cuts.append({"p_yes_at_most": cut, "claims": int(below.sum()),
                     "share": float(below.mean()), "not_supported_balanced": precision,
                     "not_supported_pooled": float((~truth[below]).mean()) if below.any()
                     else None})
        if precision is not None and precision >= SINK_PRECISION and below.sum() >= 20:
            chosen = cut
    sink = None
    if chosen is not None:
        # The second stage's score at that P(yes): what the aggregator compares.
        sink = float(shipped.second.scores([[_judge(chosen)]])[0])
        sink = min(sink, math.nextafter(tau_low, 0.0))
    report = {
        "borderline_band": [tau_low, tau],
        "borderline_share": float(uncertain.mean()),
        "sample": {str(s): int(np.sum(groups == s)) for s in np.unique(groups)},
        "supported_share_of_sample": float(truth.mean()),
        "lift": {"lifted": int(lifted.sum()),
                 "supported_among_lifted_balanced": balanced(truth, lifted, groups),
                 "supported_lifted_balanced": balanced(lifted, truth, groups)},
        "sink_cuts": cuts,
        "chosen_p_yes_cut": chosen,
        "sink_score": sink,
        "per_source_auc": {str(s): _auc(p_yes[groups == s], truth[groups == s])
                           for s in np.unique(groups)},
    }
    if args.write and sink is not None:
        StagedAggregator(shipped.first, shipped.second, shipped.view, sink).save(
            DEFAULT_AGGREGATOR)
    write_report(args.output, "judge_stage", **report)


def _judge(p_yes: float) -> ViewResult:
    return ViewResult("judge", Verdict.UNKNOWN, p_yes)


def _auc(scores: np.ndarray, truth: np.ndarray) -> float | None:
    return None if truth.all() or not truth.any() else float(roc_auc(scores, truth))


if __name__ == "__main__":
    main()
