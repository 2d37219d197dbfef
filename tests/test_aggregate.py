"""Aggregators: support mass, evidence union, vote, learned (logistic) and rule."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from veritype.aggregate import (
    Aggregate,
    Aggregator,
    LearnedAggregator,
    RuleAggregator,
    RuleThresholds,
    StagedAggregator,
    Veto,
    VoteAggregator,
    available_aggregators,
    create_aggregator,
    evidence_union,
    is_contradicted,
    support_mass,
)
from veritype.errors import VeritypeError
from veritype.evidence import Span
from veritype.views import Verdict, ViewResult

E, C, U, A = Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.UNKNOWN, Verdict.ABSTAINED


def _span(start: int, end: int, doc: str = "d") -> Span:
    return Span(doc, f"{doc}:0", start, end)


def _r(view: str, verdict: Verdict, score: float = 0.5, contradiction: float = 0.0,
       spans: tuple[Span, ...] = ()) -> ViewResult:
    return ViewResult(view, verdict, score, contradiction=contradiction, spans=spans)


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


# --- support mass and evidence union --------------------------------------------------


def test_support_mass_counts_only_voting_views() -> None:
    results = [_r("nli", E), _r("lex", U), _r("num", A), _r("align", C)]
    # Three views voted, one of them entailed: the abstention is not in N.
    assert support_mass(results) == pytest.approx(1 / 3)


def test_support_mass_is_zero_when_nobody_voted() -> None:
    assert support_mass([]) == 0.0
    assert support_mass([_r("num", A), _r("lex", A)]) == 0.0


def test_support_mass_is_one_when_every_voter_entails() -> None:
    assert support_mass([_r("nli", E), _r("align", E), _r("num", A)]) == 1.0


def test_evidence_union_takes_spans_only_from_entailed_views() -> None:
    shared = _span(0, 5)
    results = [
        _r("nli", E, spans=(_span(10, 20), shared)),
        _r("align", E, spans=(shared, _span(0, 3, doc="a"))),
        _r("lex", U, spans=(_span(30, 40),)),
        _r("neg", C, spans=(_span(50, 60),)),
        _r("num", A, spans=(_span(70, 80),)),
    ]
    assert evidence_union(results) == (_span(0, 3, doc="a"), shared, _span(10, 20))


def test_evidence_union_is_empty_without_entailment() -> None:
    assert evidence_union([_r("lex", U, spans=(_span(0, 5),))]) == ()


# --- contradiction --------------------------------------------------------------------


def test_contradiction_needs_a_strong_view() -> None:
    results = [_r("nli", E), _r("lex", C)]
    assert is_contradicted(results)  # None: every view is strong
    assert not is_contradicted(results, frozenset({"nli"}))
    assert is_contradicted(results, frozenset({"lex"}))
    assert not is_contradicted([_r("nli", E), _r("lex", U)])


# --- vote -----------------------------------------------------------------------------


def test_vote_aggregator_scores_support_mass_and_flags_contradiction() -> None:
    aggregator = VoteAggregator(strong={"nli"})
    results = [_r("nli", C), _r("align", E), _r("lex", E), _r("num", A)]
    assert aggregator.aggregate(results) == Aggregate(2 / 3, True, "vote")
    assert aggregator.aggregate([_r("nli", E), _r("lex", C)]) == Aggregate(0.5, False, "vote")


def test_vote_batch_matches_single() -> None:
    aggregator = VoteAggregator()
    batch = [[_r("nli", E)], [_r("nli", U), _r("lex", E)], []]
    assert aggregator.aggregate_batch(batch) == [aggregator.aggregate(b) for b in batch]


def test_strong_must_be_a_collection_of_names() -> None:
    with pytest.raises(ValueError, match="strong"):
        VoteAggregator(strong="nli")


# --- learned: prediction --------------------------------------------------------------


def test_learned_features_are_scores_then_pairwise_products() -> None:
    model = LearnedAggregator(["a", "b", "c"], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], -0.5)
    xa, xb, xc = 0.2, 0.9, 0.4
    results = [_r("c", U, xc), _r("a", E, xa), _r("b", E, xb), _r("other", E, 1.0)]
    z = 1 * xa + 2 * xb + 3 * xc + 4 * xa * xb + 5 * xa * xc + 6 * xb * xc - 0.5
    aggregate = model.aggregate(results)
    assert aggregate.score == pytest.approx(1 / (1 + math.exp(-z)), rel=1e-12)
    assert aggregate.method == "learned"


def test_learned_fills_missing_and_abstained_views() -> None:
    model = LearnedAggregator(["a", "b"], [1.0, -2.0, 3.0], 0.1, fill=0.25)
    z = 0.6 - 2 * 0.25 + 3 * 0.6 * 0.25 + 0.1
    expected = 1 / (1 + math.exp(-z))
    assert model.aggregate([_r("a", E, 0.6)]).score == pytest.approx(expected, rel=1e-12)
    abstained = [_r("a", E, 0.6), _r("b", A, 0.99)]
    assert model.aggregate(abstained).score == pytest.approx(expected, rel=1e-12)


def test_learned_contradiction_flag_follows_strong_views() -> None:
    results = [_r("a", C, 0.1), _r("b", E, 0.9)]
    assert LearnedAggregator(["a", "b"], [0.0] * 3, 0.0).aggregate(results).contradicted
    weak_a = LearnedAggregator(["a", "b"], [0.0] * 3, 0.0, strong={"b"})
    assert not weak_a.aggregate(results).contradicted


def test_learned_batch_matches_single_and_handles_extreme_logits() -> None:
    model = LearnedAggregator(["a"], [2000.0], -1000.0)
    batch = [[_r("a", E, 1.0)], [_r("a", U, 0.0)], [_r("a", E, 0.5)]]
    scores = [a.score for a in model.aggregate_batch(batch)]
    assert scores == [model.aggregate(b).score for b in batch]
    assert scores[0] == 1.0
    assert scores[1] == 0.0
    assert scores[2] == 0.5
    assert model.aggregate_batch([]) == []


def test_learned_rejects_duplicate_results_for_one_view() -> None:
    model = LearnedAggregator(["a"], [1.0], 0.0)
    with pytest.raises(ValueError, match="appears twice"):
        model.aggregate([_r("a", E, 0.9), _r("a", U, 0.1)])


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((["a", "b"], [1.0, 2.0], 0.0), {}, "need 3 weights"),
        ((["a", "a"], [1.0, 2.0, 3.0], 0.0), {}, "unique"),
        ((["a", ""], [1.0, 2.0, 3.0], 0.0), {}, "non-empty strings"),
        (("ab", [1.0, 2.0, 3.0], 0.0), {}, "non-empty strings"),
        ((["a"], [math.inf], 0.0), {}, r"weights\[0\] must be a finite"),
        ((["a"], [1.0], math.nan), {}, "bias must be a finite"),
        ((["a"], [True], 0.0), {}, r"weights\[0\]"),
        ((["a"], [1.0], 0.0), {"fill": 1.5}, "fill"),
    ],
)
def test_learned_constructor_validates(
    args: tuple[Sequence[str], Sequence[float], float], kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        LearnedAggregator(*args, **kwargs)


# --- learned: JSON --------------------------------------------------------------------

_names = st.lists(st.text(min_size=1, max_size=8), max_size=4, unique=True)
_finite = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def _models(draw: st.DrawFn, values: st.SearchStrategy[float] = _finite) -> LearnedAggregator:
    names = draw(_names)
    d = len(names)
    weights = draw(st.lists(values, min_size=d + d * (d - 1) // 2, max_size=d + d * (d - 1) // 2))
    strong = draw(st.none() | st.frozensets(st.sampled_from(names)) if names else st.none())
    return LearnedAggregator(names, weights, draw(values), strong=strong,
                             fill=draw(st.floats(0.0, 1.0)))


@given(model=_models())
def test_json_round_trip_is_bit_exact(model: LearnedAggregator) -> None:
    loaded = LearnedAggregator.from_json(model.to_json())
    assert loaded.view_names == model.view_names
    assert [_bits(w) for w in loaded.weights] == [_bits(w) for w in model.weights]
    assert _bits(loaded.bias) == _bits(model.bias)
    assert _bits(loaded.fill) == _bits(model.fill)
    assert loaded.strong == model.strong
    assert loaded.to_json() == model.to_json()


@given(model=_models(st.floats(-50.0, 50.0)), data=st.data())
def test_json_round_trip_keeps_predictions(model: LearnedAggregator, data: st.DataObject) -> None:
    verdicts = st.sampled_from(list(Verdict))
    batch = [
        [_r(name, data.draw(verdicts), data.draw(st.floats(0.0, 1.0)))
         for name in model.view_names]
        for _ in range(3)
    ]
    loaded = LearnedAggregator.from_json(model.to_json())
    assert loaded.aggregate_batch(batch) == model.aggregate_batch(batch)


def test_save_and_load(tmp_path: Path) -> None:
    model = LearnedAggregator(["align", "nli"], [0.1, -0.2, 0.3], 1 / 3, strong={"nli"})
    path = tmp_path / "model.json"
    model.save(path)
    assert json.loads(path.read_text())["format"] == "veritype.learned-aggregator"
    loaded = LearnedAggregator.load(str(path))
    assert loaded.weights == model.weights
    assert loaded.bias == model.bias
    assert loaded.strong == frozenset({"nli"})


def _payload(**changes: object) -> str:
    data: dict[str, object] = json.loads(LearnedAggregator(["a"], [1.0], 0.0).to_json())
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (_payload(format="something-else"), "format marker"),
        (_payload(version=3), "unsupported version 3"),
        (_payload(version=True), "unsupported version"),
        (_payload(extra=1), r"unknown keys \['extra'\]"),
        (json.dumps({"format": "veritype.learned-aggregator", "version": 1}), "missing keys"),
        (_payload(weights=[1.0, 2.0]), "need 1 weights"),
        (_payload(weights="1.0"), "weights must be a list"),
        (_payload(weights=["x"]), r"weights\[0\]"),
        (_payload(bias=None), "bias"),
        (_payload(strong="a"), "strong must be a list"),
        (_payload(fill=2), "fill"),
    ],
)
def test_load_rejects_malformed_files(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=match) as info:
        LearnedAggregator.load(path)
    assert str(path) in str(info.value)


# --- learned: fitting -----------------------------------------------------------------


def _synthetic(n: int, seed: int) -> tuple[list[list[ViewResult]], list[bool]]:
    """Three noisy views that lean towards the label; the numeric view often abstains."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.4
    batch: list[list[ViewResult]] = []
    for label in labels:
        centre = 0.75 if label else 0.25
        nli = float(np.clip(rng.normal(centre, 0.12), 0.0, 1.0))
        align = float(np.clip(rng.normal(centre, 0.18), 0.0, 1.0))
        results = [_r("nli", E if nli > 0.5 else U, nli), _r("align", E, align)]
        if rng.random() < 0.5:
            results.append(_r("num", A, 0.0))
        else:
            num = float(np.clip(rng.normal(centre, 0.3), 0.0, 1.0))
            results.append(_r("num", E, num))
        batch.append(results)
    return batch, [bool(label) for label in labels]


