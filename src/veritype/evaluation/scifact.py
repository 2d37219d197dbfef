"""SciFact end to end: retrieve from the abstract corpus, verify each dev claim, cite.

The corpus is ingested once into a SQLite store under the cache directory and reused. Each
dev claim is checked against its top retrieved chunks, and every configuration predicts
SUPPORT, CONTRADICT or NEI by the rule its name says:

- ``view:X``: X alone; SUPPORT when X says entailed, CONTRADICT when X says contradicted.
- ``view:X (cal)``: X alone; CONTRADICT when X says contradicted, else SUPPORT when X's
  score reaches the calibrated threshold.
- ``vote τ=…`` and ``learned``: CONTRADICT when any strong view says contradicted (the
  typing rule), else SUPPORT when the vote's mass or the learned P(supported) reaches τ or
  the calibrated threshold.
- ``default`` and ``default (cal)``: the shipped default aggregator over its views;
  CONTRADICT where it marks the claim contradicted, else SUPPORT when its P(supported)
  reaches its shipped τ or the calibrated threshold (when the run scores its views).
- Baselines: one label for every claim (each label, and the calibration claims' majority),
  and the verbatim substring (SUPPORT when the claim occurs in a retrieved chunk).
Everything else is NEI.

Calibration uses dev claims only: ``align`` was fine-tuned on SciFact *train* claims (607 of
the 809 made it into its training sample, 218 of the first 300 that earlier runs calibrated
on) and on perturbations of 2,500 corpus abstracts; ``nli`` on the NLI pool only. Dev claims
are split with the run's seed, 30% calibration and 70% evaluation, by groups of claims that
cite a common abstract (negated variants of one claim stay together). Every threshold, the
learned aggregator and the chosen configuration come from the calibration claims; every
figure, the ALCE citation quality of the chosen configuration's rendered (SUPPORT) claims
included, is read on the evaluation claims.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.evaluation import plots
from veritype.evaluation._scifact_corpus import (
    JUDGE,
    TOP_K,
    citation_quality,
    corpus_rows,
    open_corpus,
    retrieve,
)
from veritype.evaluation.configurations import (
    LearnedFit,
    contradicted,
    default_aggregates,
    effective_scores,
    fit_learned,
    single_view_score,
    view_accepts,
    vote_score,
)
from veritype.evaluation.data import Example, SciFactClaim, is_verbatim, scifact_claims
from veritype.evaluation.metrics import Bools, Bootstrap, Floats
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import CALIBRATION_SHARE, Evaluator
from veritype.evaluation.scoring import CONTRADICTED, ENTAILED, ScoreTable

LABELS = ("SUPPORT", "CONTRADICT", "NEI")
Labels = npt.NDArray[np.str_]


def claim_groups(claims: Sequence[SciFactClaim]) -> list[str]:
    """One group per set of claims linked by a cited or evidence abstract they share."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    nodes = [[f"doc{d}" for d in (*claim.cited_docs, *claim.evidence_docs)]
             or [f"claim{claim.claim_id}"] for claim in claims]
    for linked in nodes:
        for node in linked[1:]:
            parent[root(node)] = root(linked[0])
    return [root(linked[0]) for linked in nodes]


@dataclass(frozen=True, slots=True)
class Configuration:
    """A verifier configuration: support scores, its CONTRADICT rule, and its threshold
    (None: fitted on the calibration claims)."""

    scores: Floats
    against: Bools
    threshold: float | None
    rule: str


def _strong_rule(table: ScoreTable) -> str:
    strong = [v for v in table.views if v in table.strong]
    return (f"CONTRADICT when any strong view ({', '.join(strong)}) says contradicted"
            if strong else "never CONTRADICT (no strong view)")


