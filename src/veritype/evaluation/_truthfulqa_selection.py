"""TruthfulQA's protocols, the split-independent scores of a run, and the selection made on
the calibration questions alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from veritype.aggregate import (
    StagedAggregator,
    create_aggregator,
    default_covers,
    recommended_thresholds,
)
from veritype.errors import DataError
from veritype.evaluation.configurations import (
    LearnedFit,
    LearnedInputs,
    effective_scores,
    single_view_score,
    view_accepts,
    view_results,
    vote_score,
)
from veritype.evaluation.data import (
    TRUTHFULQA_FILES,
    TRUTHFULQA_REFERENCE_FILE,
    TRUTHFULQA_REFERENCE_QUESTIONS,
    Example,
    is_verbatim,
    truthfulqa_examples,
    truthfulqa_reference_examples,
)
from veritype.evaluation.metrics import (
    Bools,
    Floats,
    binary_metrics,
    threshold_for_f1,
    threshold_for_precision,
)
from veritype.evaluation.runner import (
    SPLIT_SEED,
    EvalSettings,
    held_out_bootstrap,
    operating_point,
    split_by_group,
)
from veritype.evaluation.scoring import ScoreTable

TARGET_PRECISION = 0.975
LEARNED_THRESHOLDS = (0.5, 0.8, 0.9, 0.95)
REFERENCE_SEED = 42
# int(0.3 * 817): the reference's calibration questions.
REFERENCE_CALIBRATION_QUESTIONS = 245
# The learned aggregators: without and with each view's 1 − contradiction as features.
LEARNED = (("learned", False), ("learned+contradiction", True))
VERBATIM = "verbatim substring"
VERBATIM_POINT = "claim ⊂ evidence"


def reference_split(groups: Sequence[str], seed: int) -> Bools:
    """True for the calibration questions: question ``q<i>`` calibrates when i is among the
    first 245 of ``numpy.random.seed(seed); numpy.random.permutation(817)``. A
    ``RandomState(seed)`` draws the same permutation without touching numpy's global state;
    under ``--limit`` every kept question stays on its side of the full split."""
    order = np.random.RandomState(seed).permutation(TRUTHFULQA_REFERENCE_QUESTIONS)
    calibration = set(order[:REFERENCE_CALIBRATION_QUESTIONS].tolist())
    mask: Bools = np.array([int(g.removeprefix("q")) in calibration for g in groups], dtype=bool)
    return mask


@dataclass(frozen=True, slots=True)
class Protocol:
    """Which file, which claims, which evidence, and how questions are split."""

    name: str
    file: str
    claims: str
    evidence: str
    fixed_seed: int
    split_rule: str
    load: Callable[[Path], list[Example]]
    split: Callable[[Sequence[str], int], Bools]
    with_2025: bool


PROTOCOLS = {
    "current": Protocol(
        name="current",
        file=TRUTHFULQA_FILES["2021"],
        claims="every non-empty ';' piece of the Correct (supported) and Incorrect "
        "(unsupported) Answers",
        evidence="the Best Answer",
        fixed_seed=SPLIT_SEED,
        split_rule="questions shuffled with random.Random({seed}), the first 30% calibrate",
        load=lambda data_dir: truthfulqa_examples(data_dir, "2021"),
        split=split_by_group,
        with_2025=True,
    ),
    "reference": Protocol(
        name="reference",
        file=TRUTHFULQA_REFERENCE_FILE,
        claims="every ';' piece of at least 3 characters (after stripping) of the Correct "
        "(supported) and Incorrect (unsupported) Answers",
        evidence='f"{question} {Best Answer}" (the reference says "question + Best Answer" '
        "and names no separator: one space)",
        fixed_seed=REFERENCE_SEED,
        split_rule="numpy.random.seed({seed}); numpy.random.permutation(817), the first 245 "
        "questions calibrate",
        load=truthfulqa_reference_examples,
        split=reference_split,
        with_2025=False,
    ),
}

class Point(NamedTuple):
    """An operating point: accept a claim when its score reaches ``threshold`` (None: never)."""

    scores: Floats
    threshold: float | None

    def accepts(self) -> Bools:
        if self.threshold is None:
            return np.zeros(len(self.scores), dtype=bool)
        accepted: Bools = self.scores >= self.threshold
        return accepted


@dataclass(frozen=True, slots=True)
class Scored:
    """What does not depend on the split, computed once for every split seed: the score
    table, the gold labels and groups, the effective scores of the configurations that
    learn nothing (``own``: each view's own verdict as 0/1), the shipped default's (τ, τ')
    when the views cover it, the learned aggregators' inputs, and, when the shipped default
    is staged and its costly view ran, its first stage's scores alone."""

    table: ScoreTable
    truth: Bools
    groups: tuple[str, ...]
    verbatim: Bools
    scores: dict[str, Floats]
    own: dict[str, Floats]
    default_thresholds: tuple[float, float] | None
    learned_inputs: dict[str, LearnedInputs]
    default_first_stage: Floats | None = None


def prepare(table: ScoreTable, examples: Sequence[Example]) -> Scored:
    """The split-independent part of a run from its score table (one row per example)."""
    views = list(table.views)
    verbatim = np.array([is_verbatim(e) for e in examples], dtype=bool)
    scores: dict[str, Floats] = {
        "no verification": np.ones(len(examples)),
        VERBATIM: verbatim.astype(np.float64),
    }
    own: dict[str, Floats] = {}
    for view in views:
        scores[f"view:{view}"] = single_view_score(table, view)
        own[f"view:{view}"] = view_accepts(table, view).astype(np.float64)
    scores["vote"] = vote_score(table, views)
    default_thresholds, first_stage = None, None
    if default_covers(views):
        shipped = create_aggregator("default")
        results = view_results(table, views)
        scores["default"] = effective_scores(shipped.aggregate_batch(results))
        default_thresholds = recommended_thresholds(shipped)
        if isinstance(shipped, StagedAggregator) and shipped.view in views:
            first_stage = effective_scores(shipped.first.aggregate_batch(results))
    learned_inputs = {name: LearnedInputs.of(table, views, contradiction_features=contradiction)
                      for name, contradiction in LEARNED}
    return Scored(table, np.array([e.supported for e in examples], dtype=bool),
                  tuple(e.group for e in examples), verbatim, scores, own, default_thresholds,
                  learned_inputs, first_stage)


@dataclass(frozen=True, slots=True)
class Selection:
    """What the calibration questions decided: every operating point (configuration →
    label → point), the learned fits and their scores, the headline point, and the point
    with the best calibration F1."""

    points: dict[str, dict[str, Point]]
    fits: dict[str, LearnedFit]
    learned: dict[str, Floats]
    chosen: tuple[str, str]
    best_f1: tuple[str, str]

    def thresholds(self) -> dict[str, dict[str, float | None]]:
        return {name: {label: point.threshold for label, point in points.items()}
                for name, points in self.points.items()}


def select(scored: Scored, calibration: Bools, settings: EvalSettings) -> Selection:
    """Every threshold, the learned aggregators and the headline configuration, from the
    calibration rows alone: no label outside ``calibration`` is read."""
    rows = np.nonzero(calibration)[0]
    truth = scored.truth[rows]
    if truth.all() or not truth.any():
        raise DataError(
            f"the {len(rows)} calibration claims are all of one label; fitting needs both "
            "(too few questions under --limit?)"
        )
    views = list(scored.table.views)

    def calibrated(values: Floats) -> dict[str, Point]:
        cal = values[rows]
        return {
            "cal:p95": Point(values, threshold_for_precision(cal, truth, 0.95, min_accepted=20)),
            "cal:p975": Point(values, threshold_for_precision(cal, truth, TARGET_PRECISION,
                                                              min_accepted=20)),
            "cal:f1": Point(values, threshold_for_f1(cal, truth)),
        }

    points: dict[str, dict[str, Point]] = {
        "no verification": {"accept all": Point(scored.scores["no verification"], 1.0)},
        VERBATIM: {VERBATIM_POINT: Point(scored.scores[VERBATIM], 1.0)},
    }
    for view in views:
        name = f"view:{view}"
        points[name] = {"own verdict": Point(scored.own[name], 1.0),
                        **calibrated(scored.scores[name])}
    points["vote"] = {f"τ={tau:g}": Point(scored.scores["vote"], tau) for tau in settings.taus}
    if scored.default_thresholds is not None:
        tau = scored.default_thresholds[0]
        points["default"] = {f"shipped τ={tau:.3f}": Point(scored.scores["default"], tau),
                             **calibrated(scored.scores["default"])}
    fits: dict[str, LearnedFit] = {}
    learned: dict[str, Floats] = {}
    for name, inputs in scored.learned_inputs.items():
        fits[name] = inputs.fit_rows(rows, truth, [scored.groups[i] for i in rows])
        learned[name] = inputs.scores(fits[name])
        points[name] = {f"t={t:g}": Point(learned[name], t) for t in LEARNED_THRESHOLDS}
        points[name].update(calibrated(learned[name]))

    def on_calibration(point: Point) -> dict[str, float]:
        return binary_metrics(point.accepts()[rows], truth)

    best_f1 = max(((name, "cal:f1") for name, labels in points.items() if "cal:f1" in labels),
                  key=lambda key: on_calibration(points[key[0]][key[1]])["f1"])
    return Selection(points, fits, learned, _choose(points, on_calibration, settings.aggregator),
                     best_f1)


def _choose(points: dict[str, dict[str, Point]],
            on_calibration: Callable[[Point], dict[str, float]], family: str) -> tuple[str, str]:
    """The headline (configuration, operating point) from calibration figures: for the vote
    the smallest τ reaching 0.975 calibration precision (the largest τ when none does); for
    the learned family whichever learned aggregator's calibrated P ≥ 0.975 point has the most
    calibration recall."""
    if family == "vote":
        by_tau = sorted(points["vote"], key=lambda label: points["vote"][label].threshold or 0.0)
        reaching = [label for label in by_tau
                    if on_calibration(points["vote"][label])["precision"] >= TARGET_PRECISION]
        return "vote", reaching[0] if reaching else by_tau[-1]
    candidates = [name for name in ("learned", "learned+contradiction")
                  if points[name]["cal:p975"].threshold is not None]
    best = max(candidates, default="learned",
               key=lambda name: on_calibration(points[name]["cal:p975"])["recall"])
    return best, "cal:p975"


class Split:
    """The calibration and held-out rows of one split, with the held-out bootstrap."""

    def __init__(self, scored: Scored, calibration: Bools, seed: int, resamples: int) -> None:
        self.groups = scored.groups
        self.truth = scored.truth
        self.calibration = calibration
        self.held = ~calibration
        self.bootstrap = held_out_bootstrap(self.groups, calibration, resamples, seed)

    def point(self, point: Point, ci: bool = True) -> dict[str, Any]:
        return operating_point(point.scores[self.held], point.threshold, self.truth[self.held],
                               self.bootstrap if ci else None)

    def questions(self, calibration: bool) -> int:
        side = self.calibration if calibration else self.held
        return len({g for g, s in zip(self.groups, side, strict=True) if s})
