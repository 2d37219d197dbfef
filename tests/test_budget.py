from collections.abc import Sequence

import pytest

from veritype.aggregate import LearnedAggregator, VoteAggregator
from veritype.budget import Budget, run_views
from veritype.claims import Claim, ClaimClass
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph
from veritype.thresholds import Thresholds
from veritype.views import LexicalSupportView, NumericConsistencyView, Verdict, ViewResult

EVIDENCE = EvidencePack.from_texts(
    ["The tower is 330 metres tall. The tower opened in Paris in 1889. Bread is baked daily."]
)


class CountingView:
    """Wraps a real view and records which claims it was asked about."""

    def __init__(self, inner: NumericConsistencyView | LexicalSupportView, cost: float) -> None:
        self.inner, self.name, self.cost, self.strong = inner, inner.name, cost, inner.strong
        self.seen: list[str] = []

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        return self.verify_batch([claim], [evidence])[0]

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        self.seen.extend(claim.claim_id for claim in claims)
        return self.inner.verify_batch(claims, evidence)


def graph_of(*texts: str) -> BeliefGraph:
    return BeliefGraph.from_claims(Claim(f"c{i + 1}", t) for i, t in enumerate(texts))


def test_cheap_view_runs_first_and_settled_claims_stop_early() -> None:
    graph = graph_of("The tower is 300 metres tall.", "The tower opened in Paris in 1889.")
    numeric = CountingView(NumericConsistencyView(), cost=0.5)
    lexical = CountingView(LexicalSupportView(), cost=1.0)
    spend = run_views(
        graph,
        {n.claim.claim_id: EVIDENCE for n in graph},
        [lexical, numeric],
        aggregator=VoteAggregator(),
        thresholds=Thresholds(),
    )
    assert numeric.seen == ["c1", "c2"]
    # c1 is contradicted by the cheap numeric view, so the lexical view never sees it.
    assert lexical.seen == ["c2"]
    assert spend.calls == 3 and spend.saved_by_early_stop == 1 and spend.spent == 2.0
    assert [r.view for r in graph.node("c2").results] == ["numeric", "lexical"]


def test_a_claim_headed_for_verified_still_meets_every_strong_view() -> None:
    graph = graph_of("The tower opened in Paris in 1889.")
    numeric = CountingView(NumericConsistencyView(), cost=0.5)
    lexical = CountingView(LexicalSupportView(), cost=1.0)
    run_views(
        graph,
        {"c1": EVIDENCE},
        [numeric, lexical],
        aggregator=VoteAggregator(),
        thresholds=Thresholds(tau=0.5, tau_low=0.2),
    )
    assert lexical.seen == ["c1"]


def test_early_stop_can_be_disabled() -> None:
    graph = graph_of("The tower is 300 metres tall.")
    lexical = CountingView(LexicalSupportView(), cost=1.0)
    run_views(
        graph,
        {"c1": EVIDENCE},
        [NumericConsistencyView(), lexical],
        aggregator=VoteAggregator(),
        thresholds=Thresholds(),
        budget=Budget(early_stop=False),
    )
    assert lexical.seen == ["c1"]


def test_budget_goes_to_the_highest_priority_claims() -> None:
    graph = BeliefGraph.from_claims(
        [
            Claim("c1", "Bread is baked daily in Paris."),
            Claim("c2", "The tower is taller than 300 metres.", ClaimClass.COMPARATIVE),
            Claim("c3", "It is made of iron."),
        ],
        [("c2", "c3")],
    )
    lexical = CountingView(LexicalSupportView(), cost=1.0)
    spend = run_views(
        graph,
        {n.claim.claim_id: EVIDENCE for n in graph},
        [lexical],
        aggregator=VoteAggregator(),
        thresholds=Thresholds(),
        budget=Budget(limit=1.0),
    )
    assert lexical.seen == ["c2"]
    assert spend.cut_by_budget == 2 and spend.spent == 1.0
    assert graph.node("c1").results == []


