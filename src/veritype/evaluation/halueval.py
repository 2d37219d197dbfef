"""HaluEval hallucination detection on qa, dialogue, summarization and general.

Every threshold, the learned aggregator and the chosen configuration are fitted on
calibration rows that no shipped model was trained on; every figure is read on other rows.
Which rows each model read (``TRAINED_ROWS``; ``configs/align.toml`` and
``veritype.train.aggregator`` are the recipes):

- ``align`` was fine-tuned on a seeded 30,000-pair sample of a pool holding qa rows 0–7999,
  dialogue rows 0–3999, summarization rows 0–1999 and perturbations of the qa knowledge and
  summarization documents of rows 0–1499. The sample kept pairs of 6,239 qa rows, 759 of them
  among rows 7000–7999, which earlier runs calibrated on.
- The default aggregator was fitted and chosen on dialogue rows 4000–6999.
- ``nli`` was trained on the NLI pool only; ``numeric`` and ``lexical`` are rules.

So dialogue and summarization calibrate on rows 7000–7999, which no model read, and are
evaluated on rows 8000–9999. For qa every row below 8000 was in align's training pool (which
of them the sample happened to leave out is one random draw, not a split), so rows
8000–9999 are split with the run's seed: 30% calibrate, 70% evaluate. general (human labels,
evaluation only) is split 30/70 by row the same way. Rows that share their evidence text
form one group: they fall on one side of a split and are resampled together.

Beside every configuration the report gives the trivial baselines with bootstrap intervals:
accept everything, the majority class of the calibration rows, and the verbatim substring
(accept when the bare output occurs in the evidence; on qa it matches ``align`` alone).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from veritype.errors import ConfigurationError
from veritype.evaluation import plots
from veritype.evaluation.binary import detection
from veritype.evaluation.data import (
    HALUEVAL_CALIBRATION_START,
    HALUEVAL_EVAL_START,
    HALUEVAL_TASKS,
    Example,
    halueval_examples,
    is_verbatim,
)
from veritype.evaluation.metrics import Bools, Bootstrap, Floats
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import (
    CALIBRATION_SHARE,
    EvalSettings,
    Evaluator,
    operating_point,
    split_by_group,
)

EVAL_ROWS = 2000
CALIBRATION_ROWS = 1000
# Rows [start, stop) of each task that a shipped model was trained or chosen on.
TRAINED_ROWS: dict[str, dict[str, tuple[int, int]]] = {
    "qa": {"align": (0, 8000)},
    "dialogue": {"align": (0, 4000), "default aggregator": (4000, 5500)},
    "summarization": {"align": (0, 2000), "default aggregator": (2000, 4600)},
}
TRIVIAL = ("accept everything", "majority class", "verbatim substring")


def calibration_rows(task: str) -> tuple[int, int] | None:
    """Rows 7000–7999 of ``task`` when no model was trained on any of them; None when the
    calibration rows must come from a split of the evaluation rows (always for general,
    which is evaluation only)."""
    start, stop = HALUEVAL_CALIBRATION_START, HALUEVAL_EVAL_START
    overlaps = any(first < stop and start < end for first, end in
                   TRAINED_ROWS.get(task, {}).values())
    return None if overlaps or task == "general" else (start, stop)


def calibration_source(task: str, seed: int) -> str:
    """Where ``task`` takes its calibration rows from, in words."""
    rows = calibration_rows(task)
    if rows is not None:
        return f"rows {rows[0]}–{rows[1] - 1} (no model was trained on them)"
    scope = "all rows" if task == "general" else f"rows {HALUEVAL_EVAL_START}–9999"
    return (f"{CALIBRATION_SHARE:.0%} of {scope} by evidence group, seed {seed} "
            f"(the other {1 - CALIBRATION_SHARE:.0%} evaluate)")


def _default_description() -> str:
    """The shipped default aggregator: the views its model reads and its decisive rules,
    read from the model itself."""
    from veritype.aggregate import create_aggregator, views_read

    aggregator = create_aggregator("default")
    reads = " and ".join(sorted(views_read(getattr(aggregator, "view_names", ()))))
    rules = [f"{rule.view} decisive from {rule.floor:g}"
             for rule in getattr(aggregator, "decisive", ())]
    return (f"the shipped default aggregator (reads {reads}"
            + "".join(f"; {rule}" for rule in rules)
            + "; fitted on HaluEval-QA rows 6000–6749 among other sources)")


def describe(task: str, name: str, views: Sequence[str]) -> str:
    """What a configuration of ``detection`` is, with the HaluEval rows it was trained on."""
    view = name.removeprefix("view:").removesuffix(" (own verdict)")
    if name == "vote":
        return f"vote of {', '.join(views)}"
    if name == "learned":
        return f"learned aggregator over {', '.join(views)}, fitted on this task's calibration rows"
    if name == "default":
        return _default_description()
    if view == "align":
        if task == "general":
            return "align (fine-tuned on HaluEval qa, dialogue, summarization rows; not general)"
        first, stop = TRAINED_ROWS[task]["align"]
        return f"align (fine-tuned on HaluEval-{task} rows {first}–{stop - 1})"
    if view == "nli":
        return "nli (NLI pool only; no HaluEval)"
    if view in ("numeric", "lexical"):
        return f"{view} (rules; nothing trained)"
    return view


def _evidence_groups(examples: Sequence[Example]) -> list[Example]:
    """The examples with rows that share their evidence text in one group (the first's)."""
    first: dict[tuple[str, ...], str] = {}
    return [replace(e, group=first.setdefault(e.evidence, e.group)) for e in examples]


def _first_rows(examples: Sequence[Example], keep: Bools, limit: int | None) -> Bools:
    """``keep`` narrowed to its first ``limit`` rows (all with None)."""
    if limit is None:
        return keep
    rows = [e.meta["row"] for e, k in zip(examples, keep, strict=True) if k]
    wanted = set(sorted(set(rows))[:limit])
    narrowed: Bools = keep & np.array([e.meta["row"] in wanted for e in examples])
    return narrowed


def task_examples(settings: EvalSettings, task: str) -> tuple[list[Example], Bools]:
    """The examples of ``task`` and which of them calibrate; with ``settings.limit`` the first
    ``limit`` rows of each side."""
    limit = settings.limit
    rows = calibration_rows(task)
    if rows is not None:
        calibration_part = halueval_examples(
            settings.data_dir, task, rows[0],
            rows[0] + (min(limit, CALIBRATION_ROWS) if limit else CALIBRATION_ROWS),
        )
        evaluation_part = halueval_examples(
            settings.data_dir, task, HALUEVAL_EVAL_START,
            HALUEVAL_EVAL_START + (min(limit, EVAL_ROWS) if limit else EVAL_ROWS),
        )
        examples = _evidence_groups(calibration_part + evaluation_part)
        calibration: Bools = np.arange(len(examples)) < len(calibration_part)
        return examples, calibration
    if task == "general":
        examples = _evidence_groups(halueval_examples(settings.data_dir, task, 0, limit))
        return examples, split_by_group([e.group for e in examples], settings.seed)
    examples = _evidence_groups(halueval_examples(
        settings.data_dir, task, HALUEVAL_EVAL_START, HALUEVAL_EVAL_START + EVAL_ROWS
    ))
    calibration = split_by_group([e.group for e in examples], settings.seed)
    chosen = _first_rows(examples, calibration, limit) | _first_rows(examples, ~calibration, limit)
    index = np.nonzero(chosen)[0]
    return [examples[i] for i in index], calibration[index]


def verbatim(example: Example) -> bool:
    """Whether the bare output (the answer without its question) occurs in the evidence."""
    return is_verbatim(replace(example, claim=str(example.meta.get("output", example.claim))))


def baselines(
    examples: Sequence[Example], calibration: Bools, bootstrap: Bootstrap
) -> dict[str, dict[str, Any]]:
    """The trivial detectors on the evaluation rows; the majority class is the calibration
    rows' (accept on a tie)."""
    truth: Bools = np.array([e.supported for e in examples])
    held = ~calibration
    accepts_majority = bool(np.mean(truth[calibration]) >= 0.5) if calibration.any() else True
    accepted = {
        "accept everything": np.ones(len(examples), dtype=bool),
        "majority class": np.full(len(examples), accepts_majority),
        "verbatim substring": np.array([verbatim(e) for e in examples], dtype=bool),
    }
    out: dict[str, dict[str, Any]] = {}
    for name, values in accepted.items():
        out[name] = operating_point(values[held].astype(np.float64), 1.0, truth[held], bootstrap)
    out["majority class"]["accepts"] = accepts_majority
    return out


def _trivial_description(name: str, majority_accepts: bool) -> str:
    if name == "majority class":
        verdict = "accepted" if majority_accepts else "rejected"
        return f"trivial: every output {verdict} (the calibration rows' majority)"
    if name == "verbatim substring":
        return "trivial: accepted when the bare output occurs in the evidence"
    return "trivial: every output accepted"


def _interval(point: dict[str, Any], metric: str) -> str:
    low, high = point["ci95"][metric]
    return f"{point[metric]:.3f} [{low:.3f}, {high:.3f}]"


def _row(task: str, name: str, description: str, point: dict[str, Any]) -> tuple[Any, ...]:
    return (task, name, description, _interval(point, "accuracy"),
            _interval(point, "balanced_accuracy"), point["precision"], point["recall"],
            point["fpr"])


def _headline(headline: dict[str, float | int | str], task: str, section: dict[str, Any]
              ) -> None:
    chosen = section["chosen"]
    headline[f"{task}_configuration"] = f"{chosen['configuration']} @ {chosen['point']}"
    headline[f"{task}_configuration_is"] = chosen["description"]
    points = {"": chosen, **{f"_baseline_{name.replace(' ', '_')}": section["baselines"][name]
                             for name in TRIVIAL}}
    for prefix, point in points.items():
        # A constant detector's balanced accuracy is 0.5 by definition: not worth a line.
        constant = prefix.endswith(("accept_everything", "majority_class"))
        for metric in ("accuracy",) if constant else ("accuracy", "balanced_accuracy"):
            headline[f"{task}{prefix}_{metric}"] = point[metric]
            headline[f"{task}{prefix}_{metric}_ci_low"] = point["ci95"][metric][0]
            headline[f"{task}{prefix}_{metric}_ci_high"] = point["ci95"][metric][1]
    headline[f"{task}_examples"] = section["evaluation_examples"]
    headline[f"{task}_calibration_examples"] = section["calibration_examples"]


class HaluEval(Evaluator):
    """HaluEval detection on ``settings.subsets`` (default: every task)."""

    name = "halueval"

    def run(self) -> RunResult:
        settings = self.settings
        started = time.perf_counter()
        tasks = settings.subsets or HALUEVAL_TASKS
        unknown = [t for t in tasks if t not in HALUEVAL_TASKS]
        if unknown:
            raise ConfigurationError(f"unknown HaluEval task(s) {unknown}; known: "
                                     f"{', '.join(HALUEVAL_TASKS)}")
        outcomes = {task: self._task(task) for task in tasks}
        sections = {task: outcome[0] for task, outcome in outcomes.items()}
        headline: dict[str, float | int | str] = {}
        rows = []
        accuracy_plot: dict[str, dict[str, float]] = {}
        timings: dict[str, float] = {}
        for task, section in sections.items():
            _headline(headline, task, section)
            accuracy_plot[task] = {}
            for name, points in section["configurations"].items():
                for label, point in points.items():
                    if label.startswith("cal:") or label in ("own verdict", "t=0.5"):
                        rows.append(_row(task, f"{name} @ {label}", section["descriptions"][name],
                                         point))
                    if label == "cal:balanced":
                        accuracy_plot[task][name] = point["balanced_accuracy"]
            for name in TRIVIAL:
                rows.append(_row(task, f"baseline: {name}", _trivial_description(
                    name, section["baselines"]["majority class"]["accepts"]),
                    section["baselines"][name]))
            for stage, seconds in section.pop("timings").items():
                timings[f"{task}:{stage}"] = seconds
        headline["seconds"] = round(time.perf_counter() - started, 2)
        calibration = {task: calibration_source(task, settings.seed) for task in tasks}
        tables = [Table(
            "HaluEval detection on evaluation rows (qa, dialogue, summarization: rows ≥ 8000; "
            "general: held-out 70%); thresholds, the learned aggregator and the chosen "
            "configuration from calibration rows no model was trained on",
            ("task", "configuration", "what it is", "accuracy [95% CI]", "bal. acc. [95% CI]",
             "precision", "recall", "FPR"),
            rows,
            note="Calibration rows: " + "; ".join(f"{t}: {c}" for t, c in calibration.items())
            + ". Chosen on calibration balanced accuracy: "
            + "; ".join(f"{t}: {headline[f'{t}_configuration']}" for t in tasks) + ".",
        )]
        result = self.result(
            config={"views": list(settings.views), "aggregator": settings.aggregator,
                    "taus": list(settings.taus), "tasks": list(tasks), "limit": settings.limit,
                    "engine": settings.engine, "seed": settings.seed,
                    "calibration_rows": calibration,
                    "trained_rows": {t: {m: f"{a}–{b - 1}" for m, (a, b) in models.items()}
                                     for t, models in TRAINED_ROWS.items()},
                    "data_dir": str(settings.data_dir)},
            headline=headline,
            sections={"tasks": sections},
            tables=tables,
            timings=timings,
        )
        result.plots = {"accuracy": lambda path: plots.accuracy_bars(path, accuracy_plot,
                                                                     "balanced accuracy")}
        for task, (_, task_scores, truth) in outcomes.items():
            thresholded = {k: v for k, v in task_scores.items() if "own verdict" not in k}
            result.plots[f"pr_curves_{task}"] = partial(plots.pr_curves, scores=thresholded,
                                                        truth=truth)
        return result

    def _task(self, task: str) -> tuple[dict[str, Any], dict[str, Floats], Bools]:
        settings = self.settings
        examples, calibration = task_examples(settings, task)
        table = self.score(examples, f"halueval {task}: verifying")
        section, scores, truth = detection(table, examples, calibration, settings)
        bootstrap = self.bootstrap([e.group for e in examples], calibration)
        section["baselines"] = baselines(examples, calibration, bootstrap)
        section["calibration_rows"] = calibration_source(task, settings.seed)
        section["descriptions"] = {name: describe(task, name, table.views)
                                   for name in section["configurations"]}
        chosen = section["chosen"]
        chosen["description"] = section["descriptions"][chosen["configuration"]]
        section["timings"] = dict(table.timings)
        section["distinct_pairs"] = table.pairs
        return section, scores, truth
