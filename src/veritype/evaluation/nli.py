"""Every NLI evaluation set: premise as evidence, hypothesis as claim.

The eval sets may not be used for fitting anything, so each configuration runs at its own
fixed operating point: a view's verdict (entailed → entailment, contradicted →
contradiction, otherwise neutral), the vote at each τ (Verified → entailment, a strong
view's contradiction → contradiction), and the shipped default aggregator at its own τ
(Verified → entailment, marked contradicted → contradiction). 2-way sets score entailment
against the rest.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from veritype.errors import ConfigurationError
from veritype.evaluation import plots
from veritype.evaluation.configurations import contradicted, default_aggregates, vote_mass
from veritype.evaluation.data import nli_eval_sets, nli_examples
from veritype.evaluation.metrics import Bootstrap, binary_metrics
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import Evaluator
from veritype.evaluation.scoring import CONTRADICTED, ENTAILED, ScoreTable

TWO_WAY = "not_entailment"


def _labels_of_view(table: ScoreTable, view: str) -> np.ndarray:
    verdict = table.verdict[:, table.column(view)]
    return np.where(verdict == ENTAILED, "entailment",
                    np.where(verdict == CONTRADICTED, "contradiction", "neutral"))


def _labels_of_vote(table: ScoreTable, tau: float) -> np.ndarray:
    views = list(table.views)
    verified = vote_mass(table, views) >= tau - 1e-9
    against = contradicted(table, views)
    return np.where(against, "contradiction", np.where(verified, "entailment", "neutral"))


def _labels_of_default(table: ScoreTable) -> np.ndarray | None:
    found = default_aggregates(table)
    if found is None:
        return None
    aggregates, tau = found
    return np.array(["contradiction" if a.contradicted
                     else "entailment" if a.score >= tau else "neutral" for a in aggregates])


def _accuracy(predicted: np.ndarray, gold: np.ndarray, bootstrap: Bootstrap) -> dict[str, Any]:
    if TWO_WAY in set(gold.tolist()):
        predicted = np.where(predicted == "entailment", "entailment", TWO_WAY)
    correct = predicted == gold
    entailment = binary_metrics(predicted == "entailment", gold == "entailment")
    low, high = bootstrap.interval_of(
        lambda w: float(np.sum(w * correct) / max(np.sum(w), 1.0))
    )
    return {"accuracy": float(np.mean(correct)), "ci95": [low, high],
            "entailment_precision": entailment["precision"],
            "entailment_recall": entailment["recall"]}


class NLI(Evaluator):
    """Every NLI evaluation set (``settings.subsets``: some of them) at fixed operating
    points."""

    name = "nli"

    def run(self) -> RunResult:
        settings = self.settings
        started = time.perf_counter()
        available = nli_eval_sets(settings.data_dir)
        names = list(settings.subsets) if settings.subsets else available
        unknown = [n for n in names if n not in available]
        if unknown:
            raise ConfigurationError(
                f"unknown NLI eval set(s) {unknown}; known: {', '.join(available)}")
        per_set = {name: nli_examples(settings.data_dir, name, settings.limit) for name in names}
        everything = [e for examples in per_set.values() for e in examples]
        table = self.score(everything, "nli: verifying")
        results: dict[str, Any] = {}
        offset = 0
        for name, examples in per_set.items():
            part = table.select(np.arange(offset, offset + len(examples)))
            offset += len(examples)
            gold = np.array([e.label for e in examples])
            bootstrap = Bootstrap.draw([e.group for e in examples], min(settings.resamples, 500),
                                       settings.seed)
            configurations = {f"view:{v}": _labels_of_view(part, v) for v in part.views}
            configurations.update(
                {f"vote τ={tau:g}": _labels_of_vote(part, tau) for tau in settings.taus}
            )
            if (default := _labels_of_default(part)) is not None:
                configurations["default"] = default
            results[name] = {
                "pairs": len(examples),
                "two_way": TWO_WAY in set(gold.tolist()),
                "accuracy": {c: _accuracy(p, gold, bootstrap) for c, p in configurations.items()},
            }
        configs = list(next(iter(results.values()))["accuracy"]) if results else []
        headline: dict[str, float | int | str] = {"sets": len(results), "pairs": len(everything)}
        for config in configs:
            values = [r["accuracy"][config]["accuracy"] for r in results.values()]
            headline[f"mean_accuracy {config}"] = float(np.mean(values))
        headline["seconds"] = round(time.perf_counter() - started, 2)
        tables = [Table(
            "NLI eval sets: accuracy per configuration (3-way; 2-way sets entailment vs rest)",
            ("set", "pairs", *configs),
            [(name, r["pairs"], *(r["accuracy"][c]["accuracy"] for c in configs))
             for name, r in results.items()],
        )]
        bars = {name: {c: r["accuracy"][c]["accuracy"] for c in configs if c.startswith("view:")}
                for name, r in results.items()}
        result = self.result(
            config={"views": list(settings.views), "taus": list(settings.taus), "sets": names,
                    "limit": settings.limit, "engine": settings.engine,
                    "data_dir": str(settings.data_dir)},
            headline=headline,
            sections={"sets": results},
            tables=tables,
            timings=dict(table.timings),
        )
        result.plots = {"accuracy": lambda path: plots.accuracy_bars(path, bars, "accuracy")}
        return result
