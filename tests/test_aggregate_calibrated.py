"""The calibrated aggregator: two scores, abstaining views cast no vote, a contradiction never
raises support, decisive rules, heads, and its JSON."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from veritype.aggregate import (
    CalibratedAggregator,
    Decisive,
    Head,
    Logistic,
    create_aggregator,
    load_fitted,
)
from veritype.errors import ConfigurationError
from veritype.graph import EvidenceType
from veritype.thresholds import Thresholds, type_claim
from veritype.train.aggregator import fit_logistic
from veritype.views import Verdict, ViewResult

pytestmark = pytest.mark.core

# Over log-odds of the views' scores (a view that did not vote reads 0).
SUPPORT = Logistic(("nli.entailment", "nli.contradiction", "numeric.entailed",
                    "numeric.contradicted"), (1.0, -0.8, 1.0, -2.0), -1.0)
CONTRADICTION = Logistic(("nli.contradiction", "nli.entailment", "numeric.contradicted"),
                         (1.0, -0.5, 2.0), -1.0)


def model(**settings: object) -> CalibratedAggregator:
    options: dict[str, object] = {"thresholds": (0.8, 0.2), "kappa": 0.9, **settings}
    return CalibratedAggregator([Head((), SUPPORT, CONTRADICTION)], **options)  # type: ignore[arg-type]


def nli(entail: float, contra: float) -> ViewResult:
    verdict = (Verdict.CONTRADICTED if contra > 0.6 else Verdict.ENTAILED if entail >= 0.5
               else Verdict.UNKNOWN)
    return ViewResult("nli", verdict, entail, contra)


def typed(aggregator: CalibratedAggregator, results: list[ViewResult]) -> EvidenceType:
    aggregate = aggregator.aggregate(results)
    return type_claim(aggregate.score, contradicted=aggregate.contradicted,
                      thresholds=Thresholds(*aggregator.thresholds))


def test_all_three_types_are_reachable() -> None:
    aggregator = model()
    assert typed(aggregator, [nli(0.99, 0.0)]) is EvidenceType.VERIFIED
    assert typed(aggregator, [nli(0.5, 0.2)]) is EvidenceType.UNCERTAIN
    assert typed(aggregator, [nli(0.02, 0.05)]) is EvidenceType.UNSUPPORTED
    contradicted = aggregator.aggregate([nli(0.01, 0.99)])
    assert contradicted.contradicted and contradicted.contradiction is not None
    assert contradicted.contradiction > 0.9


def test_an_abstaining_view_casts_no_vote() -> None:
    aggregator = model()
    alone = aggregator.aggregate([nli(0.7, 0.1)])
    abstained = aggregator.aggregate([nli(0.7, 0.1), ViewResult.abstained("numeric", "none")])
    assert abstained.score == alone.score
    assert abstained.contradiction == alone.contradiction


def test_a_contradiction_never_raises_support() -> None:
    aggregator = model()
    scores = [aggregator.aggregate([nli(0.6, c)]).score for c in np.linspace(0, 1, 11)]
    assert all(later <= earlier for earlier, later in itertools.pairwise(scores))
    number_found = aggregator.aggregate([nli(0.6, 0.1), ViewResult("numeric", Verdict.ENTAILED,
                                                                   1.0)])
    number_wrong = aggregator.aggregate([nli(0.6, 0.1), ViewResult(
        "numeric", Verdict.CONTRADICTED, 0.0, 0.9)])
    assert number_wrong.score < aggregator.aggregate([nli(0.6, 0.1)]).score < number_found.score


def test_a_decisive_rule_types_unsupported_alone() -> None:
    wrong_number = ViewResult("numeric", Verdict.CONTRADICTED, 0.0, 0.8,
                              detail="claim says 300 metres, evidence says 330 metres")
    plain = model()
    ruled = model(decisive=[Decisive("numeric", 0.7)])
    assert not plain.aggregate([nli(0.95, 0.0), wrong_number]).contradicted
    assert ruled.aggregate([nli(0.95, 0.0), wrong_number]).contradicted
    weakly_aligned = ViewResult("numeric", Verdict.CONTRADICTED, 0.0, 0.5)
    assert not ruled.aggregate([nli(0.95, 0.0), weakly_aligned]).contradicted


def test_the_first_head_whose_views_voted_scores_the_claim() -> None:
    judge_head = Head(("judge",), Logistic(("judge.entailment",), (1.5,), 0.0),
                      Logistic((), (), -30.0))
    aggregator = CalibratedAggregator([judge_head, Head((), SUPPORT, CONTRADICTION)],
                                      thresholds=(0.8, 0.2), kappa=0.9)
    borderline = [nli(0.5, 0.2)]
    yes = aggregator.aggregate([*borderline, ViewResult("judge", Verdict.ENTAILED, 0.99)])
    no = aggregator.aggregate([*borderline, ViewResult("judge", Verdict.UNKNOWN, 0.01)])
    assert yes.score > 0.95 and no.score < 0.05
    # The judge moves a claim either way; without its vote the fallback head decides.
    assert aggregator.aggregate(borderline).score == model().aggregate(borderline).score
    with pytest.raises(ConfigurationError, match="last head"):
        CalibratedAggregator([judge_head], thresholds=(0.8, 0.2), kappa=0.9)


def test_json_round_trip_keeps_predictions(tmp_path: Path) -> None:
    aggregator = model(decisive=[Decisive("numeric", 0.7)])
    path = tmp_path / "calibrated.json"
    aggregator.save(path)
    loaded = load_fitted(path)
    assert isinstance(loaded, CalibratedAggregator)
    claims = [[nli(e, c)] for e in (0.1, 0.5, 0.9) for c in (0.0, 0.5, 0.95)]
    assert loaded.aggregate_batch(claims) == aggregator.aggregate_batch(claims)
    via_registry = create_aggregator("learned", path=str(path))
    assert via_registry.aggregate_batch(claims) == aggregator.aggregate_batch(claims)


@pytest.mark.parametrize(("text", "match"), [
    ('{"format": "veritype.calibrated-aggregator", "version": 9}', "version"),
    ('{"format": "veritype.calibrated-aggregator", "version": 1, "heads": []}', "keys"),
    ('{"format": "veritype.calibrated-aggregator", "version": 1, "heads": [], '
     '"thresholds": [0.8, 0.2], "kappa": 0.9, "decisive": []}', "at least one head"),
    ('{"format": "veritype.calibrated-aggregator", "version": 1, "heads": [{"requires": [], '
     '"support": {"features": ["nli.bogus"], "weights": [1], "bias": 0}, "contradiction": '
     '{"features": [], "weights": [], "bias": 0}}], "thresholds": [0.8, 0.2], "kappa": 0.9, '
     '"decisive": []}', "feature"),
])
def test_malformed_files_are_refused_with_a_reason(tmp_path: Path, text: str, match: str
                                                   ) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=match):
        load_fitted(path)


def test_fitting_keeps_every_weight_on_its_allowed_side() -> None:
    rng = np.random.default_rng(0)
    entail = rng.uniform(size=400)
    # A contradiction score that, on this data, goes with support: an unconstrained fit
    # would give it a positive weight.
    contra = np.clip(entail * 0.5 + rng.normal(0, 0.05, 400), 0, 1)
    labels = rng.uniform(size=400) < entail
    names = ["nli.entailment", "nli.contradiction"]
    fitted = fit_logistic(np.column_stack([entail, contra]), labels, names, +1)
    assert fitted.weights[0] > 0 and fitted.weights[1] == 0.0
    contradiction = fit_logistic(np.column_stack([entail, contra]), ~labels, names, -1)
    assert contradiction.weights[0] <= 0 and contradiction.weights[1] >= 0


def test_a_claim_no_view_found_stated_cannot_be_verified() -> None:
    aggregator = model()
    # No contradiction and a high support score, yet no view said entailed: nothing to cite.
    unstated = [ViewResult("nli", Verdict.UNKNOWN, 0.45, 0.0)]
    assert aggregator.probabilities([unstated])[0][0] > 0.8
    assert aggregator.aggregate(unstated).score <= aggregator.thresholds[1]
    assert typed(aggregator, unstated) is EvidenceType.UNSUPPORTED
    assert typed(aggregator, [nli(0.99, 0.0)]) is EvidenceType.VERIFIED


def test_a_costly_view_is_asked_only_inside_the_ask_band() -> None:
    from veritype.budget import Budget, run_views
    from veritype.claims import Claim
    from veritype.evidence import EvidencePack
    from veritype.graph import BeliefGraph

    aggregator = model(ask=(0.1, 0.95))
    assert aggregator.ask == (0.1, 0.95)
    # Verified (P ≥ τ = 0.8) but below the band's top: still asked.
    assert aggregator.unsettled([nli(0.9, 0.3)])
    assert not aggregator.unsettled([nli(0.999, 0.0)])
    assert not aggregator.unsettled([nli(0.001, 0.99)])  # contradicted: decided
    # A claim no view cites is held at τ' (here the band's low end) but asked by its P
    # before the hold: the costly view may find the span to cite.
    held = model(thresholds=(0.8, 0.1), ask=(0.1, 0.95))
    unstated = [ViewResult("nli", Verdict.UNKNOWN, 0.02, 0.0)]
    assert held.aggregate(unstated).score == 0.1 < held.probabilities([unstated])[0][0] < 0.95
    assert held.unsettled(unstated)
    # Without a band, only the Uncertain claims are asked.
    assert not model().unsettled([nli(0.9, 0.3)])
    assert CalibratedAggregator.from_json(aggregator.to_json()).ask == (0.1, 0.95)
    with pytest.raises(ConfigurationError, match="ask must be"):
        model(ask=(0.5, 0.9))

    class Asked:
        """A costly view that records the claims it is asked about."""

        name, cost, strong, borderline_only = "judge", 5.0, False, True

        def __init__(self) -> None:
            self.asked: list[str] = []

        def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
            return self.verify_batch([claim], [evidence])[0]

        def verify_batch(self, claims: list[Claim], packs: list[EvidencePack]
                         ) -> list[ViewResult]:
            self.asked += [claim.claim_id for claim in claims]
            return [ViewResult("judge", Verdict.ENTAILED, 0.9) for _ in claims]

    class Fixed:
        name, cost, strong = "nli", 1.0, True

        def __init__(self, results: dict[str, ViewResult]) -> None:
            self.results = results

        def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
            return self.results[claim.claim_id]

        def verify_batch(self, claims: list[Claim], packs: list[EvidencePack]
                         ) -> list[ViewResult]:
            return [self.results[claim.claim_id] for claim in claims]

    claims = [Claim(f"c{i}", f"Claim {i}.") for i in range(3)]
    pack = EvidencePack.from_texts(["Some evidence."])
    judge = Asked()
    graph = BeliefGraph.from_claims(claims, [])
    encoder = Fixed({"c0": nli(0.9, 0.3), "c1": nli(0.999, 0.0), "c2": nli(0.001, 0.99)})
    run_views(graph, {c.claim_id: pack for c in claims}, [encoder, judge],  # type: ignore[list-item]
              aggregator=aggregator, thresholds=Thresholds(0.8, 0.2), budget=Budget())
    assert judge.asked == ["c0"]
