"""Fitting the default aggregator: training-side sources only, each wholly held out in turn,
weights on their allowed sides, thresholds that mean what they say, and a default at least as
good as its best single view."""

import json
from pathlib import Path

import numpy as np
import pytest

from veritype.aggregate import (
    CalibratedAggregator,
    load_fitted,
)
from veritype.aggregate._calibrated import SUPPORT_SIGN, split_feature
from veritype.errors import DataError
from veritype.evaluation.data import Example
from veritype.train._baselines import net_right
from veritype.train._selection import precise_tau, precise_tau_low
from veritype.train.aggregator import lowest_precise_floor
from veritype.train.fitting_data import (
    CONTRADICTED,
    READ_BY,
    SOURCES,
    fitting_examples,
    perturbed_examples,
)
from veritype.train.judge_head import borderline_sample

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
CANDIDATE = RESULTS / "calibrated_aggregator"
# What `veritype train aggregator --per-source 400` fits now: τ and τ' at 95% precision.
THREE_TYPES = RESULTS / "candidate_three_types"


def test_the_fitted_candidate_keeps_every_weight_on_its_side() -> None:
    model = load_fitted(CANDIDATE / "aggregator.json")
    assert isinstance(model, CalibratedAggregator)
    for head in model.heads:
        for logistic, sign in ((head.support, +1), (head.contradiction, -1)):
            for name, weight in zip(logistic.features, logistic.weights, strict=True):
                assert weight * sign * SUPPORT_SIGN[split_feature(name)[1]] >= 0, name


def test_the_shipped_default_is_the_fitted_model_and_its_card_is_the_fits() -> None:
    from veritype.aggregate import DEFAULT_AGGREGATOR

    # The fit's model and card, but for τ': it is the lower end of the fit's ask band, the
    # highest P(supported) at which Unsupported is 95% precise in every fitting source.
    shipped = json.loads(DEFAULT_AGGREGATOR.read_text())
    fitted = json.loads((CANDIDATE / "aggregator.json").read_text())
    assert shipped["thresholds"] == [fitted["thresholds"][0], fitted["ask"][0]]
    assert {**shipped, "thresholds": fitted["thresholds"]} == fitted
    card = (DEFAULT_AGGREGATOR.parent / "model_card.md").read_text()
    fitted_card = (CANDIDATE / "model_card.md").read_text()
    assert f"τ' = {fitted['ask'][0]};" in card
    data = "## Data: training-side only"
    assert card[card.index(data):] == fitted_card[fitted_card.index(data):]
    report = json.loads((CANDIDATE / "fit_report.json").read_text())
    for view, rule in report["rules"].items():
        # Judged only where the view never read the data.
        assert not set(rule["judged_on"]) & READ_BY.get(view, set())


def test_a_rule_is_precise_only_where_every_source_it_fires_in_agrees() -> None:
    sources = np.array(["a"] * 1000 + ["b"] * 40)
    truth = np.array([False] * 1000 + [True] * 10 + [False] * 30)
    scores = np.array([0.6] * 500 + [0.9] * 500 + [0.6] * 20 + [0.9] * 10 + [0.98] * 10)
    floor, table = lowest_precise_floor(scores, np.ones(1040, dtype=bool), truth, sources,
                                        (0.6, 0.9, 0.98))
    # Pooled, 0.6 is precise (1,000 claims at 1.0 outweigh 40 at 0.75); per source it is not.
    assert table[0]["precision"] > 0.95
    assert table[0]["per_source"]["b"]["precision"] == pytest.approx(30 / 40)
    # At 0.9, source b fires 20 times, all unsupported.
    assert floor == 0.9


def test_a_candidate_is_judged_only_where_its_views_never_read_the_data() -> None:
    loso = json.loads((THREE_TYPES / "fit_report.json").read_text())["leave_one_source_out"]
    for result in loso.values():
        seen = set().union(*(READ_BY.get(view, set()) for view in result["views"]))
        for source, figures in result["per_source"].items():
            assert ("balanced_accuracy" not in figures) == (source in seen)
        assert result["eligible"] == (not seen)
    assert loso["numeric, lexical, nli"]["eligible"]