def configurations(table: ScoreTable, taus: Sequence[float]) -> dict[str, Configuration]:
    """Every configuration but the learned one; nothing here reads a label."""
    views = list(table.views)
    any_strong = _strong_rule(table)
    out: dict[str, Configuration] = {}
    for view in views:
        own = table.verdict[:, table.column(view)] == CONTRADICTED
        out[f"view:{view}"] = Configuration(
            view_accepts(table, view).astype(np.float64), own, 1.0,
            f"{view} alone: SUPPORT when it says entailed, CONTRADICT when contradicted")
        out[f"view:{view} (cal)"] = Configuration(
            single_view_score(table, view), own, None,
            f"{view} alone: CONTRADICT when it says contradicted, SUPPORT at its calibrated "
            "score threshold")
    for tau in taus:
        out[f"vote τ={tau:g}"] = Configuration(
            vote_score(table, views), contradicted(table, views), tau,
            f"{any_strong}; SUPPORT when the vote's mass ≥ {tau:g}")
    if (shipped := default_aggregates(table)) is not None:
        aggregates, tau = shipped
        scores = effective_scores(aggregates)
        against = np.array([a.contradicted for a in aggregates], dtype=bool)
        rule = ("the shipped default aggregator: CONTRADICT where it marks the claim "
                "contradicted, SUPPORT when its P(supported) reaches")
        out["default"] = Configuration(scores, against, tau, f"{rule} its τ {tau:.3f}")
        out["default (cal)"] = Configuration(scores, against, None,
                                             f"{rule} the calibrated threshold")
    return out


def predict(scores: Floats, against: Bools, threshold: float) -> Labels:
    labels: Labels = np.where(against, "CONTRADICT",
                              np.where(scores >= threshold, "SUPPORT", "NEI"))
    return labels


def best_label_threshold(scores: Floats, against: Bools, gold: Labels) -> float:
    """The score threshold (a score of a claim the CONTRADICT rule leaves open) with the
    highest label accuracy, that rule applied; the lowest on ties, 0.5 without data."""
    candidates = np.unique(np.round(scores[~against], 4))
    if not len(candidates):
        return 0.5
    accuracies = [float(np.mean(predict(scores, against, t) == gold)) for t in candidates]
    return float(candidates[int(np.argmax(accuracies))])


@dataclass(frozen=True, slots=True)
class Selection:
    """What the calibration claims decided: each configuration's threshold and its labels
    for every claim, the learned fit, and the configuration chosen on label accuracy."""

    configurations: dict[str, Configuration]
    thresholds: dict[str, float]
    predictions: dict[str, Labels]
    calibration_accuracy: dict[str, float]
    learned: LearnedFit | None
    chosen: str


def select(
    table: ScoreTable, gold: Labels, calibration: Bools, groups: Sequence[str],
    taus: Sequence[float],
) -> Selection:
    """Fit thresholds and the learned aggregator, and choose a configuration, on the
    ``calibration`` claims only."""
    views = list(table.views)
    rows = np.nonzero(calibration)[0]
    cal_gold = gold[rows]
    configs = configurations(table, taus)
    supported = cal_gold == "SUPPORT"
    learned = None
    # A calibration set with one class (tiny --limit runs) cannot fit a classifier.
    if supported.any() and not supported.all():
        learned = fit_learned(table.select(rows), supported,
                              [groups[i] for i in rows.tolist()], views)
        configs["learned"] = Configuration(
            learned.scores(table), contradicted(table, views), None,
            f"{_strong_rule(table)}; SUPPORT at the calibrated threshold of P(supported) of a "
            "logistic regression over the views, fitted on the calibration claims")
    thresholds: dict[str, float] = {}
    predictions: dict[str, Labels] = {}
    accuracy: dict[str, float] = {}
    for name, config in configs.items():
        threshold = config.threshold
        if threshold is None:
            threshold = best_label_threshold(config.scores[rows], config.against[rows], cal_gold)
        thresholds[name] = threshold
        predictions[name] = predict(config.scores, config.against, threshold)
        hits = predictions[name][rows] == cal_gold
        accuracy[name] = float(np.mean(hits)) if len(rows) else 0.0
    chosen = max(accuracy, key=lambda name: accuracy[name])
    return Selection(configs, thresholds, predictions, accuracy, learned, chosen)


def baselines(examples: Sequence[Example], gold: Labels, calibration: Bools
              ) -> tuple[dict[str, Labels], str]:
    """The trivial predictions for every claim, and the calibration claims' majority label
    (the first of ``LABELS`` on a tie)."""
    counts = [int(np.sum(gold[calibration] == label)) for label in LABELS]
    majority = LABELS[int(np.argmax(counts))]
    predictions: dict[str, Labels] = {
        f"every claim {label}": np.full(len(gold), label) for label in LABELS
    }
    predictions[f"majority class ({majority})"] = np.full(len(gold), majority)
    predictions["verbatim substring"] = np.array(
        ["SUPPORT" if is_verbatim(e) else "NEI" for e in examples])
    return predictions, majority