def test_fit_learns_an_accurate_calibrated_model() -> None:
    train, train_labels = _synthetic(600, seed=1)
    test, test_labels = _synthetic(2000, seed=2)
    model = LearnedAggregator.fit(train, train_labels)
    assert model.view_names == ("align", "nli", "num")
    assert len(model.weights) == 6
    scores = np.array([a.score for a in model.aggregate_batch(test)])
    truth = np.array(test_labels)
    assert np.mean((scores > 0.5) == truth) > 0.9
    assert abs(scores.mean() - truth.mean()) < 0.05
    # The unpenalised bias makes the fit exactly calibrated in the mean on its own data.
    train_scores = [a.score for a in model.aggregate_batch(train)]
    assert np.mean(train_scores) == pytest.approx(np.mean(train_labels), abs=1e-8)


def test_fit_is_deterministic_and_keeps_options() -> None:
    train, labels = _synthetic(200, seed=3)
    first = LearnedAggregator.fit(train, labels, strong={"nli"}, fill=0.3)
    second = LearnedAggregator.fit(train, labels, strong={"nli"}, fill=0.3)
    assert first.weights == second.weights
    assert first.bias == second.bias
    assert first.strong == frozenset({"nli"})
    assert first.fill == 0.3


def test_fit_respects_given_view_names_and_l2() -> None:
    train, labels = _synthetic(200, seed=4)
    loose = LearnedAggregator.fit(train, labels, view_names=["nli"], l2=1e-4)
    tight = LearnedAggregator.fit(train, labels, view_names=["nli"], l2=10.0)
    assert loose.view_names == ("nli",)
    assert abs(tight.weights[0]) < abs(loose.weights[0])