def test_the_default_types_at_least_as_well_as_its_best_single_view_held_out() -> None:
    report = json.loads((THREE_TYPES / "fit_report.json").read_text())
    loso, chosen = report["leave_one_source_out"], report["chosen"]
    eligible = [r for r in loso.values() if r["eligible"]]
    assert loso[chosen["candidate"]]["eligible"]
    assert loso[chosen["candidate"]]["mean_net_right"] >= max(
        r["mean_net_right"] for r in eligible if len(r["views"]) == 1)
    # And above the trivial baselines, averaged over the held-out sources.
    baselines = report["data"]["per_source"]
    assert loso[chosen["candidate"]]["mean_net_right"] > max(
        np.mean([b["verbatim_net_right"] for b in baselines.values()]), 0.0)


def test_tau_is_the_lowest_support_verified_at_95_percent_in_every_source() -> None:
    support = np.tile(np.linspace(0.0, 1.0, 40), 2)
    truth = support >= 0.5
    truth[40 + 27] = truth[40 + 28] = False  # two unsupported claims at 0.69 and 0.72 in b
    sources = np.array(["a"] * 40 + ["b"] * 40)
    blocked = np.zeros(80, dtype=bool)
    # Source a alone would take 0.51; source b's Verified are 95% supported only above 0.72.
    assert precise_tau(support, blocked, truth, sources) == pytest.approx(29 / 39, abs=1e-4)
    # A contradiction-blocked claim is never Verified, so it does not raise τ: now it is
    # 0.49, where 20 of source a's 21 Verified claims are supported (95.2%).
    blocked[40 + 27] = blocked[40 + 28] = True
    assert precise_tau(support, blocked, truth, sources) == pytest.approx(19 / 39, abs=1e-4)


def test_tau_low_holds_its_precision_in_every_source_and_leaves_a_band() -> None:
    support = np.array([0.05, 0.1, 0.2, 0.3, 0.05, 0.1, 0.2, 0.3] * 5)
    truth = np.array([False, False, True, True, False, False, False, True] * 5)
    sources = np.array((["a"] * 4 + ["b"] * 4) * 5)
    blocked = np.zeros(40, dtype=bool)
    # Up to 0.1 every source's claims are unsupported; at 0.2 source a's are not.
    assert precise_tau_low(support, blocked, truth, sources, tau=0.9) == 0.1
    # τ' stays below τ, and too few claims to measure a precision decide nothing.
    assert precise_tau_low(support, blocked, truth, sources, tau=0.1) == 0.0


def test_uncertain_is_neither_right_nor_wrong_and_a_wrong_type_cancels_a_right_one() -> None:
    supported = np.array([True, True, False, False])
    deciding_all_wrongly_once = net_right(np.array([True, True, True, False]),
                                          np.array([False, False, False, True]), supported)
    leaving_it_uncertain = net_right(np.array([True, True, False, False]),
                                     np.array([False, False, False, True]), supported)
    assert leaving_it_uncertain == 0.75
    assert deciding_all_wrongly_once == 0.5


def test_a_rule_decides_only_at_a_floor_precise_in_every_source() -> None:
    scores = np.array([0.6] * 40 + [0.9] * 40)
    fired = np.ones(80, dtype=bool)
    truth = np.array([True] * 10 + [False] * 30 + [False] * 40)
    sources = np.array(["a", "b"] * 40)
    floor, table = lowest_precise_floor(scores, fired, truth, sources, (0.5, 0.8, 1.0))
    assert floor == 0.8
    assert table[0]["precision"] == pytest.approx(70 / 80)
    assert table[2]["fired"] == 0


def test_perturbations_keep_their_labels() -> None:
    documents = [
        "The Eiffel Tower opened in Paris in 1889 after two years of work. The tower is 330 "
        "metres tall and was the tallest structure in the world until 1930.",
        "The Golden Gate Bridge opened to traffic on May 27, 1937, after four years of work. "
        "Its main span is 1,280 metres long and it is painted International Orange.",
    ]
    examples = perturbed_examples(documents, seed=1)
    kinds = {(e.group, e.meta["kind"]): e for e in examples}
    for (_, kind), example in kinds.items():
        if kind == "copy":
            assert example.claim in example.evidence[0] and example.label == "supported"
        if kind in ("value", "negation", "swap"):
            assert example.claim not in example.evidence[0] and example.label == CONTRADICTED
        if kind == "unmentioned":
            assert example.claim not in example.evidence[0]
    # A swapped name is one the same document holds for something else.
    swaps = [e for e in examples if e.meta["kind"] == "swap"]
    assert swaps
    for example in swaps:
        copy = kinds[(example.group, "copy")].claim
        added = set(example.claim.rstrip(".").split()) - set(copy.rstrip(".").split())
        assert added and all(word in example.evidence[0] for word in added)


