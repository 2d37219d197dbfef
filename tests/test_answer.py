import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veritype.answer import (
    Confidence,
    GroundedAnswer,
    citation_problems,
    confabulation_problems,
    grounded_answer_schema,
)
from veritype.answers.rendering import confidence_label, render
from veritype.claims import Claim, ClaimClass
from veritype.evidence import EvidencePack, Span
from veritype.graph import BeliefGraph, EvidenceType, Status

EVIDENCE = EvidencePack.from_texts(
    [
        "The tower is 330 metres tall. It opened in 1889. Entry is free only for children.",
        "The bridge is longer than the tower is tall. The river is wide.",
    ]
)
SENTENCES = EVIDENCE.sentences()
ROOT = Path(__file__).resolve().parents[1]


def typed_graph(
    *specs: tuple[str, EvidenceType, Status, list[Span]],
    edges: tuple[tuple[str, str], ...] = (),
    classes: dict[str, ClaimClass] | None = None,
) -> BeliefGraph:
    classes = classes or {}
    claims = [
        Claim(claim_id, text, classes.get(claim_id, ClaimClass.FACTUAL), i * 40, i * 40 + len(text))
        for i, (claim_id, *_rest) in enumerate(specs)
        for text in [f"Claim {claim_id} states a fact."]
    ]
    graph = BeliefGraph.from_claims(claims, edges)
    for claim_id, kind, status, spans in specs:
        node = graph.node(claim_id)
        node.evidence_type, node.status, node.evidence = kind, status, spans
        node.mass = 1.0 if kind is EvidenceType.VERIFIED else 0.0
    return graph


V, U, X = EvidenceType.VERIFIED, EvidenceType.UNCERTAIN, EvidenceType.UNSUPPORTED
E, C, K = Status.ENTAILED, Status.CONTRADICTED, Status.UNKNOWN


def test_only_verified_claims_render_with_numbered_citations() -> None:
    graph = typed_graph(
        ("c1", V, E, [SENTENCES[0]]),
        ("c2", X, C, []),
        ("c3", U, K, [SENTENCES[1]]),
        ("c4", V, E, [SENTENCES[1], SENTENCES[0]]),
    )
    answer = render(graph, EVIDENCE, trace_id="t1")
    assert answer.answer == "Claim c1 states a fact [1]. Claim c4 states a fact [1][2]."
    assert [r.quote for r in answer.references] == [
        "The tower is 330 metres tall.",
        "It opened in 1889.",
    ]
    assert [c.rendered for c in answer.claims] == [True, False, False, True]
    assert answer.limitations == [
        "Contradicted by the evidence: \u201cClaim c2 states a fact.\u201d",
        "Unverified (support 0.00): \u201cClaim c3 states a fact.\u201d",
    ]
    assert answer.confidence is Confidence.LOW
    assert not answer.abstained
    assert answer.trace_id == "t1"
    assert confabulation_problems(answer, EVIDENCE) == []


def test_a_verified_claim_with_an_unverified_parent_is_not_rendered() -> None:
    graph = typed_graph(("c1", U, K, []), ("c2", V, E, [SENTENCES[0]]), edges=(("c1", "c2"),))
    answer = render(graph, EVIDENCE)
    assert answer.abstained
    assert answer.answer == ""
    assert any("depends on is not verified (c1)" in note for note in answer.limitations)
    assert "1 uncertain" in (answer.abstention_reason or "")


def test_an_off_question_claim_is_not_shown_nor_counted_for_confidence() -> None:
    graph = typed_graph(("c1", V, E, [SENTENCES[0]]), ("c2", V, E, [SENTENCES[1]]))
    answer = render(graph, EVIDENCE, off_question={"c2"})
    assert answer.answer == "Claim c1 states a fact [1]."
    assert [c.rendered for c in answer.claims] == [True, False]
    assert answer.limitations == [
        "Verified but not shown, because it does not address the question: "
        "\u201cClaim c2 states a fact.\u201d"
    ]
    assert answer.confidence is Confidence.HIGH
    alone = render(graph, EVIDENCE, off_question={"c1", "c2"})
    assert alone.abstained and alone.answer == ""
    assert alone.abstention_reason == (
        "No claim of the answer is both verified by the evidence and on the question "
        "(2 verified but off the question)."
    )


def test_claim_class_minimum_support() -> None:
    classes = {
        "c1": ClaimClass.COMPARATIVE,
        "c2": ClaimClass.COMPARATIVE,
        "c3": ClaimClass.SCOPE,
        "c4": ClaimClass.SCOPE,
    }
    graph = typed_graph(
        ("c1", V, E, [SENTENCES[3]]),
        ("c2", V, E, [SENTENCES[3], SENTENCES[0]]),
        ("c3", V, E, [SENTENCES[0]]),
        ("c4", V, E, [SENTENCES[2]]),
        classes=classes,
    )
    answer = render(graph, EVIDENCE)
    assert [c.rendered for c in answer.claims] == [False, True, False, True]
    assert any("comparative claim needs two citations" in n for n in answer.limitations)
    assert any("scope claim needs a citation" in n for n in answer.limitations)


def test_spans_outside_the_pack_are_never_cited() -> None:
    outside = Span("nope", "nope:0", 0, 4)
    graph = typed_graph(("c1", V, E, [outside]), ("c2", V, E, [outside, SENTENCES[0]]))
    answer = render(graph, EVIDENCE)
    assert [c.rendered for c in answer.claims] == [False, True]
    assert [c.chunk_id for c in answer.claims[1].citations] == [SENTENCES[0].chunk_id]
    assert any("no citation that resolves" in n for n in answer.limitations)


