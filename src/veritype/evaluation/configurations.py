"""Verifier configurations over a score table: single views, the vote and the learned aggregator.

Each configuration gives every example an *effective score*: its support score, or 0 when
a strong view of the configuration found the claim contradicted (typing makes such a claim
Unsupported whatever its score). A claim is accepted (Verified) at threshold t when its
effective score is ≥ t.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from veritype.aggregate import (
    Aggregate,
    LearnedAggregator,
    create_aggregator,
    default_covers,
    recommended_thresholds,
)
from veritype.aggregate._learned import feature_matrix, newton, sigmoid
from veritype.errors import DataError
from veritype.evaluation.metrics import Bools, Floats
from veritype.evaluation.scoring import ABSTAINED, CONTRADICTED, ENTAILED, VERDICTS, ScoreTable
from veritype.views import ViewResult

# A derived feature: the view's 1 − contradiction score, named after the view.
CONTRADICTION_SUFFIX = ".not_contradicted"
L2_GRID = (1e-4, 1e-3, 1e-2, 1e-1)


def contradicted(table: ScoreTable, views: Sequence[str]) -> Bools:
    """Whether any strong view among ``views`` said contradicted."""
    columns = [table.column(v) for v in views if v in table.strong]
    if not columns:
        return np.zeros(len(table.score), dtype=bool)
    result: Bools = np.any(table.verdict[:, columns] == CONTRADICTED, axis=1)
    return result


def vote_mass(table: ScoreTable, views: Sequence[str]) -> Floats:
    """m(c): the share of the voting (non-abstaining) views among ``views`` that entailed."""
    verdicts = table.verdict[:, [table.column(v) for v in views]]
    voting = np.sum(verdicts != ABSTAINED, axis=1)
    entailed = np.sum(verdicts == ENTAILED, axis=1)
    mass: Floats = np.where(voting > 0, entailed / np.maximum(voting, 1), 0.0)
    return mass


def vote_score(table: ScoreTable, views: Sequence[str]) -> Floats:
    """The vote's effective score: the mass, or 0 when contradicted."""
    score: Floats = np.where(contradicted(table, views), 0.0, vote_mass(table, views))
    return score


def single_view_score(table: ScoreTable, view: str) -> Floats:
    """One view alone: its raw score, or 0 when it said contradicted or abstained."""
    column = table.column(view)
    verdict = table.verdict[:, column]
    score: Floats = np.where(
        (verdict == CONTRADICTED) | (verdict == ABSTAINED), 0.0, table.score[:, column]
    )
    return score


def view_accepts(table: ScoreTable, view: str) -> Bools:
    """The view's own verdict: entailed."""
    accepted: Bools = table.verdict[:, table.column(view)] == ENTAILED
    return accepted


def view_results(
    table: ScoreTable, views: Sequence[str], *, contradiction_features: bool = False
) -> list[list[ViewResult]]:
    """The table's rows as the ``ViewResult`` lists the aggregators read; with
    ``contradiction_features`` each view also yields ``<view>.not_contradicted``."""
    columns = [(view, table.column(view)) for view in views]
    rows: list[list[ViewResult]] = []
    for i in range(len(table.score)):
        results = []
        for view, column in columns:
            verdict = VERDICTS[int(table.verdict[i, column])]
            score = float(table.score[i, column])
            contradiction = float(table.contradiction[i, column])
            results.append(ViewResult(view, verdict, score, contradiction))
            if contradiction_features:
                results.append(
                    ViewResult(view + CONTRADICTION_SUFFIX, verdict, 1.0 - contradiction)
                )
        rows.append(results)
    return rows


def default_aggregates(table: ScoreTable) -> tuple[list[Aggregate], float] | None:
    """The shipped default aggregator's aggregate of each row and its own τ; None when the
    table lacks a view it reads or one its decisive rules read."""
    aggregator = create_aggregator("default")
    rules = {rule.view for rule in getattr(aggregator, "decisive", ())}
    if not default_covers(table.views) or not rules <= set(table.views):
        return None
    aggregates = aggregator.aggregate_batch(view_results(table, list(table.views)))
    return aggregates, recommended_thresholds(aggregator)[0]


