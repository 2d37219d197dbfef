import pytest
from hypothesis import given
from hypothesis import strategies as st

from veritype.claims import Claim
from veritype.errors import InputError
from veritype.evidence import Span
from veritype.graph import BeliefGraph, CycleError, EvidenceType, Status
from veritype.views import Verdict, ViewResult


def graph_of(n: int, edges: list[tuple[int, int]]) -> BeliefGraph:
    return BeliefGraph.from_claims(
        [Claim(f"c{i}", f"claim number {i}") for i in range(n)],
        [(f"c{a}", f"c{b}") for a, b in edges],
    )


def test_topological_order_puts_parents_first_and_keeps_insertion_order() -> None:
    graph = graph_of(4, [(3, 0), (2, 1)])
    assert graph.topological_order() == ["c2", "c1", "c3", "c0"]


def test_cycles_and_self_loops_are_refused_with_the_cycle_named() -> None:
    graph = graph_of(3, [(0, 1), (1, 2)])
    with pytest.raises(CycleError, match="c2 -> c0 -> c1 -> c2") as caught:
        graph.add_edge("c2", "c0")
    assert caught.value.cycle == ["c2", "c0", "c1", "c2"]
    with pytest.raises(CycleError):
        graph.add_edge("c1", "c1")
    assert graph.edges() == [("c0", "c1"), ("c1", "c2")]


def test_unknown_and_duplicate_nodes_are_errors() -> None:
    graph = graph_of(1, [])
    with pytest.raises(InputError, match="no claim 'c9'"):
        graph.add_edge("c0", "c9")
    with pytest.raises(InputError, match="already in the graph"):
        graph.add_claim(Claim("c0", "again"))


def test_ancestors_and_descendants() -> None:
    graph = graph_of(5, [(0, 1), (1, 2), (3, 2), (2, 4)])
    assert graph.ancestors("c4") == ["c0", "c1", "c3", "c2"]
    assert graph.descendants("c0") == ["c1", "c2", "c4"]
    assert graph.ancestors("c0") == []
    graph.add_edge("c0", "c1")
    assert graph.edges().count(("c0", "c1")) == 1


@st.composite
def dags(draw: st.DrawFn) -> BeliefGraph:
    n = draw(st.integers(0, 12))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    order = draw(st.permutations(range(n)))
    graph = BeliefGraph.from_claims(
        [Claim(f"c{i}", f"claim {i}", start=i, end=i + 1) for i in order],
        [(f"c{a}", f"c{b}") for a, b in edges],
    )
    for node in graph:
        node.mass = draw(st.floats(0, 1))
        node.status = draw(st.sampled_from(Status))
        node.evidence_type = draw(st.none() | st.sampled_from(EvidenceType))
        node.evidence = [Span("d", "d:0", 0, draw(st.integers(1, 50)))]
        node.results = [ViewResult("numeric", Verdict.ENTAILED, 0.5, spans=tuple(node.evidence))]
    return graph


@given(dags())
def test_topological_order_respects_every_edge(graph: BeliefGraph) -> None:
    order = graph.topological_order()
    assert sorted(order) == sorted(node.claim.claim_id for node in graph)
    position = {claim: i for i, claim in enumerate(order)}
    assert all(position[a] < position[b] for a, b in graph.edges())


@given(dags())
def test_json_round_trip_is_exact(graph: BeliefGraph) -> None:
    restored = BeliefGraph.from_json(graph.to_json())
    assert restored.to_dict() == graph.to_dict()
    assert restored.edges() == graph.edges()


def test_malformed_json_is_refused_clearly() -> None:
    with pytest.raises(InputError, match="not valid JSON"):
        BeliefGraph.from_json("{")
    with pytest.raises(InputError, match="not a belief graph"):
        BeliefGraph.from_json('{"format": "other"}')
    with pytest.raises(InputError, match="malformed"):
        BeliefGraph.from_json('{"format": "veritype.esbg", "version": 1, "nodes": [{}]}')
    cyclic = graph_of(2, [(0, 1)]).to_dict()
    cyclic["edges"].append(["c1", "c0"])
    with pytest.raises(CycleError):
        BeliefGraph.from_dict(cyclic)
