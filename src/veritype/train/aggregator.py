"""Fit the default aggregator on training-side data only, and write its card.

The data are pairs neither shipped verifier was trained on: HaluEval dialogue rows 4000–6999
(the ``align`` model read rows 0–3999; rows 7000 and above are kept for calibration and
evaluation elsewhere), a response checked against the knowledge it should rest on, which is
what veritype does. The NLI pool's ``train/`` files are all ``nli``'s training data, so none
is used: a fit on pairs a view has read trusts it more than it deserves. Rows fall whole
into one of three parts: *fit* (the logistic regression), *choose* (the features, the
thresholds τ and τ', and the contradiction veto) and *check* (the figures in the card, read
once after every choice is made).

With ``judge=True`` a second stage is fitted for the claims the chosen model leaves
borderline (Uncertain): a sample of them is asked of the ``judge`` view,
a model over the first stage's features and the judge's P(yes) is fitted on their *fit*
part, and its threshold is chosen on *choose* and checked on *check* as above. The result
is a :class:`~veritype.aggregate.StagedAggregator`.

Needs only the core install (the views run on onnxruntime); the judge stage needs the
``judge`` extra.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate import NOT_CONTRADICTED, LearnedAggregator, StagedAggregator, Veto
from veritype.errors import DataError
from veritype.evaluation.configurations import view_results, vote_score
from veritype.evaluation.data import Example, halueval_examples, is_verbatim
from veritype.evaluation.metrics import (
    Bools,
    Bootstrap,
    Floats,
    binary_metrics,
    roc_auc,
    threshold_for_precision,
)
from veritype.evaluation.scoring import (
    ABSTAINED,
    CONTRADICTED,
    LocalEngine,
    ScoreTable,
    score_examples,
)
from veritype.train.aggregator_card import (
    MIN_VETOED,
    TARGET_PRECISION,
    UNSUPPORTED_PRECISION,
    VETO_PRECISION,
    model_card,
)
from veritype.verdicts import ViewResult

VIEWS = ("numeric", "lexical", "nli", "align")
DIALOGUE_ROWS = (4000, 7000)
PARTS = ("fit", "choose", "check")
VALIDATION_SOURCE = "halueval_dialogue"
VETO_FLOORS = (0.0, 0.8, 0.9, 0.95, 0.98)
L2 = 1e-2
JUDGE = "judge"
# Borderline claims asked of the judge (about 0.7 s each on 2 cores).
JUDGE_SAMPLE = 1000
JUDGE_CHUNK = 100


def training_examples(data_dir: Path) -> list[Example]:
    """The training-side pairs, each group named by its HaluEval row."""
    return [Example(example.example_id, f"dialogue:{example.group}", example.evidence,
                    example.claim, example.label, {"source": VALIDATION_SOURCE})
            for example in halueval_examples(data_dir, "dialogue", *DIALOGUE_ROWS)]


def part_of(group: str, seed: int) -> str:
    """Which part a group belongs to: 60% fit, 20% choose, 20% check, fixed by a hash."""
    digest = hashlib.sha256(f"{seed}:{group}".encode()).digest()
    share = int.from_bytes(digest[:8], "big") / 2**64
    return "fit" if share < 0.6 else "choose" if share < 0.8 else "check"


@dataclass(frozen=True)
class Candidate:
    name: str
    views: tuple[str, ...]
    contradiction_features: bool
    features: tuple[str, ...]


# ``align`` was trained on HaluEval (rows 0-3999 of the same tasks): on the validation rows
# it reads data like its own training data, so a fit there trusts it more than it deserves
# elsewhere. The candidates therefore let it count only through its agreement with ``nli``
# ("nli*align"), or leave it out.
CANDIDATES = tuple(
    Candidate(f"{label}{' + contradiction' if contradiction else ''}", views, contradiction,
              features)
    for label, views, features in (
        ("numeric, nli, nli*align", ("numeric", "nli", "align"), ("numeric", "nli", "nli*align")),
        ("numeric, nli*align", ("numeric", "nli", "align"), ("numeric", "nli*align")),
        ("numeric, nli", ("numeric", "nli"), ("numeric", "nli")),
    )
    for contradiction in (False, True)
)


def is_monotone(model: LearnedAggregator, steps: int = 5) -> bool:
    """Whether more support from any view (a higher score, or a lower contradiction score)
    never lowers P(supported), checked on a grid over every feature's [0, 1]."""
    count = len(model.view_names)
    grid = np.array(list(itertools.product(np.linspace(0.0, 1.0, steps), repeat=count)))
    features = grid
    if model.products:
        left, right = np.triu_indices(count, k=1)
        features = np.hstack([grid, grid[:, left] * grid[:, right]])
    z = (features @ np.asarray(model.weights)).reshape((steps,) * count)
    return all(bool(np.all(np.diff(z, axis=axis) >= -1e-12)) for axis in range(count))


