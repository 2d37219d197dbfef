"""HaluEval hallucination detection: qa, dialogue and summarization on rows ≥ 8000, with
thresholds and the learned aggregator fitted on training rows 7000–7999; general (human
labels, evaluation only) split 30/70 by row like TruthfulQA."""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import numpy as np

from veritype.evaluation import plots
from veritype.evaluation.binary import detection
from veritype.evaluation.data import (
    HALUEVAL_CALIBRATION_START,
    HALUEVAL_EVAL_START,
    HALUEVAL_TASKS,
    halueval_examples,
)
from veritype.evaluation.metrics import Bools, Floats
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import EvalSettings, register_benchmark, score, split_by_group

EVAL_ROWS = 2000
CALIBRATION_ROWS = 1000


def _task(settings: EvalSettings, task: str) -> tuple[dict[str, Any], dict[str, Floats], Bools]:
    limit = settings.limit
    if task == "general":
        examples = halueval_examples(settings.data_dir, task, 0, limit)
        calibration = split_by_group([e.group for e in examples], settings.seed)
    else:
        calibration_rows = min(limit, CALIBRATION_ROWS) if limit else CALIBRATION_ROWS
        calibration_part = halueval_examples(
            settings.data_dir, task, HALUEVAL_CALIBRATION_START,
            HALUEVAL_CALIBRATION_START + calibration_rows,
        )
        evaluation_part = halueval_examples(
            settings.data_dir, task, HALUEVAL_EVAL_START,
            HALUEVAL_EVAL_START + (min(limit, EVAL_ROWS) if limit else EVAL_ROWS),
        )
        examples = calibration_part + evaluation_part
        calibration = np.arange(len(examples)) < len(calibration_part)
    table = score(settings, examples, f"halueval {task}: verifying")
    section, scores, truth = detection(table, examples, calibration, settings)
    section["timings"] = dict(table.timings)
    section["distinct_pairs"] = table.pairs
    return section, scores, truth


def _row(task: str, name: str, label: str, point: dict[str, Any]) -> tuple[Any, ...]:
    ci = point["ci95"]["accuracy"]
    return (task, f"{name} @ {label}", f"{point['accuracy']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]",
            point["balanced_accuracy"], point["precision"], point["recall"], point["f1"],
            point["fpr"])


@register_benchmark("halueval")
def run(settings: EvalSettings) -> RunResult:
    started = time.perf_counter()
    tasks = settings.subsets or HALUEVAL_TASKS
    unknown = [t for t in tasks if t not in HALUEVAL_TASKS]
    if unknown:
        raise ValueError(f"unknown HaluEval task(s) {unknown}; known: {', '.join(HALUEVAL_TASKS)}")
    outcomes = {task: _task(settings, task) for task in tasks}
    sections = {task: outcome[0] for task, outcome in outcomes.items()}
    headline: dict[str, float | int | str] = {}
    rows = []
    accuracy_plot: dict[str, dict[str, float]] = {}
    timings: dict[str, float] = {}
    for task, section in sections.items():
        chosen = section["chosen"]
        headline[f"{task}_accuracy"] = chosen["accuracy"]
        headline[f"{task}_accuracy_ci_low"] = chosen["ci95"]["accuracy"][0]
        headline[f"{task}_accuracy_ci_high"] = chosen["ci95"]["accuracy"][1]
        headline[f"{task}_balanced_accuracy"] = chosen["balanced_accuracy"]
        headline[f"{task}_configuration"] = f"{chosen['configuration']} @ {chosen['point']}"
        headline[f"{task}_examples"] = section["evaluation_examples"]
        accuracy_plot[task] = {}
        for name, points in section["configurations"].items():
            for label, point in points.items():
                if label.startswith("cal:") or label in ("own verdict", "t=0.5"):
                    rows.append(_row(task, name, label, point))
                if label == "cal:balanced":
                    accuracy_plot[task][name] = point["balanced_accuracy"]
        for stage, seconds in section.pop("timings").items():
            timings[f"{task}:{stage}"] = seconds
    headline["seconds"] = round(time.perf_counter() - started, 2)
    tables = [Table(
        "HaluEval detection accuracy (rows ≥ 8000; general: held-out 70%), thresholds from "
        "calibration rows",
        ("task", "configuration", "accuracy [95% CI]", "bal. acc.", "precision", "recall", "F1",
         "FPR"),
        rows,
    )]
    result = RunResult(
        benchmark="halueval",
        config={"views": list(settings.views), "aggregator": settings.aggregator,
                "taus": list(settings.taus), "tasks": list(tasks), "limit": settings.limit,
                "engine": settings.engine, "calibration_rows": "7000-7999 (training rows)",
                "evaluation_rows": "8000-9999", "data_dir": str(settings.data_dir)},
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