def default_score(table: ScoreTable) -> tuple[Floats, float] | None:
    """The shipped default aggregator's P(supported) of each row (0 where it marks the claim
    contradicted, so no threshold accepts it) and its own τ (see :func:`default_aggregates`)."""
    found = default_aggregates(table)
    if found is None:
        return None
    aggregates, tau = found
    return effective_scores(aggregates), tau


def effective_scores(aggregates: Sequence[Aggregate]) -> Floats:
    """The score typing compares with τ: 0 where the claim is marked contradicted."""
    return np.array([0.0 if a.contradicted else a.score for a in aggregates])


def feature_names(views: Sequence[str], contradiction_features: bool) -> list[str]:
    names = list(views)
    if contradiction_features:
        names += [view + CONTRADICTION_SUFFIX for view in views]
    return names


@dataclass(frozen=True, slots=True)
class LearnedFit:
    """A learned aggregator fitted on the calibration rows, with the chosen penalty."""

    model: LearnedAggregator
    l2: float
    contradiction_features: bool
    views: tuple[str, ...]

    def scores(self, table: ScoreTable) -> Floats:
        """The effective score of every row: P(supported), or 0 when contradicted."""
        results = view_results(table, self.views,
                               contradiction_features=self.contradiction_features)
        aggregates = self.model.aggregate_batch(results)
        return np.array([0.0 if a.contradicted else a.score for a in aggregates])


def _group_folds(groups: Sequence[str], folds: int, seed: int) -> npt.NDArray[np.intp]:
    names = sorted(set(groups))
    order = np.random.default_rng(seed).permutation(len(names))
    fold_of = {names[i]: k % folds for k, i in enumerate(order)}
    return np.array([fold_of[g] for g in groups], dtype=np.intp)


def _log_loss(p: Floats, y: Bools) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(np.where(y, np.log(p), np.log1p(-p))))


def fit_learned(
    table: ScoreTable,
    truth: Bools,
    groups: Sequence[str],
    views: Sequence[str],
    *,
    contradiction_features: bool = False,
    l2: float | None = None,
    seed: int = 0,
) -> LearnedFit:
    """Fit on all rows of ``table`` (the calibration split); without ``l2`` the penalty is
    chosen from ``L2_GRID`` by 5-fold cross-validated log-loss over groups."""
    inputs = LearnedInputs.of(table, views, contradiction_features=contradiction_features)
    return inputs.fit_rows(np.arange(len(truth)), truth, groups, l2=l2, seed=seed)