def _fit_monotone(
    table: ScoreTable, truth: Bools, candidate: Candidate
) -> LearnedAggregator | None:
    """The candidate fitted on ``table`` (penalty ``L2``; no pairwise products: with them
    most fits came out non-monotone, and agreement is its own feature here); features whose
    weight comes out negative are dropped one at a time (the most negative first) and the
    rest refitted, so the model is monotone. None when no feature is left."""
    results = view_results(table, candidate.views,
                           contradiction_features=candidate.contradiction_features)
    names = list(candidate.features)
    if candidate.contradiction_features:
        names += [view + NOT_CONTRADICTED for view in candidate.views if view != "numeric"]
    strong = [view for view in candidate.views if view in table.strong]
    return _monotone_fit(results, truth, names, strong)


def _veto_options(table: ScoreTable, truth: Bools, rows: Bools) -> list[dict[str, Any]]:
    """Each veto's precision (the share of vetoed claims that are unsupported) and count on
    ``rows``: any one strong view, two of them, and each strong view on its own, at each
    contradiction-score floor."""
    options = []
    groups: list[tuple[int, tuple[str, ...] | None]] = [(1, None), (2, None)]
    groups += [(1, (view,)) for view in table.strong]
    for quorum, views in groups:
        columns = [table.column(view) for view in (views or table.strong)]
        verdict = table.verdict[rows][:, columns]
        contradiction = table.contradiction[rows][:, columns]
        voting = np.sum(verdict != ABSTAINED, axis=1)
        for floor in VETO_FLOORS:
            saying = np.sum((verdict == CONTRADICTED) & (contradiction >= floor), axis=1)
            vetoed = (voting > 0) & (saying >= np.maximum(1, np.minimum(quorum, voting)))
            options.append({
                "quorum": quorum, "floor": floor, "views": views, "vetoed": int(vetoed.sum()),
                "precision": float(np.mean(~truth[rows][vetoed])) if vetoed.any() else None,
            })
    return options


def _precision_and_recall(accepted: Bools, truth: Bools) -> dict[str, float]:
    metrics = binary_metrics(accepted, truth)
    return {"precision": metrics["precision"], "recall": metrics["recall"]}


def highest_low_threshold(scores: Floats, truth: Bools, precision: float, tau: float) -> float:
    """The highest τ' < τ below which claims are unsupported with ``precision`` (0 if none)."""
    best = 0.0
    for threshold in np.unique(scores):
        if threshold >= tau:
            break
        below = scores <= threshold
        if np.sum(~truth[below]) / max(int(np.sum(below)), 1) >= precision:
            best = float(threshold)
    return best