def test_fit_handles_separable_data_with_regularisation() -> None:
    batch = [[_r("a", E, 0.9)], [_r("a", E, 0.8)], [_r("a", U, 0.1)], [_r("a", U, 0.2)]]
    model = LearnedAggregator.fit(batch, [True, True, False, False])
    scores = [a.score for a in model.aggregate_batch(batch)]
    assert all(math.isfinite(w) for w in model.weights)
    assert scores[0] > 0.5 > scores[2]


@pytest.mark.parametrize(
    ("labels", "kwargs", "match"),
    [
        ([True], {}, "one label per claim"),
        ([True, True], {}, "both supported and unsupported"),
        ([False, False], {}, "both supported and unsupported"),
        ([True, False], {"l2": -1.0}, "l2"),
        ([True, False], {"max_iter": 0}, "max_iter"),
        ([True, False], {"fill": -0.1}, "fill"),
    ],
)
def test_fit_validates(labels: list[bool], kwargs: dict[str, Any], match: str) -> None:
    batch = [[_r("a", E, 0.9)], [_r("a", U, 0.1)]]
    with pytest.raises(ValueError, match=match):
        LearnedAggregator.fit(batch, labels, **kwargs)


# --- rule -----------------------------------------------------------------------------


def _rule(results: list[ViewResult], **config: object) -> Aggregate:
    return RuleAggregator.from_config(config).aggregate(results)