def test_min_confidence_makes_the_answer_abstain() -> None:
    graph = typed_graph(("c1", V, E, [SENTENCES[0]]), ("c2", X, K, []))
    answer = render(graph, EVIDENCE, min_confidence=Confidence.MEDIUM)
    assert answer.abstained and answer.answer == "" and answer.references == []
    assert "below the required medium" in (answer.abstention_reason or "")
    assert not any(c.rendered for c in answer.claims)
    assert answer.query_refinements == ["Claim c1 states fact", "Claim c2 states fact"]


def test_empty_evidence_and_untyped_claims() -> None:
    graph = typed_graph(("c1", X, K, []))
    answer = render(graph, EvidencePack())
    assert answer.abstention_reason == "No evidence was available to verify the answer against."
    graph.node("c1").evidence_type = None
    with pytest.raises(ValueError, match="untyped claims: c1"):
        render(graph, EVIDENCE)


@pytest.mark.parametrize(
    ("verified", "total", "contradicted", "label"),
    [
        (9, 10, False, Confidence.HIGH),
        (9, 10, True, Confidence.MEDIUM),
        (3, 4, False, Confidence.MEDIUM),
        (1, 2, False, Confidence.LOW),
        (4, 10, False, Confidence.INSUFFICIENT_EVIDENCE),
        (0, 0, False, Confidence.INSUFFICIENT_EVIDENCE),
    ],
)
def test_confidence_labels(
    verified: int, total: int, contradicted: bool, label: Confidence
) -> None:
    assert confidence_label(verified, total, contradicted=contradicted) is label


def test_citation_hygiene_finds_tampering() -> None:
    graph = typed_graph(("c1", V, E, [SENTENCES[0]]))
    clean = render(graph, EVIDENCE)
    data = clean.model_dump()
    data["claims"][0]["citations"][0]["quote"] = "The tower is 300 metres tall."
    data["claims"][0]["citations"][0]["ref"] = 7
    data["references"].append(dict(data["references"][0]))
    tampered = GroundedAnswer.model_validate(data)
    problems = citation_problems(tampered, EVIDENCE)
    assert "duplicate reference numbers: [1, 1]" in problems
    assert "claim c1 citation [7] is dangling: no reference [7]" in problems
    assert "claim c1 citation [7] quote is not the exact text of its span" in problems
    data = clean.model_dump()
    data["claims"][0]["type"] = "uncertain"
    data["claims"][0]["citations"] = []
    problems = confabulation_problems(GroundedAnswer.model_validate(data), EVIDENCE)
    assert "claim c1 is rendered but typed uncertain" in problems
    assert "claim c1 is rendered without a citation" in problems


def test_exported_schema_matches_the_model() -> None:
    published = json.loads((ROOT / "schema" / "grounded_answer.schema.json").read_text())
    assert published == grounded_answer_schema()


@st.composite
def random_typed_graphs(draw: st.DrawFn) -> BeliefGraph:
    n = draw(st.integers(1, 10))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    pool = [
        *SENTENCES,
        Span("ghost", "ghost:0", 0, 3),
        Span(SENTENCES[0].doc_id, SENTENCES[0].chunk_id, 0, 10_000),
    ]
    claims = [
        Claim(
            f"c{i}",
            f"Claim {i} is {draw(st.sampled_from(['about', 'only', 'more', 'so']))}.",
            draw(st.sampled_from(ClaimClass)),
            i * 20,
            i * 20 + 12,
        )
        for i in range(n)
    ]
    graph = BeliefGraph.from_claims(claims, [(f"c{a}", f"c{b}") for a, b in edges])
    for node in graph:
        node.evidence_type = draw(st.sampled_from(EvidenceType))
        node.status = draw(st.sampled_from(Status))
        node.mass = draw(st.floats(0, 1))
        node.evidence = draw(st.lists(st.sampled_from(pool), max_size=4))
    return graph


@settings(max_examples=300)
@given(random_typed_graphs())
def test_rendering_invariants_on_random_graphs(graph: BeliefGraph) -> None:
    answer = render(graph, EVIDENCE)
    assert confabulation_problems(answer, EVIDENCE) == []
    by_id = {claim.id: claim for claim in answer.claims}
    for claim in answer.claims:
        if not claim.rendered:
            continue
        assert claim.type is EvidenceType.VERIFIED
        # V^τ: every ancestor Verified; a Verified ancestor need not be shown itself (it may
        # be off the question, or short of its class's citations): claims are self-contained.
        assert all(by_id[a].type is EvidenceType.VERIFIED for a in graph.ancestors(claim.id))
        assert claim.citations
        for citation in claim.citations:
            span = Span(citation.doc_id, citation.chunk_id, citation.start, citation.end)
            assert EVIDENCE.resolves(span) and EVIDENCE.quote(span) == citation.quote
            assert f"[{citation.ref}]" in answer.answer
    assert answer.abstained == (not any(c.rendered for c in answer.claims))


def test_a_span_enclosing_another_cited_span_is_not_cited() -> None:
    first, second = SENTENCES[0], SENTENCES[1]
    window = Span(first.doc_id, first.chunk_id, first.start, second.end)
    graph = typed_graph(("c1", V, E, [window, first]), ("c2", V, E, [window, SENTENCES[3]]))
    answer = render(graph, EVIDENCE)
    assert [c.quote for c in answer.claims[0].citations] == ["The tower is 330 metres tall."]
    assert sorted(c.quote for c in answer.claims[1].citations) == [
        "The bridge is longer than the tower is tall.",
        "The tower is 330 metres tall. It opened in 1889.",
    ]