def fit_default(
    data_dir: Path,
    output_dir: Path,
    *,
    seed: int = 0,
    judge: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Score the training-side pairs with every view, fit each candidate on *fit*, choose
    on *choose*, report on *check*; with ``judge``, fit the judge stage too; write
    ``aggregator.json``, ``fit_report.json`` and ``model_card.md`` into ``output_dir``.
    Returns the report."""
    examples = training_examples(data_dir)
    done = 0

    def score_new(new: list[Example]) -> ScoreTable:
        distinct = len({(example.evidence, example.claim) for example in new})

        def progress(pairs: int) -> None:
            nonlocal done
            done += pairs
            if on_progress is not None:
                on_progress(done, distinct)

        return score_examples(LocalEngine(VIEWS), new, on_block=progress)

    table = _cached_scores(output_dir / "scores.npz", examples, score_new)
    truth = np.array([example.supported for example in examples])
    groups = [example.group for example in examples]
    parts = np.array([part_of(group, seed) for group in groups])
    masks = {part: parts == part for part in PARTS}
    choose, check = masks["choose"], masks["check"]
    vetoes = _veto_options(table, truth, choose)
    reliable = [v for v in vetoes if v["precision"] is not None
                and v["precision"] >= VETO_PRECISION and v["vetoed"] >= MIN_VETOED]
    # The reliable veto that catches most, else none: the score alone then decides.
    most = max(reliable, key=lambda v: v["vetoed"], default=None)
    chosen_veto = None if most is None else Veto(most["quorum"], most["floor"], most["views"])
    choices: list[dict[str, Any]] = []
    fitted: dict[str, LearnedAggregator] = {}
    rows = np.nonzero(masks["fit"])[0]
    for candidate in CANDIDATES:
        model = _fit_monotone(table.select(rows), truth[rows], candidate)
        entry: dict[str, Any] = {"candidate": candidate.name, "tau": None,
                                 "choose_recall": 0.0, "choose_auc": None, "features": []}
        choices.append(entry)
        if model is None:
            continue
        fitted[candidate.name] = model.with_settings(veto=chosen_veto)
        score = _effective(fitted[candidate.name], table, candidate)
        tau = threshold_for_precision(score[choose], truth[choose], TARGET_PRECISION)
        entry.update({
            "tau": tau, "features": list(model.view_names),
            "choose_recall": 0.0 if tau is None else binary_metrics(
                score[choose] >= tau, truth[choose])["recall"],
            "choose_auc": roc_auc(score[choose], truth[choose]),
        })
    if all(c["tau"] is None for c in choices):
        raise DataError(f"no candidate reaches precision {TARGET_PRECISION} on the choose part")
    best = max(choices, key=lambda c: c["choose_recall"])
    candidate = next(c for c in CANDIDATES if c.name == best["candidate"])
    chosen_model = fitted[candidate.name]
    score = _effective(chosen_model, table, candidate)
    tau = float(best["tau"])
    tau_low = highest_low_threshold(score[choose], truth[choose], UNSUPPORTED_PRECISION, tau)
    model = chosen_model.with_settings(thresholds=(tau, tau_low))

    check_groups = [g for g, keep in zip(groups, check, strict=True) if keep]
    accepted = score[check] >= tau
    metrics = binary_metrics(accepted, truth[check])
    intervals = Bootstrap.draw(check_groups, 1000, seed).intervals(accepted, truth[check])
    verbatim = np.array([is_verbatim(example) for example in examples])
    report: dict[str, Any] = {
        "data": {
            "halueval_dialogue_rows": list(DIALOGUE_ROWS),
            "examples": len(examples), "pairs_scored": table.pairs,
            "parts": {part: {"examples": int(mask.sum()),
                             "supported": int(truth[mask].sum())}
                      for part, mask in masks.items()},
            "seed": seed,
        },
        "vetoes": vetoes,
        "candidates": choices,
        "chosen": {"candidate": candidate.name,
                   "views": list(candidate.views),
                   "features": list(model.view_names), "products": model.products,
                   "contradiction_features": candidate.contradiction_features,
                   "veto": None if chosen_veto is None else chosen_veto.to_dict(),
                   "tau": tau, "tau_low": tau_low,
                   "l2_weights": list(model.weights), "bias": model.bias},
        "check": {
            "precision": metrics["precision"], "recall": metrics["recall"],
            "ci95": {name: list(intervals[name]) for name in ("precision", "recall")},
            "auc": roc_auc(score[check], truth[check]),
            "accept_all_precision": float(truth[check].mean()),
            "vote_at_0_8": _precision_and_recall(
                vote_score(table, list(table.views))[check] >= 0.8, truth[check]),
            "verbatim_baseline": _precision_and_recall(verbatim[check], truth[check]),
            "unsupported_share_at_or_below_tau_low": float(np.mean(
                ~truth[check][score[check] <= tau_low])) if np.any(score[check] <= tau_low)
            else None,
        },
        "machine": {"cpu": platform.processor() or platform.machine(),
                    "python": platform.python_version(), "numpy": np.__version__},
        "timings": table.timings,
    }
    shipped: LearnedAggregator | StagedAggregator = model
    if judge:
        stage = JudgeStage(examples, table, candidate, model, truth, parts, score, seed)
        second, report["judge_stage"] = stage.fit(output_dir / "judge_scores.npz", on_progress)
        if second is not None:
            shipped = StagedAggregator(model, second, JUDGE)
    output_dir.mkdir(parents=True, exist_ok=True)
    shipped.save(output_dir / "aggregator.json")
    (output_dir / "fit_report.json").write_text(json.dumps(report, indent=2) + "\n")
    (output_dir / "model_card.md").write_text(model_card(report))
    return report


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


@dataclass
class JudgeStage:
    """The second stage's data and fit: borderline claims, a sample of them judged."""

    examples: list[Example]
    table: ScoreTable
    candidate: Candidate
    first: LearnedAggregator
    truth: Bools
    parts: npt.NDArray[np.str_]
    first_score: Floats
    seed: int

    def sample(self, tau: float, tau_low: float) -> npt.NDArray[np.intp]:
        """Up to ``JUDGE_SAMPLE`` borderline rows, the first in a fixed hashed order."""
        borderline = np.nonzero((self.first_score > tau_low) & (self.first_score < tau))[0]
        chosen = sorted(borderline.tolist(), key=lambda row: hashlib.sha256(
            f"{self.seed}:{self.examples[row].example_id}".encode()).digest())[:JUDGE_SAMPLE]
        return np.array(sorted(chosen), dtype=np.intp)

    def fit(
        self, cache: Path, on_progress: Callable[[int, int], None] | None
    ) -> tuple[LearnedAggregator | None, dict[str, Any]]:
        """The fitted second stage (None when no candidate reaches the target precision on
        the borderline *choose* claims) and its report."""
        assert self.first.thresholds is not None
        tau, tau_low = self.first.thresholds
        rows = self.sample(tau, tau_low)
        sampled = [self.examples[row] for row in rows]
        judged = _judge_scores(cache, sampled, on_progress)
        encoders = view_results(self.table.select(rows), self.candidate.views,
                                contradiction_features=self.candidate.contradiction_features)
        results = [a + b for a, b in zip(encoders, view_results(judged, (JUDGE,)), strict=True)]
        truth, parts = self.truth[rows], self.parts[rows]
        fit_rows = np.nonzero(parts == "fit")[0]
        choose, check = parts == "choose", parts == "check"
        candidates: dict[str, list[str]] = {"judge": [JUDGE],
                                            "first stage + judge": [*self.first.view_names,
                                                                    JUDGE]}
        choices: list[dict[str, Any]] = []
        best: tuple[float, LearnedAggregator, float] | None = None
        for name, names in candidates.items():
            model = _monotone_fit([results[i] for i in fit_rows], truth[fit_rows], names, None)
            entry: dict[str, Any] = {"candidate": name, "features": [], "threshold": None,
                                     "choose_recall": 0.0}
            choices.append(entry)
            if model is None or JUDGE not in model.view_names:
                continue
            second = np.array(model.scores(results))
            threshold = threshold_for_precision(second[choose], truth[choose],
                                                TARGET_PRECISION)
            recall = 0.0 if threshold is None else binary_metrics(
                second[choose] >= threshold, truth[choose])["recall"]
            entry.update({"features": list(model.view_names), "threshold": threshold,
                          "choose_recall": recall,
                          "choose_auc": roc_auc(second[choose], truth[choose])})
            if threshold is not None and (best is None or recall > best[0]):
                best = (recall, model, threshold)
        report: dict[str, Any] = {
            "sample": len(rows),
            "sample_parts": {part: int(np.sum(parts == part)) for part in PARTS},
            "borderline_band": [tau_low, tau],
            "candidates": choices,
            "judge_seconds_per_claim": None if math.isnan(
                judged.timings["seconds_per_claim"]) else judged.timings["seconds_per_claim"],
            "chosen": None,
        }
        if best is None:
            return None, report
        _, model, threshold = best
        # The second model's own threshold is moved onto τ, the one typing compares with.
        shifted = LearnedAggregator(model.view_names, model.weights,
                                    model.bias + _logit(tau) - _logit(threshold),
                                    strong=model.strong, veto=None, products=False)
        second = np.array(shifted.scores(results))
        accepted = second >= tau
        check_groups = [sampled[i].group for i in np.nonzero(check)[0]]
        intervals = Bootstrap.draw(check_groups, 1000, self.seed).intervals(
            accepted[check], truth[check])
        report["chosen"] = {"features": list(shifted.view_names),
                            "weights": list(shifted.weights), "bias": shifted.bias,
                            "threshold_before_shift": threshold}
        report["check"] = {
            "borderline_claims": int(check.sum()),
            "accept_all_precision": float(truth[check].mean()),
            **_precision_and_recall(accepted[check], truth[check]),
            "ci95": {name: list(intervals[name]) for name in ("precision", "recall")},
            "judge_auc": roc_auc(np.array([r[-1].score for r in results])[check],
                                 truth[check]),
        }
        return shifted, report


def _monotone_fit(results: Sequence[Sequence[ViewResult]], truth: Bools, names: list[str],
                  strong: list[str] | None) -> LearnedAggregator | None:
    """Fitted on ``names`` (penalty ``L2``, no pairwise products), dropping the most
    negative weight and refitting until none is negative; None when no feature is left."""
    names = list(names)
    labels = [bool(t) for t in truth]
    while names:
        model = LearnedAggregator.fit(results, labels, view_names=names, l2=L2, strong=strong,
                                      products=False)
        if all(weight >= 0 for weight in model.weights):
            return model
        names.remove(min(zip(model.weights, model.view_names, strict=True))[1])
    return None


def _judge_scores(path: Path, examples: list[Example],
                  on_progress: Callable[[int, int], None] | None) -> ScoreTable:
    """The judge view's scores of ``examples``, cached in ``path`` a chunk at a time, so a
    killed run loses at most one chunk."""
    engine: LocalEngine | None = None
    table: ScoreTable | None = None
    judged, seconds = 0, 0.0
    for end in range(JUDGE_CHUNK, len(examples) + JUDGE_CHUNK, JUDGE_CHUNK):
        def compute(new: list[Example]) -> ScoreTable:
            nonlocal engine, judged, seconds
            engine = engine or LocalEngine((JUDGE,))
            scored = score_examples(engine, new)
            judged += len(new)
            seconds += scored.timings.get(f"view:{JUDGE}", 0.0)
            return scored

        table = _cached_scores(path, examples[:end], compute)
        if on_progress is not None:
            on_progress(min(end, len(examples)), len(examples))
    assert table is not None
    # Seconds per claim as measured in this run; None when every score came from the cache.
    table.timings["seconds_per_claim"] = seconds / judged if judged else float("nan")
    return table


def _cached_scores(
    path: Path, examples: Sequence[Example], compute: Callable[[list[Example]], ScoreTable]
) -> ScoreTable:
    """The views' scores of ``examples``: those an earlier run wrote to ``path`` are read
    back (scoring is the long part: a rerun that changes only the choices, or adds data,
    scores only what is new), the rest computed; the union is written back."""
    known: dict[str, int] = {}
    saved: Any = None
    if path.exists():
        saved = np.load(path, allow_pickle=False)
        known = {str(example_id): row for row, example_id in enumerate(saved["ids"])}
    missing = [example for example in examples if example.example_id not in known]
    stored: list[tuple[Any, ...]] = []
    if saved is not None:
        stored.append((saved["views"], saved["strong"], saved["score"], saved["contradiction"],
                       saved["verdict"]))
    if missing:
        new = compute(missing)
        stored.append((new.views, new.strong, new.score, new.contradiction, new.verdict))
    views = tuple(str(view) for view in stored[0][0])
    strong = tuple(str(view) for view in stored[0][1])
    score, contradiction, verdict = (np.concatenate([part[i] for part in stored])
                                     for i in (2, 3, 4))
    ids = [*known, *(example.example_id for example in missing)]
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, ids=np.array(ids), views=np.array(views), strong=np.array(strong),
                 score=score, contradiction=contradiction, verdict=verdict)
    row = {example_id: index for index, example_id in enumerate(ids)}
    order = np.array([row[example.example_id] for example in examples], dtype=np.intp)
    return ScoreTable(views, strong, score[order], contradiction[order],
                      verdict[order].astype(np.int8),
                      [[() for _ in views] for _ in examples], len(examples), {})


def _effective(model: LearnedAggregator, table: ScoreTable, candidate: Candidate) -> Floats:
    """P(supported), or 0 where the model's veto fires: what typing compares with τ."""
    results = view_results(table, candidate.views,
                           contradiction_features=candidate.contradiction_features)
    strong = set(table.strong)
    effective: Floats = np.array([
        0.0 if model.veto is not None and model.veto.fires(
            [r for r in row if r.view in strong], model.strong) else score
        for row, score in zip(results, model.scores(results), strict=True)
    ])
    return effective