def test_rule_supported_when_nli_and_align_agree_and_uncertainty_is_low() -> None:
    results = [_r("nli", E, 0.8), _r("align", E, 0.75), _r("uncertainty", U, 0.1)]
    assert RuleAggregator().aggregate(results) == Aggregate(1.0, False, "rule")


def test_rule_supported_without_an_uncertainty_view() -> None:
    assert _rule([_r("nli", E, 0.8), _r("align", E, 0.9)]).score == 1.0
    abstained = [_r("nli", E, 0.8), _r("align", E, 0.9), _r("uncertainty", A, 0.9)]
    assert _rule(abstained).score == 1.0


@pytest.mark.parametrize(
    "results",
    [
        [_r("nli", E, 0.8), _r("align", E, 0.75), _r("uncertainty", U, 0.5)],
        [_r("nli", E, 0.8), _r("align", E, 0.75), _r("uncertainty", U, 0.3)],
        [_r("nli", E, 0.8)],
        [_r("nli", E, 0.8), _r("align", A, 0.9)],
        [_r("nli", E, 0.7), _r("align", E, 0.9)],
        [],
    ],
)
def test_rule_insufficient_cases(results: list[ViewResult]) -> None:
    assert RuleAggregator().aggregate(results) == Aggregate(0.5, False, "rule")


def test_rule_contradiction_by_score_from_strong_views_only() -> None:
    results = [_r("nli", E, 0.9), _r("align", E, 0.9), _r("neg", U, 0.0, contradiction=0.85)]
    assert RuleAggregator().aggregate(results) == Aggregate(0.0, True, "rule")
    assert RuleAggregator(strong={"nli"}).aggregate(results) == Aggregate(1.0, False, "rule")
    assert _rule(results, contradiction_above=0.9).score == 1.0
    # Exactly at the threshold is not above it.
    at_limit = [_r("nli", E, 0.9), _r("align", E, 0.9), _r("neg", U, 0.0, contradiction=0.8)]
    assert _rule(at_limit).score == 1.0


def test_rule_contradiction_by_verdict_from_a_strong_view() -> None:
    results = [_r("nli", E, 0.9), _r("align", E, 0.9), _r("neg", C, 0.0, contradiction=0.1)]
    assert _rule(results).contradicted
    assert not _rule(results, strong=["nli", "align"]).contradicted


def test_rule_custom_thresholds() -> None:
    aggregator = RuleAggregator.from_config(
        {"support_min": {"lex": 0.5}, "uncertainty_max": {}, "strong": ["lex"]}
    )
    assert aggregator.aggregate([_r("lex", E, 0.6)]).score == 1.0
    assert aggregator.aggregate([_r("lex", E, 0.4)]).score == 0.5
    assert aggregator.thresholds.contradiction_above == 0.8