@dataclass(frozen=True, slots=True)
class LearnedInputs:
    """What a learned aggregator reads of every row of a score table, computed once for
    many fits on subsets of the rows (each split seed's calibration questions): the feature
    matrix, and whether the veto fires (``vetoed``). Neither depends on the fitted weights.
    Features and solver are ``LearnedAggregator.fit``'s own, so at a given penalty
    ``fit_rows`` gives the model ``LearnedAggregator.fit`` gives on the same rows."""

    views: tuple[str, ...]
    names: tuple[str, ...]
    strong: tuple[str, ...]
    contradiction_features: bool
    features: Floats
    vetoed: Bools

    @classmethod
    def of(cls, table: ScoreTable, views: Sequence[str], *,
           contradiction_features: bool = False) -> LearnedInputs:
        results = view_results(table, views, contradiction_features=contradiction_features)
        names = feature_names(views, contradiction_features)
        strong = tuple(v for v in views if v in table.strong)
        # An untrained model with the fitted models' names, fill and veto.
        template = LearnedAggregator(names, [0.0] * (len(names) * (len(names) + 1) // 2), 0.0,
                                     strong=strong)
        return cls(tuple(views), tuple(names), strong, contradiction_features,
                   feature_matrix(results, names, template.fill),
                   np.array([template.contradicted(r) for r in results], dtype=bool))

    def scores(self, fit: LearnedFit) -> Floats:
        """The effective score of every row under ``fit``: P(supported) as
        ``LearnedAggregator.scores`` computes it, or 0 when vetoed."""
        z = self.features @ np.asarray(fit.model.weights, dtype=np.float64) + fit.model.bias
        result: Floats = np.where(self.vetoed, 0.0, sigmoid(z))
        return result

    def fit_rows(self, rows: npt.NDArray[np.intp], truth: Bools, groups: Sequence[str], *,
                 l2: float | None = None, seed: int = 0) -> LearnedFit:
        """A learned aggregator fitted on ``rows`` (their labels ``truth`` and groups);
        without ``l2`` the penalty is chosen from ``L2_GRID`` by 5-fold cross-validated
        log-loss over groups."""
        features = self.features[rows]
        y = truth.astype(np.float64)
        if y.size == 0 or y.min() == y.max():
            raise DataError("fit needs both supported and unsupported examples")

        def solve(mask: Bools, penalty: float) -> Floats:
            design = np.hstack([features[mask], np.ones((int(mask.sum()), 1))])
            penalties = np.full(design.shape[1], penalty)
            penalties[-1] = 0.0
            theta: Floats = newton(design, y[mask], penalties, 100)
            return theta

        everything = np.ones(len(rows), dtype=bool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if l2 is None:
                folds = _group_folds(groups, 5, seed)
                losses = []
                for penalty in L2_GRID:
                    predicted = np.zeros(len(rows))
                    for k in range(5):
                        train, test = folds != k, folds == k
                        if len(set(truth[train].tolist())) < 2 or not test.any():
                            continue
                        theta = solve(train, penalty)
                        predicted[test] = sigmoid(features[test] @ theta[:-1] + theta[-1])
                    losses.append(_log_loss(predicted, truth))
                l2 = L2_GRID[int(np.argmin(losses))]
            theta = solve(everything, l2)
        model = LearnedAggregator(self.names, theta[:-1].tolist(), float(theta[-1]),
                                  strong=self.strong)
        return LearnedFit(model, l2, self.contradiction_features, self.views)


def early_stop_calls(table: ScoreTable, tau: float, tau_low: float) -> dict[str, float]:
    """View calls a vote-at-τ verifier makes when it stops early, as ``budget.run_views``
    does: views run cheapest first, and a claim closes once a strong view contradicted it
    or no remaining view can move its mass across τ or τ' (a claim headed for Verified
    still meets every strong view). The types it assigns equal those of running every view.
    """
    order = sorted(range(len(table.views)), key=lambda i: table.costs[i] if table.costs else 0)
    strong = np.array([table.views[i] in table.strong for i in order])
    verdicts = table.verdict[:, order]
    costs = np.array([table.costs[i] if table.costs else 1.0 for i in order])
    rows, n_views = verdicts.shape
    open_rows = np.ones(rows, dtype=bool)
    calls, spent = 0, 0.0
    voted = np.zeros(rows)
    entailed = np.zeros(rows)
    against = np.zeros(rows, dtype=bool)
    for k in range(n_views):
        remaining = n_views - k
        low = np.where(voted > 0, entailed / (voted + remaining), 0.0)
        high = np.where((voted == 0) | (entailed == voted), 1.0,
                        (entailed + remaining) / np.maximum(voted + remaining, 1))

        def band(mass: Floats) -> npt.NDArray[np.int_]:
            banded: npt.NDArray[np.int_] = np.where(mass >= tau, 2, np.where(mass > tau_low, 1, 0))
            return banded

        same = band(low) == band(high)
        settled = against | (same & ((band(low) != 2) | ~strong[k:].any()))
        open_rows &= ~settled
        calls += int(open_rows.sum())
        spent += float(open_rows.sum() * costs[k])
        verdict = verdicts[:, k]
        ran = open_rows
        voted += ran & (verdict != ABSTAINED)
        entailed += ran & (verdict == ENTAILED)
        against |= ran & strong[k] & (verdict == CONTRADICTED)
    full_calls = rows * n_views
    return {
        "tau": tau,
        "tau_low": tau_low,
        "calls": calls,
        "calls_without_early_stop": full_calls,
        "saved_share": 1.0 - calls / full_calls if full_calls else 0.0,
        "cost": spent,
        "cost_without_early_stop": float(rows * costs.sum()),
    }