def _trivial_description(name: str) -> str:
    if name == "verbatim substring":
        return "trivial: SUPPORT when the claim occurs in a retrieved chunk, else NEI"
    if name.startswith("majority class"):
        return "trivial: the calibration claims' majority label for every claim"
    return f"trivial: {name.removeprefix('every claim ')} for every claim"


def _weighted_mean(values: Floats, weights: Floats) -> float:
    return float(np.sum(weights * values) / max(float(np.sum(weights)), 1.0))


def _summary(predicted: Labels, gold: Labels, bootstrap: Bootstrap) -> dict[str, Any]:
    correct = (predicted == gold).astype(np.float64)
    low, high = bootstrap.interval_of(partial(_weighted_mean, correct))
    return {
        "label_accuracy": float(np.mean(correct)) if len(correct) else 0.0,
        "ci95": [low, high],
        "per_label_recall": {
            label: float(np.mean(predicted[gold == label] == label))
            if np.any(gold == label) else None for label in LABELS
        },
    }


def _recalls(r: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(r["per_label_recall"][label] for label in LABELS)


def _interval(r: dict[str, Any]) -> str:
    return f"{r['label_accuracy']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"


class SciFact(Evaluator):
    """SciFact dev claims end to end: retrieve, verify, cite."""

    name = "scifact"

    def run(self) -> RunResult:
        settings = self.settings
        started = time.perf_counter()
        dev = scifact_claims(settings.data_dir, "dev", settings.limit)
        rows = corpus_rows(settings.data_dir, dev, settings.limit)
        corpus = open_corpus(settings.cache_dir, rows, self.ingest_progress)
        ingested = time.perf_counter()
        try:
            examples, sources = retrieve(corpus, dev)
        finally:
            corpus.close()
        retrieved = time.perf_counter()
        table = self.score(examples, "scifact: verifying")
        groups = claim_groups(dev)
        calibration = self.calibration_split(groups)
        held = ~calibration
        gold: Labels = np.array([c.label for c in dev])
        selection = select(table, gold, calibration, groups, settings.taus)
        trivial, majority = baselines(examples, gold, calibration)
        bootstrap = self.bootstrap(groups, calibration)
        results: dict[str, Any] = {}
        for name, predicted in selection.predictions.items():
            results[name] = {
                "computes": selection.configurations[name].rule,
                "threshold": selection.thresholds[name],
                "calibration_accuracy": selection.calibration_accuracy[name],
                **_summary(predicted[held], gold[held], bootstrap),
            }
        baseline_results = {name: _summary(predicted[held], gold[held], bootstrap)
                            for name, predicted in trivial.items()}
        chosen = selection.chosen
        accepted = (selection.predictions[chosen] == "SUPPORT") & held
        retrieved_recall, cited_recall = _evidence_recall(table, dev, sources, held, accepted)
        citations = citation_quality(table, examples, accepted)
        judged = time.perf_counter()
        best = results[chosen]
        majority_name = f"majority class ({majority})"
        headline: dict[str, float | int | str] = {
            "claims": len(dev),
            "calibration_claims": int(calibration.sum()),
            "evaluation_claims": int(held.sum()),
            "configuration": chosen,
            "configuration_computes": best["computes"],
            "label_accuracy": best["label_accuracy"],
            "label_accuracy_ci_low": best["ci95"][0],
            "label_accuracy_ci_high": best["ci95"][1],
            "baseline_majority_label": majority,
        }
        for key, name in (("majority", majority_name), ("verbatim", "verbatim substring")):
            headline[f"baseline_{key}_accuracy"] = baseline_results[name]["label_accuracy"]
            headline[f"baseline_{key}_accuracy_ci_low"] = baseline_results[name]["ci95"][0]
            headline[f"baseline_{key}_accuracy_ci_high"] = baseline_results[name]["ci95"][1]
        headline.update({
            f"evidence_recall_at_{TOP_K}": retrieved_recall,
            "cited_evidence_recall": cited_recall,
            "citation_recall": citations["citation_recall"],
            "citation_precision": citations["citation_precision"],
            "rendered_claims": citations["rendered_claims"],
            "seconds": round(time.perf_counter() - started, 2),
        })
        calibration_text = (f"{CALIBRATION_SHARE:.0%} of the dev claims by cited-abstract "
                            f"group, seed {settings.seed}")
        result = self.result(
            config={"views": list(table.views), "taus": list(settings.taus), "top_k": TOP_K,
                    "retriever": "hybrid", "limit": settings.limit, "engine": settings.engine,
                    "seed": settings.seed, "calibration": calibration_text,
                    "data_dir": str(settings.data_dir)},
            headline=headline,
            sections={"configurations": results, "baselines": baseline_results,
                      "chosen": chosen,
                      "learned_model": None if selection.learned is None
                      else {"l2": selection.learned.l2,
                            "model": selection.learned.model.to_json()},
                      "citations": citations,
                      "evidence_recall": {"retrieved": retrieved_recall, "cited": cited_recall}},
            tables=_tables(results, baseline_results, citations, headline,
                           f"{calibration_text} ({int(calibration.sum())} claims); evaluation: "
                           f"the other {int(held.sum())}. Chosen on calibration accuracy: "
                           f"{chosen}."),
            timings={"corpus": ingested - started, "retrieve": retrieved - ingested,
                     **table.timings,
                     "citations": judged - retrieved - table.timings["score_total"]},
        )
        bars = {"evaluation claims": {name: r["label_accuracy"] for name, r in results.items()}}
        result.plots = {"accuracy": lambda path: plots.accuracy_bars(path, bars,
                                                                     "label accuracy")}
        result.examples = [
            {"id": e.example_id, "group": groups[i], "claim": e.claim,
             "evidence": list(e.evidence), "label": e.label, "sources": sources[i],
             "split": "calibration" if calibration[i] else "held_out",
             "predicted": str(selection.predictions[chosen][i]), "verified": bool(accepted[i])}
            for i, e in enumerate(examples)
        ]
        return result


def _evidence_recall(table: ScoreTable, dev: Sequence[SciFactClaim], sources: list[list[str]],
                     held: Bools, accepted: Bools) -> tuple[float, float]:
    """Among the held-out claims with gold evidence: the share whose gold abstract is among
    the retrieved chunks, and the share whose gold abstract the chosen configuration cites."""
    with_evidence = [i for i, c in enumerate(dev) if c.evidence_docs and held[i]]
    retrieved_recall = float(np.mean([
        bool(set(sources[i]) & set(dev[i].evidence_docs)) for i in with_evidence
    ])) if with_evidence else 0.0
    cited_recall = []
    for i in with_evidence:
        cited_docs = {
            sources[i][span[0]] for column in range(len(table.views))
            if table.verdict[i, column] == ENTAILED for span in table.spans[i][column]
        } if accepted[i] else set()
        cited_recall.append(bool(cited_docs & set(dev[i].evidence_docs)))
    return retrieved_recall, float(np.mean(cited_recall)) if cited_recall else 0.0


def _tables(results: dict[str, Any], baseline_results: dict[str, Any],
            citations: dict[str, Any], headline: dict[str, float | int | str], split_note: str
            ) -> list[Table]:
    rows: list[tuple[Any, ...]] = [
        (name, r["computes"], r["threshold"], r["calibration_accuracy"], _interval(r),
         *_recalls(r)) for name, r in results.items()
    ]
    rows += [(f"baseline: {name}", _trivial_description(name), None, None, _interval(r),
              *_recalls(r)) for name, r in baseline_results.items()]
    return [Table(
        "SciFact dev end to end (retrieve top 3 chunks, verify): label accuracy on the "
        "evaluation claims; thresholds, the learned aggregator and the chosen configuration "
        "from the calibration claims",
        ("configuration", "what it computes", "threshold", "cal. acc.", "accuracy [95% CI]",
         "SUPPORT rec.", "CONTRADICT rec.", "NEI rec."),
        rows,
        note=f"Calibration: {split_note}",
    ), Table(
        "SciFact evidence and citations of the chosen configuration (evaluation claims)",
        ("measure", "value"),
        [(f"gold abstract among top {TOP_K} chunks", headline[f"evidence_recall_at_{TOP_K}"]),
         ("gold abstract among citations", headline["cited_evidence_recall"]),
         ("rendered (SUPPORT) claims", citations["rendered_claims"]),
         ("ALCE citation recall", citations["citation_recall"]),
         ("ALCE citation precision", citations["citation_precision"])],
        note=f"Judge: {JUDGE}.",
    )]