def test_rule_thresholds_defaults_and_immutability() -> None:
    support = {"nli": 0.6}
    thresholds = RuleThresholds(support_min=support)
    support["nli"] = 0.99
    assert thresholds.support_min == {"nli": 0.6}
    assert RuleThresholds().support_min == {"nli": 0.7, "align": 0.7}
    assert RuleThresholds().uncertainty_max == {"uncertainty": 0.3}
    with pytest.raises(TypeError):
        thresholds.support_min["nli"] = 0.1  # type: ignore[index]


@pytest.mark.parametrize(
    ("config", "match"),
    [
        ({"contradiction_abve": 0.5}, r"unknown rule aggregator keys \['contradiction_abve'\]"),
        ({"contradiction_above": 1.5}, r"contradiction_above must be a number in \[0, 1\]"),
        ({"contradiction_above": "high"}, "contradiction_above"),
        ({"support_min": {"nli": -0.1}}, r"support_min\['nli'\]"),
        ({"uncertainty_max": {"uncertainty": 2}}, r"uncertainty_max\['uncertainty'\]"),
        ({"support_min": [0.5]}, "support_min must map"),
        ({"support_min": {}}, "at least one view"),
        ({"strong": "nli"}, "strong"),
    ],
)
def test_rule_config_errors(config: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        RuleAggregator.from_config(config)


# --- registry -------------------------------------------------------------------------


def test_create_aggregator_by_name(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    LearnedAggregator(["nli"], [4.0], -2.0).save(path)
    assert available_aggregators() == ["default", "learned", "rule", "vote"]
    vote = create_aggregator("vote", strong=["nli"])
    rule = create_aggregator("rule", contradiction_above=0.5)
    learned = create_aggregator("learned", path=path)
    results = [_r("nli", E, 1.0), _r("lex", C, 0.0, contradiction=0.6)]
    for aggregator in (vote, rule, learned):
        assert isinstance(aggregator, Aggregator)
    assert vote.aggregate(results) == Aggregate(0.5, False, "vote")
    assert rule.aggregate(results) == Aggregate(0.0, True, "rule")
    assert learned.aggregate(results).score == pytest.approx(1 / (1 + math.exp(-2.0)))
    overridden = create_aggregator("learned", path=path, strong={"nli"})
    assert not overridden.aggregate(results).contradicted
    assert learned.aggregate(results).contradicted


@pytest.mark.parametrize(
    ("name", "options", "match"),
    [
        ("median", {},
         "unknown aggregator 'median'; known aggregators: default, learned, rule, vote"),
        ("learned", {}, "needs path="),
        ("vote", {"threshold": 0.5}, r"unknown options \['threshold'\]"),
        ("learned", {"path": "x", "l2": 1.0}, r"unknown options \['l2'\]"),
    ],
)
def test_create_aggregator_errors(name: str, options: dict[str, object], match: str) -> None:
    with pytest.raises(VeritypeError, match=match):
        create_aggregator(name, **options)


def test_a_veto_needs_its_quorum_of_sure_strong_views() -> None:
    from veritype.aggregate import Veto

    one = LearnedAggregator(["nli", "align"], [0.0] * 3, 0.0, strong={"nli", "align"})
    two = one.with_settings(veto=Veto(quorum=2))
    sure = one.with_settings(veto=Veto(quorum=1, floor=0.9))
    never = one.with_settings(veto=None)
    lone = [ViewResult("nli", Verdict.CONTRADICTED, 0.1, 0.8),
            ViewResult("align", Verdict.ENTAILED, 0.9, 0.0)]
    both = [ViewResult("nli", Verdict.CONTRADICTED, 0.1, 0.8),
            ViewResult("align", Verdict.CONTRADICTED, 0.1, 0.95)]
    only_voter = [ViewResult("nli", Verdict.CONTRADICTED, 0.1, 0.8),
                  ViewResult("align", Verdict.ABSTAINED, 0.0, 0.0)]
    assert one.aggregate(lone).contradicted
    assert not two.aggregate(lone).contradicted
    assert two.aggregate(both).contradicted
    assert two.aggregate(only_voter).contradicted  # fewer voters than the quorum: all of them
    assert not sure.aggregate(lone).contradicted and sure.aggregate(both).contradicted
    assert not never.aggregate(both).contradicted
    with pytest.raises(ValueError, match="veto quorum"):
        Veto(quorum=0)
    with pytest.raises(ValueError, match="unknown settings"):
        one.with_settings(quorum=2)


def test_a_view_vetoes_at_its_own_floor() -> None:
    from veritype.aggregate import Veto

    veto = Veto(1, 1.0, ("numeric", "align"), (("numeric", 0.6), ("align", 0.9)))
    model = LearnedAggregator(["nli", "align"], [0.0] * 3, 0.0, veto=veto)
    sure_rule = [ViewResult("numeric", Verdict.CONTRADICTED, 0.0, 0.7)]
    unsure_model = [ViewResult("align", Verdict.CONTRADICTED, 0.1, 0.8)]
    sure_model = [ViewResult("align", Verdict.CONTRADICTED, 0.0, 0.95)]
    # nli may say contradicted as surely as it likes: it is not a vetoing view.
    unlisted = [ViewResult("nli", Verdict.CONTRADICTED, 0.0, 0.99)]
    assert model.aggregate(sure_rule).contradicted and model.aggregate(sure_model).contradicted
    assert not model.aggregate(unsure_model).contradicted
    assert not model.aggregate(unlisted).contradicted
    again = LearnedAggregator.from_json(model.to_json())
    assert again.veto == veto and again.veto.floor_of("align") == 0.9
    with pytest.raises(ValueError, match="veto floor"):
        Veto(1, 0.5, ("nli",), (("nli", 1.5),))


def test_thresholds_and_veto_survive_the_json_round_trip() -> None:
    from veritype.aggregate import Veto

    model = LearnedAggregator(["nli", "nli.not_contradicted"], [1.0, 2.0, 0.5], -1.0,
                              thresholds=(0.7, 0.2), veto=Veto(2, 0.9))
    again = LearnedAggregator.from_json(model.to_json())
    assert again.thresholds == (0.7, 0.2) and again.veto == Veto(2, 0.9)
    assert LearnedAggregator.from_json(model.with_settings(veto=None).to_json()).veto is None
    # The derived feature reads 1 − the view's contradiction score.
    results = [ViewResult("nli", Verdict.UNKNOWN, 0.4, 0.25)]
    expected = 1.0 / (1.0 + math.exp(-(0.4 + 2.0 * 0.75 + 0.5 * 0.4 * 0.75 - 1.0)))
    assert again.aggregate(results).score == pytest.approx(expected)


def test_the_default_aggregator_ships_with_its_thresholds() -> None:
    from veritype.aggregate import (
        DEFAULT_VIEWS,
        CalibratedAggregator,
        recommended_thresholds,
        views_read,
    )

    model = create_aggregator("default")
    tau, tau_low = recommended_thresholds(model)
    assert 0.0 <= tau_low < tau <= 1.0
    assert isinstance(model, CalibratedAggregator)
    # The views run when none are named are those the default reads, and numeric to explain.
    assert views_read(model.view_names) | {"numeric"} == set(DEFAULT_VIEWS)


def test_citations_prefer_the_windows_a_model_view_found_entailing() -> None:
    window = Span("d1", "d1#0", 0, 80)
    inside = Span("d1", "d1#0", 10, 40)
    elsewhere = Span("d1", "d1#0", 100, 140)
    results = [ViewResult("nli", Verdict.ENTAILED, 0.9, spans=(window,)),
               ViewResult("lexical", Verdict.ENTAILED, 0.8, spans=(inside,)),
               ViewResult("numeric", Verdict.ENTAILED, 1.0, spans=(elsewhere,))]
    assert evidence_union(results) == (window, inside, elsewhere)
    assert evidence_union(results, preferred={"nli"}) == (window, inside)
    # No preferred view entailed: every entailing view's spans, as before.
    assert evidence_union(results[1:], preferred={"nli"}) == (inside, elsewhere)


def _staged() -> StagedAggregator:
    first = LearnedAggregator(["nli"], [4.0], -2.0, thresholds=(0.8, 0.3), veto=Veto(),
                              strong={"nli"}, products=False)
    second = LearnedAggregator(["nli", "judge"], [1.0, 6.0], -4.0, products=False)
    return StagedAggregator(first, second, "judge")


def test_the_judge_lifts_only_borderline_claims_and_never_lowers_them() -> None:
    staged = _staged()
    judged = ViewResult("judge", Verdict.ENTAILED, 0.95)
    doubted = ViewResult("judge", Verdict.UNKNOWN, 0.05)
    borderline = [_r("nli", U, 0.5)]  # first stage: sigmoid(0) = 0.5, Uncertain
    sure = [_r("nli", E, 1.0)]  # sigmoid(2) = 0.88, already Verified
    lifted = staged.aggregate([*borderline, judged])
    assert lifted.method == "learned+judge"
    assert lifted.score == pytest.approx(1 / (1 + math.exp(-(0.5 + 6 * 0.95 - 4))))
    assert lifted.score >= 0.8
    # A "no" keeps the first stage's score, so the claim stays Uncertain.
    assert staged.aggregate([*borderline, doubted]) == staged.first.aggregate(borderline)
    # Claims the first stage settles, or a judge that abstained, are left alone.
    assert staged.aggregate([*sure, doubted]) == staged.first.aggregate(sure)
    abstained = ViewResult("judge", Verdict.ABSTAINED, 0.0)
    assert staged.aggregate([*borderline, abstained]).method == "learned"
    contradicted = [_r("nli", C, 0.5, contradiction=0.9), judged]
    assert staged.aggregate(contradicted).contradicted
    # One claim scores the same alone as in a batch.
    batch = [[*borderline, judged], [*borderline, doubted], [*sure, judged]]
    assert staged.aggregate_batch(batch) == [staged.aggregate(claim) for claim in batch]


def test_a_staged_aggregator_round_trips_and_loads_by_name(tmp_path: Path) -> None:
    from veritype.aggregate import load_fitted, recommended_thresholds

    staged = _staged()
    path = tmp_path / "staged.json"
    staged.save(path)
    again = load_fitted(path)
    assert isinstance(again, StagedAggregator)
    assert again.to_json() == staged.to_json()
    assert recommended_thresholds(again) == (0.8, 0.3)
    learned = create_aggregator("learned", path=path, strong=["nli", "judge"])
    assert isinstance(learned, StagedAggregator) and learned.strong == {"nli", "judge"}
    with pytest.raises(VeritypeError, match="must read the 'judge' view"):
        StagedAggregator(staged.first, staged.first, "judge")
    with pytest.raises(VeritypeError, match="needs thresholds"):
        StagedAggregator(staged.first.with_settings(thresholds=None), staged.second, "judge")
    broken = json.loads(staged.to_json())
    broken["second"]["weights"] = [1.0]
    path.write_text(json.dumps(broken))
    with pytest.raises(VeritypeError, match="2 views need 2 weights"):
        load_fitted(path)


def test_with_a_sink_the_judges_clear_no_makes_a_borderline_claim_unsupported(
        tmp_path: Path) -> None:
    from veritype.aggregate import load_fitted
    from veritype.graph import EvidenceType
    from veritype.thresholds import Thresholds, type_claim

    plain = _staged()
    sinking = StagedAggregator(plain.first, plain.second, "judge", sink=0.1)
    borderline = [_r("nli", U, 0.5)]
    doubted = ViewResult("judge", Verdict.UNKNOWN, 0.05)  # second: sigmoid(-3.2) = 0.04
    unsure = ViewResult("judge", Verdict.UNKNOWN, 0.4)  # second: sigmoid(-1.1) = 0.25
    sunk = sinking.aggregate([*borderline, doubted])
    assert sunk.method == "learned+judge" and sunk.score <= 0.1
    assert type_claim(sunk.score, contradicted=sunk.contradicted,
                      thresholds=Thresholds(0.8, 0.3)) is EvidenceType.UNSUPPORTED
    # Between the sink and τ the first stage's score stands: still Uncertain.
    assert sinking.aggregate([*borderline, unsure]) == plain.first.aggregate(borderline)
    path = tmp_path / "sinking.json"
    sinking.save(path)
    again = load_fitted(path)
    assert isinstance(again, StagedAggregator) and again.sink == 0.1
    with pytest.raises(VeritypeError, match="sink must be a score in"):
        StagedAggregator(plain.first, plain.second, "judge", sink=0.3)