def test_the_judge_sample_takes_as_many_borderline_claims_from_each_source() -> None:
    examples = [Example(f"e{i}", f"g{i}", ("evidence",), "claim", "supported")
                for i in range(300)]
    sources = np.array(["a"] * 200 + ["b"] * 100)
    borderline = np.arange(300) % 2 == 0
    rows = borderline_sample(examples, borderline, sources, 60, seed=0)
    assert len(rows) == 60 and np.all(borderline[rows])
    assert np.sum(sources[rows] == "a") == np.sum(sources[rows] == "b") == 30
    assert np.array_equal(rows, borderline_sample(examples, borderline, sources, 60, seed=0))


@pytest.mark.slow
def test_fitting_examples_come_from_training_side_rows_only(data_dir: Path) -> None:
    examples = fitting_examples(data_dir)
    assert {example.meta["source"] for example in examples} == set(SOURCES)
    rows = [int(e.example_id.split("-")[1]) for e in examples
            if e.meta["source"] == "halueval_qa"]
    assert min(rows) >= 6000 and max(rows) < 6750  # rows >= 8000 evaluate
    dialogue = fitting_examples(data_dir, sources=["dialogue"])
    rows = [int(e.example_id.split("-")[1]) for e in dialogue]
    assert min(rows) >= 4000 and max(rows) < 5500  # align read rows < 4000; >= 7000 evaluate
    summaries = fitting_examples(data_dir, sources=["summarization"])
    rows = [int(e.example_id.split("-")[1]) for e in summaries]
    assert min(rows) >= 4000 and max(rows) < 4600
    # A group never spans two sources, so leaving a source out leaves it wholly unseen.
    groups: dict[str, set[str]] = {}
    for example in examples:
        groups.setdefault(example.group, set()).add(example.meta["source"])
    assert all(len(sources) == 1 for sources in groups.values())
    labels = {e.meta["source"]: set() for e in examples}
    for example in examples:
        labels[example.meta["source"]].add(example.label)
    assert labels["perturbed"] == {"supported", "contradicted", "unsupported"}
    assert labels["covidfact"] == {"supported", "contradicted"}


def test_a_sample_per_source_caps_each_source_and_keeps_the_order() -> None:
    from veritype.train.fitting_data import sample_per_source

    examples = [Example(f"q{i}", f"g{i}", ("evidence",), f"claim {i}", "supported",
                        meta={"source": "a" if i < 30 else "b"}) for i in range(40)]
    sampled = sample_per_source(examples, 12)
    sources = [e.meta["source"] for e in sampled]
    assert sources.count("a") == 12 and sources.count("b") == 10
    assert sampled == sorted(sampled, key=examples.index)
    assert sample_per_source(examples, 12) == sampled


def test_a_reused_judge_head_types_the_judged_claims_as_it_did_at_the_old_tau() -> None:
    from veritype.aggregate._calibrated import Head, Logistic
    from veritype.train.judge_head import reused_judge_head
    from veritype.views import Verdict, ViewResult

    encoders = Head((), Logistic(("nli.entailment",), (1.0,), 0.0),
                    Logistic(("nli.contradiction",), (1.0,), -3.0))
    judge = Head(("judge",), Logistic(("judge.entailment",), (0.5,), 0.0),
                 Logistic((), (), -30.0))
    previous = CalibratedAggregator([judge, encoders], thresholds=(0.45, 0.4499), kappa=0.9)
    refitted = CalibratedAggregator([encoders], thresholds=(0.8, 0.1), kappa=0.9)
    model, report = reused_judge_head(refitted, previous, "previous.json")
    assert report["fitted_at_tau"] == 0.45 and model.thresholds == (0.8, 0.1)
    for p_yes in (0.2, 0.45, 0.6, 0.9):
        votes = [ViewResult("nli", Verdict.UNKNOWN, 0.5, 0.1),
                 ViewResult("judge", Verdict.ENTAILED, p_yes)]
        before = previous.aggregate(votes).score >= 0.45
        after = model.aggregate(votes).score >= 0.8
        assert before == after, p_yes
    with pytest.raises(DataError, match="no judge head"):
        reused_judge_head(refitted, refitted, "refitted.json")