def test_learned_aggregator_disables_mass_based_early_stop() -> None:
    graph = graph_of("The tower opened in Paris in 1889.")
    lexical = CountingView(LexicalSupportView(), cost=1.0)
    aggregator = LearnedAggregator(["numeric", "lexical"], [1.0, 1.0, 0.0], 0.0)
    run_views(
        graph,
        {"c1": EVIDENCE},
        [NumericConsistencyView(), lexical],
        aggregator=aggregator,
        thresholds=Thresholds(tau=0.5, tau_low=0.1),
    )
    assert lexical.seen == ["c1"]
    assert graph.node("c1").results[0].verdict is Verdict.ENTAILED


def test_bad_arguments() -> None:
    graph = graph_of("The tower is tall.")
    with pytest.raises(ValueError, match="no evidence pack for claims: c1"):
        run_views(
            graph, {}, [LexicalSupportView()], aggregator=VoteAggregator(), thresholds=Thresholds()
        )
    with pytest.raises(ValueError, match="duplicate names"):
        run_views(
            graph,
            {"c1": EVIDENCE},
            [LexicalSupportView(), LexicalSupportView()],
            aggregator=VoteAggregator(),
            thresholds=Thresholds(),
        )
    with pytest.raises(ValueError, match="budget limit"):
        Budget(limit=-1)


def test_a_borderline_only_view_is_asked_only_about_uncertain_claims() -> None:
    # Lexical support 1.0, 0.75 and 0.25 give 0.95 (Verified), 0.82 (Uncertain) and 0.18
    # (Unsupported) under this aggregator.
    graph = graph_of("The tower opened in Paris in 1889.", "The tower is 300 metres tall.",
                     "The tower has a lift near the top.")
    lexical = CountingView(LexicalSupportView(), cost=1.0)
    costly = CountingView(NumericConsistencyView(), cost=50.0)
    costly.borderline_only = True  # type: ignore[attr-defined]
    spend = run_views(graph, {n.claim.claim_id: EVIDENCE for n in graph}, [lexical, costly],
                      aggregator=LearnedAggregator(["lexical"], [6.0], -3.0, products=False),
                      thresholds=Thresholds(tau=0.9, tau_low=0.2))
    assert lexical.seen == ["c1", "c2", "c3"]
    assert costly.seen == ["c2"]
    assert spend.saved_by_early_stop == 2


def test_a_contradiction_settles_a_claim_only_where_the_aggregator_vetoes() -> None:
    vetoing = LearnedAggregator(["numeric", "lexical"], [1.0, 1.0], 0.0, products=False)
    lenient = vetoing.with_settings(veto=None)
    for aggregator, asked in ((vetoing, []), (lenient, ["c1"])):
        graph = graph_of("The tower is 300 metres tall.")
        lexical = CountingView(LexicalSupportView(), cost=1.0)
        run_views(graph, {"c1": EVIDENCE}, [NumericConsistencyView(), lexical],
                  aggregator=aggregator, thresholds=Thresholds(tau=0.9, tau_low=0.1))
        assert graph.node("c1").results[0].verdict is Verdict.CONTRADICTED
        # A contradiction the aggregator does not let override the score leaves the claim
        # open for the views after it.
        assert lexical.seen == asked


def test_a_costly_view_alone_still_examines_every_claim() -> None:
    # A view asked only about borderline claims (the judge) must still hear a claim no other
    # view has voted on: a type is never given without evidence examined.
    graph = graph_of("The tower is 330 metres tall.", "Bread is baked daily.")
    lexical = CountingView(LexicalSupportView(), cost=10.0)
    lexical.borderline_only = True  # type: ignore[attr-defined]
    numeric = CountingView(NumericConsistencyView(), cost=0.5)
    spend = run_views(graph, {n.claim.claim_id: EVIDENCE for n in graph}, [lexical],
                      aggregator=VoteAggregator(), thresholds=Thresholds())
    assert lexical.seen == ["c1", "c2"] and spend.saved_by_early_stop == 0
    # After a view that abstained ("The bread is baked daily." has no value), likewise.
    lexical.seen.clear()
    graph = graph_of("The bread is baked daily.")
    run_views(graph, {n.claim.claim_id: EVIDENCE for n in graph}, [numeric, lexical],
              aggregator=VoteAggregator(), thresholds=Thresholds())
    assert lexical.seen == ["c1"]
