"""TruthfulQA claim verification under two protocols.

``current`` (the default): the later 2021 file (``TruthfulQA_v2021_817.csv``, with the
2025 release beside it); claims = every non-empty ';' piece of the Correct Answers
(supported) and Incorrect Answers (unsupported); evidence = the Best Answer; questions
shuffled with ``random.Random(seed)`` (2024), the first 30% calibrate.

``reference``: the ETG reference's protocol, exactly: the 2021-09-10 file
(``TruthfulQA_v2021_013686a.csv``); pieces of at least 3 characters (5,865 claims);
evidence = question + Best Answer; the first 245 questions of ``numpy.random.seed(42);
numpy.random.permutation(817)`` calibrate, the other 572 (4,168 claims) are held out.

Under both, ``select`` makes every choice (thresholds, the learned aggregators, the headline
configuration) from the calibration questions' labels alone, and every figure is measured on
the held-out rest. For the spread over splits the same selection is redone on the
calibration part of each of ``seeds`` further splits; view scores do not depend on the split,
so they are computed once and shared.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np

from veritype.errors import ConfigurationError
from veritype.evaluation import plots
from veritype.evaluation._truthfulqa_sections import section, seed_spread
from veritype.evaluation._truthfulqa_selection import (
    LEARNED,
    LEARNED_THRESHOLDS,
    PROTOCOLS,
    TARGET_PRECISION,
    VERBATIM,
    Protocol,
    Scored,
    Selection,
    Split,
    prepare,
    reference_split,
    select,
)
from veritype.evaluation._truthfulqa_tables import (
    PUBLISHED,
    REFERENCE_CITATION,
    REFERENCE_PRECISION,
    REFERENCE_RECALL,
    comparison,
    count_note,
    split_text,
    tables,
)
from veritype.evaluation.configurations import vote_mass
from veritype.evaluation.data import Example, truthfulqa_examples
from veritype.evaluation.metrics import Bools
from veritype.evaluation.report import RunResult
from veritype.evaluation.runner import (
    CALIBRATION_SHARE,
    EvalSettings,
    Evaluator,
    IngestProgressFactory,
    ProgressFactory,
    no_progress,
)
from veritype.evaluation.scoring import ScoringEngine

DEFAULT_SEEDS = 20


def _limit(examples: list[Example], limit: int | None) -> list[Example]:
    """The examples of the first ``limit`` questions."""
    if limit is None:
        return examples
    keep = set(list(dict.fromkeys(e.group for e in examples))[:limit])
    return [e for e in examples if e.group in keep]


class TruthfulQA(Evaluator):
    """The TruthfulQA benchmark under ``protocol`` (``current`` or ``reference``) with
    ``settings.seed`` as its split seed (the command line defaults it to the protocol's,
    2024 or 42), the selection redone on split seeds ``0 … seeds-1`` for the spread."""

    name = "truthfulqa"

    def __init__(
        self,
        settings: EvalSettings,
        *,
        protocol: str = "current",
        seeds: int = DEFAULT_SEEDS,
        progress: ProgressFactory = no_progress,
        ingest_progress: IngestProgressFactory = nullcontext,
        engine: ScoringEngine | None = None,
    ) -> None:
        super().__init__(settings, progress=progress, ingest_progress=ingest_progress,
                         engine=engine)
        if protocol not in PROTOCOLS:
            raise ConfigurationError(f"unknown TruthfulQA protocol {protocol!r}; known: "
                                     f"{', '.join(PROTOCOLS)}")
        if seeds < 0:
            raise ConfigurationError(f"--seeds must be >= 0, got {seeds}")
        self.protocol = PROTOCOLS[protocol]
        self.seeds = seeds

    def calibration_split(self, groups: Sequence[str], seed: int | None = None) -> Bools:
        """The protocol's split rule (the shared one under ``current``)."""
        return self.protocol.split(groups, self.settings.seed if seed is None else seed)

    def run(self) -> RunResult:
        settings, spec, seed = self.settings, self.protocol, self.settings.seed
        started = time.perf_counter()
        examples = _limit(spec.load(settings.data_dir), settings.limit)
        recent = (_limit(truthfulqa_examples(settings.data_dir, "2025"), settings.limit)
                  if spec.with_2025 else [])
        loaded = time.perf_counter()
        # One scoring pass over both releases: their shared pairs are scored once.
        table = self.score(examples + recent, f"truthfulqa ({spec.name}): verifying")
        scored_at = time.perf_counter()
        scored = prepare(table.select(np.arange(len(examples))), examples)
        selection, split = self._select(scored)
        main = section(scored, selection, split, settings, full=True)
        reported = time.perf_counter()
        spread = seed_spread(scored, spec, range(self.seeds), settings)
        spread_done = time.perf_counter()
        sections: dict[str, Any] = {
            "protocol": {"name": spec.name, "file": spec.file, "claims": spec.claims,
                         "evidence": spec.evidence, "split": split_text(spec, seed, split),
                         "split_seed": seed},
            "release_2021": main,
            "seed_spread": spread,
            "published": {k: {"precision": p, "recall": r} for k, (p, r) in PUBLISHED.items()},
        }
        if recent:
            recent_scored = prepare(table.select(np.arange(len(examples), len(table.score))),
                                    recent)
            sections["release_2025"] = section(recent_scored, *self._select(recent_scored),
                                               settings, full=False)
        headline = _headline(spec, seed, split, table.pairs, len(examples), sections)
        headline.update(_view_points(main, table.views))
        if "release_2025" in sections:
            recent_chosen = sections["release_2025"]["chosen"]
            headline["release_2025_claims"] = sections["release_2025"]["claims"]
            headline["release_2025_precision"] = recent_chosen["precision"]
            headline["release_2025_recall"] = recent_chosen["recall"]
        headline["seconds"] = round(time.perf_counter() - started, 2)
        result = self.result(
            config={
                "protocol": spec.name, "file": spec.file, "evidence": spec.evidence,
                "claims": spec.claims, "views": list(table.views),
                "aggregator": settings.aggregator, "taus": list(settings.taus),
                "learned_thresholds": list(LEARNED_THRESHOLDS), "engine": settings.engine,
                "split_seed": seed, "split_rule": spec.split_rule.format(seed=seed),
                "calibration_share": CALIBRATION_SHARE,
                "seed_spread_seeds": list(range(self.seeds)),
                "bootstrap_resamples": settings.resamples, "limit": settings.limit,
                "data_dir": str(settings.data_dir), "target_precision": TARGET_PRECISION,
            },
            headline=headline,
            sections=sections,
            tables=[comparison(spec, main, spread),
                    *tables(spec, main, spread, sections,
                            count_note(spec, examples, settings.limit))],
            timings={"load": loaded - started, **table.timings, "reports": reported - scored_at,
                     "seed_spread": spread_done - reported},
        )
        _attach(result, scored, selection, split, examples, main)
        return result

    def _select(self, scored: Scored) -> tuple[Selection, Split]:
        """The selection on the run's calibration questions, and its split."""
        calibration = self.calibration_split(scored.groups)
        return (select(scored, calibration, self.settings),
                Split(scored, calibration, self.settings.seed, self.settings.resamples))


