"""Fit the default aggregator on training-side data from several sources, and write its card.

Every view scores every pair of :mod:`veritype.train.fitting_data` once (cached, so a rerun
scores only what is new). Then, for each candidate set of views, by leave-one-source-out:
the two models (P(supported) over every source, P(contradicted) over the sources that label
contradictions), τ and τ' are fitted on the other sources and judged on the held-out one. A
source one of the candidate's views read in training is neither fitted on nor judged for
that candidate (its figures there would be of seen data); a candidate that cannot be judged
on every source is reported but cannot be the default. Among the rest, the candidate whose
types are worth most on the held-out sources (their mean of the share typed right less the
share typed wrong; Uncertain is neither) is the default, so a view is in it only where
held-out sources say it helps; every single view is fitted and judged the same way beside it.
The shipped model is then refitted on every source, with τ, τ' and κ chosen there:

- τ is the lowest P(supported) at or above which {VERIFIED_PRECISION:.0%} of the claims typed
  Verified are supported, in every source where {MIN_PER_SOURCE} or more are;
- τ' is the highest P(supported) below τ at or below which {UNSUPPORTED_PRECISION:.0%} of the
  claims typed Unsupported are not supported, in every source likewise; the claims between
  are Uncertain, and the costly judge is asked about them (the *ask* band is (τ', τ));
- κ is the lowest P(contradicted) at or above which {CONTRADICTION_PRECISION:.0%} of the claims
  are not supported, in every source;
- a rule view's contradiction decides Unsupported alone at the lowest contradiction floor
  where {CONTRADICTION_PRECISION:.0%} of the claims it fires on are not supported in every
  source where it fires {MIN_PER_SOURCE} times or more; every view's contradiction is
  reported so, on the sources it never read.

Needs only the core install (the views run on onnxruntime).
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate import load_fitted
from veritype.aggregate._base import DEFAULT_VIEWS
from veritype.aggregate._calibrated import (
    CONTRADICTED,
    CONTRADICTION,
    ENTAILED,
    ENTAILMENT,
    SUPPORT_SIGN,
    VERDICT_CODES,
    CalibratedAggregator,
    Decisive,
    Head,
    Logistic,
    features_from_arrays,
    split_feature,
)
from veritype.aggregate._learned import newton
from veritype.errors import DataError
from veritype.evaluation.configurations import view_results
from veritype.evaluation.data import Example
from veritype.evaluation.metrics import (
    Bools,
    Floats,
    balanced_accuracy,
    roc_auc,
)
from veritype.evaluation.scoring import LocalEngine, ScoreTable, score_examples
from veritype.train._baselines import baselines, net_right
from veritype.train._score_cache import cached_scores
from veritype.train._selection import (
    CONTRADICTION_PRECISION,
    MIN_PER_SOURCE,
    UNSUPPORTED_PRECISION,
    VERIFIED_PRECISION,
    lowest_precise_floor,
    precise_tau,
    precise_tau_low,
    seen_sources,
    source_weights,
)
from veritype.train.aggregator_card import model_card
from veritype.train.fitting_data import (
    SOURCES,
    fitting_examples,
    label_arrays,
    sample_per_source,
)
from veritype.train.judge_head import fit_judge_head, reused_judge_head
from veritype.verdicts import Verdict

# ``align`` read three of the six sources (READ_BY), so no candidate with it could be judged
# on every held-out source, and none could be the default: it is not scored.
VIEWS = ("numeric", "lexical", "nli", "paraphrase")
RULE_VIEWS = ("numeric", "lexical")
MODEL_FREE = ("numeric", "lexical")
RULE_FLOORS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
L2 = 1e-3
SCORE_CHUNK = 1500
# Which features each view offers: the model views their two scores, the rule views their
# verdicts (a rule's "score" is a share of matched values, not a probability).
VIEW_FEATURES = {
    "nli": (ENTAILMENT, CONTRADICTION),
    "judge": (ENTAILMENT,),
    "numeric": (ENTAILED, CONTRADICTED),
    "lexical": (ENTAILMENT, ENTAILED),
    "paraphrase": (ENTAILMENT,),
}
CANDIDATES: tuple[tuple[str, ...], ...] = (
    ("nli",), ("numeric",), ("lexical",),
    ("numeric", "nli"), ("numeric", "lexical", "nli"),
    ("paraphrase",), ("nli", "paraphrase"), ("numeric", "nli", "paraphrase"),
)
CONTRADICTION_SOURCES = ("covidfact", "perturbed")

__doc__ = (__doc__ or "").format(VERIFIED_PRECISION=VERIFIED_PRECISION,
                                 UNSUPPORTED_PRECISION=UNSUPPORTED_PRECISION,
                                 CONTRADICTION_PRECISION=CONTRADICTION_PRECISION,
                                 MIN_PER_SOURCE=MIN_PER_SOURCE)


def features_for(views: Sequence[str]) -> list[str]:
    return [f"{view}.{suffix}" for view in views for suffix in VIEW_FEATURES[view]]


def fit_logistic(matrix: npt.NDArray[np.float64], labels: Bools, names: Sequence[str],
                 sign: int, weights: npt.NDArray[np.float64] | None = None) -> Logistic:
    """Penalised logistic regression whose weights keep their allowed signs: ``sign`` +1
    for P(supported) (support features may only raise it), −1 for P(contradicted). A
    feature whose weight comes out with the wrong sign is dropped (its weight set to 0) and
    the rest refitted."""
    y = np.asarray(labels, dtype=np.float64)
    if y.size == 0 or y.min() == y.max():
        raise DataError("a fit needs examples of both classes")
    active = list(range(len(names)))
    while True:
        design = np.hstack([matrix[:, active], np.ones((len(y), 1))])
        penalty = np.full(design.shape[1], L2)
        penalty[-1] = 0.0
        theta = newton(design, y, penalty, 200, weights)
        signed = [(theta[i] * sign * SUPPORT_SIGN[split_feature(names[j])[1]], j)
                  for i, j in enumerate(active)]
        worst = min(signed, default=(0.0, -1))
        if worst[0] >= 0:
            break
        active.remove(worst[1])
    weights = np.zeros(len(names))
    weights[active] = theta[:-1]
    return Logistic(tuple(names), tuple(float(w) for w in weights), float(theta[-1]))


@dataclass
class Fitted:
    """One candidate fitted on some rows: its models and thresholds."""

    views: tuple[str, ...]
    support: Logistic
    contradiction: Logistic | None
    tau: float
    kappa: float
    tau_low: float = 0.0

    def probabilities(self, table: ScoreTable) -> tuple[Floats, Floats]:
        support = self.support.predict(_matrix(table, self.support.features))
        if self.contradiction is None:
            return support, np.zeros_like(support)
        return support, self.contradiction.predict(_matrix(table, self.contradiction.features))


def _matrix(table: ScoreTable, names: Sequence[str]) -> npt.NDArray[np.float64]:
    # A score table codes verdicts as the calibrated aggregator does (the enum's order).
    return features_from_arrays(names, table.views, table.score, table.contradiction,
                                table.verdict)


def fit_candidate(table: ScoreTable, supported: Bools, contradicted: Bools,
                  sources: npt.NDArray[np.str_], views: Sequence[str]) -> Fitted:
    """Both models and τ, κ of ``views`` fitted on every row of ``table``."""
    names = features_for(views)
    support = fit_logistic(_matrix(table, names), supported, names, +1, source_weights(sources))
    labelled = np.isin(sources, CONTRADICTION_SOURCES)
    contradiction: Logistic | None = None
    kappa = 1.0
    if labelled.any() and contradicted[labelled].any():
        matrix = _matrix(table.select(np.nonzero(labelled)[0]), names)
        contradiction = fit_logistic(matrix, contradicted[labelled], names, -1,
                                     source_weights(sources[labelled]))
        p_contradicted = contradiction.predict(_matrix(table, names))
        kappa = _lowest_kappa(p_contradicted, supported, sources)
    fitted = Fitted(tuple(views), support, contradiction, 0.5, kappa)
    p_support, p_contradicted = fitted.probabilities(table)
    blocked = p_contradicted >= kappa
    fitted.tau = precise_tau(p_support, blocked, supported, sources)
    fitted.tau_low = precise_tau_low(p_support, blocked, supported, sources, fitted.tau)
    return fitted


def _lowest_kappa(p_contradicted: Floats, supported: Bools, sources: npt.NDArray[np.str_]
                  ) -> float:
    grid = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99]
    floor, _ = lowest_precise_floor(p_contradicted, np.ones_like(supported), supported,
                                    sources, grid)
    return 1.0 if floor is None else floor


def evaluate(fitted: Fitted, table: ScoreTable, supported: Bools,
             rules: Sequence[Decisive] = ()) -> dict[str, Any]:
    p_support, p_contradicted = fitted.probabilities(table)
    blocked = (p_contradicted >= fitted.kappa) | rules_fire(table, rules)
    cited = np.any(table.verdict[:, [table.column(v) for v in fitted.views]]
                   == VERDICT_CODES[Verdict.ENTAILED], axis=1)
    p_support = np.where(cited, p_support, np.minimum(p_support, fitted.tau_low))
    verified = (p_support >= fitted.tau) & ~blocked
    unsupported = (p_support <= fitted.tau_low) | blocked
    return {"balanced_accuracy": balanced_accuracy(verified, supported),
            "auc": roc_auc(p_support, supported),
            "net_right": net_right(verified, unsupported, supported),
            "decided": float(np.mean(verified | unsupported)),
            "verified": float(verified.mean()),
            "uncertain": float(np.mean(~verified & ~unsupported)),
            "contradicted": float(blocked.mean()),
            "verified_precision": float(supported[verified].mean()) if verified.any() else None,
            "unsupported_precision": float((~supported[unsupported]).mean())
            if unsupported.any() else None}


def leave_one_source_out(table: ScoreTable, supported: Bools, contradicted: Bools,
                         sources: npt.NDArray[np.str_]) -> dict[str, dict[str, Any]]:
    """Each candidate fitted without one source and judged on it, for every source none of
    its views read; ``eligible`` when that is every source. The rules that decide beside
    it (:func:`precise_rules`) are chosen without the held-out source too."""
    results: dict[str, dict[str, Any]] = {}
    for views in CANDIDATES:
        seen = seen_sources(views)
        unseen = ~np.isin(sources, sorted(seen))
        per_source: dict[str, Any] = {}
        for source in np.unique(sources):
            if str(source) in seen:
                per_source[str(source)] = {"seen_in_training": True}
                continue
            train = np.nonzero(unseen & (sources != source))[0]
            held = np.nonzero(sources == source)[0]
            fitted = fit_candidate(table.select(train), supported[train], contradicted[train],
                                   sources[train], views)
            rules = precise_rules(table.select(train), supported[train], sources[train],
                                  views)
            per_source[str(source)] = {
                **evaluate(fitted, table.select(held), supported[held], rules),
                "rules": [{"view": r.view, "floor": r.floor} for r in rules]}
        judged = [v for v in per_source.values() if "balanced_accuracy" in v]
        results[", ".join(views)] = {"views": list(views),
                                     "mean_balanced_accuracy": float(np.mean(
                                         [v["balanced_accuracy"] for v in judged])),
                                     "mean_net_right": float(np.mean(
                                         [v["net_right"] for v in judged])),
                                     "eligible": not seen & set(per_source),
                                     "per_source": per_source}
    return results


def rescored(table: ScoreTable, examples: Sequence[Example], views: Sequence[str] = MODEL_FREE
             ) -> ScoreTable:
    """``table`` with the columns of ``views`` scored afresh: the model-free views are cheap,
    and a cached result of an older rule would silently fit the model to it."""
    fresh = score_examples(LocalEngine(tuple(views)), examples)
    for view in views:
        column, source = table.column(view), fresh.column(view)
        table.score[:, column] = fresh.score[:, source]
        table.contradiction[:, column] = fresh.contradiction[:, source]
        table.verdict[:, column] = fresh.verdict[:, source]
    return table


def rule_views(views: Sequence[str]) -> tuple[str, ...]:
    """The rule views whose precise contradiction may decide beside a candidate of
    ``views``: its own, and those the default runs beside its model (``DEFAULT_VIEWS``;
    ``numeric`` runs there to name the differing value)."""
    return tuple(view for view in RULE_VIEWS if view in views or view in DEFAULT_VIEWS)


def precise_rules(table: ScoreTable, supported: Bools, sources: npt.NDArray[np.str_],
                  views: Sequence[str]) -> list[Decisive]:
    """The rules of :func:`rule_views` that are precise on these rows (see
    :func:`contradiction_rules`), each at its lowest precise floor."""
    floors = {view: _rule_floors(table, supported, sources, view)[0]
              for view in rule_views(views)}
    return [Decisive(view, floor) for view, floor in floors.items() if floor is not None]


def _rule_floors(table: ScoreTable, supported: Bools, sources: npt.NDArray[np.str_],
                 view: str) -> tuple[float | None, list[dict[str, Any]]]:
    """``view``'s lowest precise contradiction floor on the sources it never read, and its
    firings and precision per floor there (:func:`lowest_precise_floor`)."""
    column = table.column(view)
    rows = ~np.isin(sources, sorted(seen_sources([view])))
    fired = table.verdict[rows, column] == VERDICT_CODES[Verdict.CONTRADICTED]
    return lowest_precise_floor(table.contradiction[rows, column], fired, supported[rows],
                                sources[rows], RULE_FLOORS)


def rules_fire(table: ScoreTable, rules: Sequence[Decisive]) -> Bools:
    """Where a decisive rule fires: its view contradicted the claim at or above its floor."""
    fires = np.zeros(len(table.score), dtype=bool)
    for rule in rules:
        column = table.column(rule.view)
        fires |= ((table.verdict[:, column] == VERDICT_CODES[Verdict.CONTRADICTED])
                  & (table.contradiction[:, column] >= rule.floor))
    return fires


def contradiction_rules(table: ScoreTable, supported: Bools, sources: npt.NDArray[np.str_]
                        ) -> dict[str, Any]:
    """Each view's contradiction by floor, on the sources it never read: how often it fires,
    how precise it is per source, and the lowest floor precise in every one."""
    report: dict[str, Any] = {}
    for view in VIEWS:
        floor, floors = _rule_floors(table, supported, sources, view)
        report[view] = {"floor": floor,
                        "judged_on": sorted({str(s) for s in sources} - seen_sources([view])),
                        "floors": floors}
    return report


def fit_default(
    data_dir: Path,
    output_dir: Path,
    *,
    seed: int = 0,
    judge: bool = False,
    per_source: int | None = None,
    judge_head_from: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Score the fitting pairs with every view, choose the views by leave-one-source-out,
    fit the calibrated candidate on every source (with ``judge``, a judge head too: see
    :mod:`veritype.train.judge_head`), measure which views' contradictions are precise
    there, and write ``aggregator.json`` (the candidate), ``fit_report.json`` and ``model_card.md``
    into ``output_dir``; with ``judge_head_from`` (an earlier ``aggregator.json``), its judge
    head is reused rather than fitted (:func:`veritype.train.judge_head.reused_judge_head`);
    with ``per_source``, on a sample of at most that many claims of each
    source (``sample_per_source``). Returns the report."""
    examples = fitting_examples(data_dir, seed=seed)
    if per_source is not None:
        examples = sample_per_source(examples, per_source)
    done = 0

    distinct = len({(example.evidence, example.claim) for example in examples})

    def score_new(new: list[Example]) -> ScoreTable:
        def progress(pairs: int) -> None:
            nonlocal done
            done += pairs
            if on_progress is not None:
                on_progress(done, distinct)

        return score_examples(LocalEngine(VIEWS), new, on_block=progress)

    # A chunk at a time, so a killed run loses at most one chunk (``cached_scores`` resumes).
    for end in range(SCORE_CHUNK, len(examples) + SCORE_CHUNK, SCORE_CHUNK):
        table = cached_scores(output_dir / "scores.npz", examples[:end], score_new)
    table = rescored(table, examples)
    supported_list, contradicted_list = label_arrays(examples)
    supported, contradicted = np.array(supported_list), np.array(contradicted_list)
    sources = np.array([e.meta["source"] for e in examples])

    loso = leave_one_source_out(table, supported, contradicted, sources)
    multi = {name: r for name, r in loso.items() if len(r["views"]) > 1 and r["eligible"]}
    singles = {name: r for name, r in loso.items() if len(r["views"]) == 1 and r["eligible"]}
    # Chosen by what held-out claims' types are worth (a right type less a wrong one;
    # Uncertain neither), as users meet the default; fewer views win ties: each view costs
    # time on every claim.
    def rank(name: str) -> tuple[float, int]:
        return round(loso[name]["mean_net_right"], 3), -len(loso[name]["views"])

    best_name = max(multi, key=rank)
    best_single = max(singles, key=rank)
    if rank(best_single) > rank(best_name):
        best_name = best_single
    views = tuple(loso[best_name]["views"])
    fitted = fit_candidate(table, supported, contradicted, sources, views)
    # The costly judge is asked about the Uncertain band: the claims the encoders leave
    # undecided at the stated precision.
    ask = (fitted.tau_low, fitted.tau)

    rule_report = contradiction_rules(table, supported, sources)
    rules = precise_rules(table, supported, sources, views)

    # Without contradiction data for these views, P(contradicted) is a constant near 0.
    heads = [Head((), fitted.support, fitted.contradiction or Logistic((), (), -30.0))]
    model = CalibratedAggregator(heads, thresholds=(fitted.tau, fitted.tau_low),
                                 kappa=fitted.kappa, decisive=rules, ask=ask)
    report: dict[str, Any] = {
        "data": {"sources": list(SOURCES), "examples": len(examples), "pairs_scored": table.pairs,
                 "seed": seed, "sampled_per_source": per_source,
                 "per_source": baselines(examples, supported, sources),
                 "contradiction_sources": list(CONTRADICTION_SOURCES)},
        "leave_one_source_out": loso,
        "chosen": {"candidate": best_name, "views": list(views),
                   "best_single_view": best_single,
                   "support": fitted.support.to_dict(),
                   "contradiction": None if fitted.contradiction is None
                   else fitted.contradiction.to_dict(),
                   "tau": fitted.tau, "tau_low": fitted.tau_low, "ask": list(ask),
                   "kappa": fitted.kappa,
                   "decisive": [{"view": r.view, "floor": r.floor} for r in rules]},
        "rules": rule_report,
        "machine": {"cpu": platform.processor() or platform.machine(),
                    "python": platform.python_version(), "numpy": np.__version__},
        "timings": table.timings,
    }
    if judge_head_from is not None:
        previous = load_fitted(judge_head_from)
        if not isinstance(previous, CalibratedAggregator):
            raise DataError(f"{judge_head_from}: not a calibrated aggregator")
        model, report["judge_head"] = reused_judge_head(model, previous, str(judge_head_from))
    elif judge:
        unsettled = np.array([model.unsettled(results)
                              for results in view_results(table, list(table.views))])
        model, report["judge_head"] = fit_judge_head(
            model, lambda matrix, labels, names: fit_logistic(matrix, labels, names, +1),
            lambda rows, names: _matrix(table.select(rows), names),
            examples, supported, sources, unsettled, output_dir / "judge_scores.npz",
            seed=seed, on_progress=on_progress)
    output_dir.mkdir(parents=True, exist_ok=True)
    model.save(output_dir / "aggregator.json")
    (output_dir / "fit_report.json").write_text(json.dumps(report, indent=2) + "\n")
    (output_dir / "model_card.md").write_text(model_card(report))
    return report