def _headline(spec: Protocol, seed: int, split: Split, pairs: int, claims: int,
              sections: dict[str, Any]) -> dict[str, float | int | str]:
    """The headline of the fixed split, the seed spread and the non-verbatim claims."""
    main, spread = sections["release_2021"], sections["seed_spread"]
    chosen = main["chosen"]
    headline: dict[str, float | int | str] = {
        "protocol": spec.name,
        "claims": claims,
        "split": split_text(spec, seed, split),
        "distinct_pairs": pairs,
        "held_out_claims": main["held_out_claims"],
        "configuration": f"{chosen['configuration']} @ {chosen['point']}",
        "precision": chosen["precision"],
        "precision_ci_low": chosen["ci95"]["precision"][0],
        "precision_ci_high": chosen["ci95"]["precision"][1],
        "recall": chosen["recall"],
        "recall_ci_low": chosen["ci95"]["recall"][0],
        "recall_ci_high": chosen["ci95"]["recall"][1],
        "f1": chosen["f1"],
        "fpr": chosen["fpr"],
        "hallucination_rate": chosen["hallucination_rate"],
        "reference": REFERENCE_CITATION,
        "reference_precision": REFERENCE_PRECISION,
        "reference_recall": REFERENCE_RECALL,
    }
    if spread["runs"]:
        headline["seeds"] = len(spread["runs"])
        for metric in ("precision", "recall"):
            for stat, value in spread["summary"][metric].items():
                headline[f"seed_{metric}_{stat}"] = value
    headline["no_verification_hallucination_rate"] = (
        main["configurations"]["no verification"]["accept all"]["hallucination_rate"])
    best = main["calibration_best_f1"]
    headline["calibration_best_f1_configuration"] = f"{best['configuration']} @ {best['point']}"
    headline["calibration_best_f1_held_out_f1"] = best["f1"]
    for key, row in zip(("verbatim_baseline", "chosen", "default"), main["non_verbatim"],
                        strict=False):
        for metric in ("precision", "recall", "non_verbatim_precision", "non_verbatim_recall"):
            if row[metric] is not None:
                headline[f"{key}_{metric}"] = row[metric]
    return headline


def _view_points(main: dict[str, Any], views: Sequence[str]) -> dict[str, float]:
    """Each view's held-out precision and recall at its calibrated P ≥ 0.95 threshold and
    its ROC-AUC on the held-out non-verbatim claims; with the judge, the learned aggregator's
    non-verbatim figures at P ≥ 0.95 without and with it."""
    points: dict[str, float] = {}
    for view in views:
        p95 = main["configurations"][f"view:{view}"]["cal:p95"]
        points[f"{view}_precision_at_cal_p95"] = p95["precision"]
        points[f"{view}_recall_at_cal_p95"] = p95["recall"]
        points[f"{view}_non_verbatim_roc_auc"] = main["non_verbatim_roc_auc"][view]
    gain = main.get("judge_gain")
    if gain is not None:
        for name, key in (("encoders", "judge_off"), ("encoders+judge", "judge_on")):
            for subset in ("held_out", "non_verbatim", "borderline"):
                for at, suffix in (("at_cal_p95", "at_cal_p95"),
                                   ("at_cal_p95_non_verbatim", "at_non_verbatim_cal_p95"),
                                   ("shipped_default", "of_shipped_default")):
                    point = gain.get(subset, {}).get(at, {}).get(name)
                    if point is not None:
                        points[f"{key}_{subset}_precision_{suffix}"] = point["precision"]
                        points[f"{key}_{subset}_recall_{suffix}"] = point["recall"]
    return points


def _attach(result: RunResult, scored: Scored, selection: Selection, split: Split,
            examples: Sequence[Example], main: dict[str, Any]) -> None:
    """The plots and the per-claim examples of the fixed split."""
    name, label = selection.chosen
    chosen = selection.points[name][label]
    truth = split.truth[split.held]
    held_scores = {k: v[split.held] for k, v in {**scored.scores, **selection.learned}.items()
                   if k != "no verification"}
    result.plots = {
        "pr_curves": lambda path: plots.pr_curves(path, held_scores, truth, PUBLISHED),
        "bound_scaling": lambda path: plots.bound_scaling(path, main["bound_vs_measured"]),
        "support_mass": lambda path: plots.support_mass(
            path, vote_mass(scored.table, list(scored.table.views))[split.held],
            chosen.scores[split.held], truth, name),
    }
    accepted = chosen.accepts()
    result.examples = [
        {"id": e.example_id, "group": e.group, "question": e.meta.get("question", ""),
         "claim": e.claim, "evidence": list(e.evidence), "label": e.label,
         "split": "calibration" if split.calibration[i] else "held_out",
         "verbatim": bool(scored.verbatim[i]), "score": float(chosen.scores[i]),
         "verified": bool(accepted[i])}
        for i, e in enumerate(examples)
    ]


__all__ = [
    "DEFAULT_SEEDS",
    "LEARNED",
    "PROTOCOLS",
    "VERBATIM",
    "Protocol",
    "Scored",
    "Selection",
    "Split",
    "TruthfulQA",
    "prepare",
    "reference_split",
    "section",
    "seed_spread",
    "select",
]
