import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veritype.aggregate import VoteAggregator
from veritype.answer import confabulation_problems
from veritype.answers.rendering import render
from veritype.claims import Claim
from veritype.evidence import EvidencePack, Span
from veritype.graph import BeliefGraph, EvidenceType, Node, Status
from veritype.thresholds import Thresholds
from veritype.verification import claim_reason, type_graph, verify_answer
from veritype.views import LexicalSupportView, NumericConsistencyView, Verdict, ViewResult

EVIDENCE = EvidencePack.from_texts(
    [
        "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
        "The Eiffel Tower in Paris was opened on 31 March 1889 as the centrepiece of the 1889 "
        "World's Fair. The tower is 330 metres tall, about the same height as an 81-storey "
        "building."
    ]
)
VIEWS = [NumericConsistencyView(), LexicalSupportView()]


def test_verify_answer_types_the_three_kinds_of_claim() -> None:
    report = verify_answer(
        "The Eiffel Tower opened on March 31, 1889, in Paris. The tower is 300 metres tall. "
        "It was painted gold for the 1900 Olympic Games.",
        EVIDENCE,
        VIEWS,
    )
    claims = report.grounded.claims
    assert [c.type for c in claims] == [
        EvidenceType.VERIFIED,
        EvidenceType.UNSUPPORTED,
        EvidenceType.UNSUPPORTED,
    ]
    assert [c.status for c in claims] == [Status.ENTAILED, Status.CONTRADICTED, Status.UNKNOWN]
    assert claims[0].citations[0].quote.startswith("The Eiffel Tower in Paris was opened on 31")
    assert report.grounded.answer.endswith("in Paris [1].")
    assert confabulation_problems(report.grounded, EVIDENCE) == []
    restored = BeliefGraph.from_dict(report.graph)
    assert restored.edges() == [("c2", "c3")]
    # The lexical view is cheapest and settles no claim alone, so both views see all three.
    assert report.budget["calls"] == 6


def test_per_claim_evidence_packs() -> None:
    other = EvidencePack.from_texts(["The tower is 300 metres tall."])
    report = verify_answer(
        "The tower is 330 metres tall. The tower is 300 metres tall.",
        {"c1": EVIDENCE, "c2": other},
        VIEWS,
    )
    assert [c.type for c in report.grounded.claims] == [
        EvidenceType.VERIFIED,
        EvidenceType.VERIFIED,
    ]
    assert {r.doc_id for r in report.grounded.references} == {
        EVIDENCE.chunks[0].doc_id,
        other.chunks[0].doc_id,
    }


VERDICTS = st.sampled_from(
    [Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.UNKNOWN, Verdict.ABSTAINED]
)


@settings(max_examples=200)
@given(
    st.lists(st.lists(VERDICTS, min_size=1, max_size=5), min_size=1, max_size=8),
    st.floats(0.05, 1.0),
    st.data(),
)
def test_no_rendered_claim_is_below_tau(
    verdict_rows: list[list[Verdict]], tau: float, data: st.DataObject
) -> None:
    thresholds = Thresholds(tau=tau, tau_low=data.draw(st.floats(0.0, tau * 0.99)))
    graph = BeliefGraph.from_claims(Claim(f"c{i}", f"Claim {i}.") for i in range(len(verdict_rows)))
    sentences = EVIDENCE.sentences()
    for node, verdicts in zip(graph, verdict_rows, strict=True):
        node.results = [
            ViewResult(
                f"v{j}",
                verdict,
                1.0 if verdict is Verdict.ENTAILED else 0.0,
                spans=(sentences[j % len(sentences)],),
            )
            for j, verdict in enumerate(verdicts)
        ]
    type_graph(graph, VoteAggregator(), thresholds)
    answer = render(graph, EVIDENCE)
    for claim in answer.claims:
        if claim.rendered:
            assert claim.support >= tau
            assert claim.status is Status.ENTAILED
            assert all(v.verdict != "contradicted" for v in claim.views)
            assert claim.citations


def test_copies_inside_qualifying_evidence_are_not_verified_by_the_default_views() -> None:
    from test__verbatim import QUALIFIED_COPIES, STATED_COPIES

    from veritype.views import create_view

    views = [create_view(name) for name in ("numeric", "lexical", "nli", "align")]
    for claim, evidence in QUALIFIED_COPIES:
        report = verify_answer(claim + ".", EvidencePack.from_texts([evidence]), views)
        assert [c.type for c in report.grounded.claims] != [EvidenceType.VERIFIED], claim
    for claim, evidence in STATED_COPIES:
        report = verify_answer(claim[0].upper() + claim[1:].rstrip(".") + ".",
                               EvidencePack.from_texts([evidence]), views)
        assert [c.type for c in report.grounded.claims] == [EvidenceType.VERIFIED], claim


def test_a_one_sentence_answer_is_judged_whole_as_well_as_in_parts() -> None:
    from veritype.claims import decompose
    from veritype.verification import WHOLE, folded_by_whole, is_one_sentence, with_whole

    answer = "The tower opened in 1889, and it was painted gold in 1900."
    parts = decompose(answer)
    assert is_one_sentence(answer, parts)
    both = with_whole(answer, parts)
    assert [c.claim_id for c in both.claims] == ["c1", "c2", WHOLE]
    assert both.claims[-1].text == answer
    assert not is_one_sentence("The tower opened in 1889. It is tall.", decompose(
        "The tower opened in 1889. It is tall."))

    # A fragment that fails on its own cannot sink a whole the evidence entails.
    chunk = EVIDENCE.chunks[0]
    span = Span(chunk.doc_id, chunk.chunk_id, chunk.start, chunk.start + 40)
    graph = BeliefGraph.from_claims(both.claims, both.edges)
    for node, verdict in zip(graph, (Verdict.ENTAILED, Verdict.UNKNOWN, Verdict.ENTAILED),
                             strict=True):
        node.results = [ViewResult("nli", verdict, 1.0 if verdict is Verdict.ENTAILED else 0.0,
                                   spans=(span,))]
    type_graph(graph, VoteAggregator(), Thresholds())
    assert folded_by_whole(graph) == {"c1", "c2"}
    grounded = render(graph, EVIDENCE, folded=folded_by_whole(graph))
    assert grounded.answer.startswith(answer.rstrip("."))
    assert grounded.limitations == []
    assert {c.id: c.counted for c in grounded.claims} == {"c1": False, "c2": False, WHOLE: True}


def test_an_entailed_one_sentence_claim_is_verified_whole_by_the_default_views() -> None:
    from veritype.views import create_view

    sentence = "The Rhine rises in the Swiss Alps and flows into the North Sea."
    views = [create_view(name) for name in ("numeric", "lexical", "nli", "align")]
    report = verify_answer("The Rhine rises in the Swiss Alps, and it flows into the North Sea.",
                           EvidencePack.from_texts([sentence]), views)
    assert report.grounded.answer.startswith("The Rhine rises in the Swiss Alps")
    assert report.grounded.confidence.value == "high"


def _typed(kind: EvidenceType, *results: ViewResult) -> Node:
    return Node(Claim("c1", "The tower is 300 metres tall."), evidence_type=kind,
                results=list(results))


@pytest.mark.parametrize(("node", "reason"), [
    (_typed(EvidenceType.VERIFIED, ViewResult("nli", Verdict.ENTAILED, 0.9)), ""),
    (_typed(EvidenceType.UNSUPPORTED,
            ViewResult("nli", Verdict.CONTRADICTED, 0.1, 0.8),
            ViewResult("numeric", Verdict.CONTRADICTED, 0.0, 0.9,
                       detail="claim says 300 metres, evidence says 330 metres")),
     "numeric: claim says 300 metres, evidence says 330 metres"),
    (_typed(EvidenceType.UNCERTAIN, ViewResult("nli", Verdict.CONTRADICTED, 0.1, 0.75)),
     "nli: the evidence says otherwise (contradiction 0.75)"),
    (_typed(EvidenceType.UNCERTAIN, ViewResult("align", Verdict.ENTAILED, 0.9),
            ViewResult("nli", Verdict.UNKNOWN, 0.4)),
     "only align found it stated (nli 0.40)"),
    (Node(Claim("c1", "The tower is 300 metres tall."), evidence_type=EvidenceType.UNCERTAIN,
          results=[ViewResult("numeric", Verdict.ENTAILED, 1.0),
                   ViewResult("nli", Verdict.ENTAILED, 0.6)], probability=0.41),
     "numeric, nli found it stated, but with support 0.41, too weak to verify"),
    (_typed(EvidenceType.UNSUPPORTED,
            ViewResult("numeric", Verdict.UNKNOWN, 0.0, detail="not found 300 metres"),
            ViewResult("nli", Verdict.UNKNOWN, 0.2)),
     "no context states it (numeric: not found 300 metres)"),
    (_typed(EvidenceType.UNSUPPORTED,
            ViewResult("lexical", Verdict.UNKNOWN, 0.0, detail="no claim word in the evidence")),
     "no context mentions it"),
    (_typed(EvidenceType.UNCERTAIN, ViewResult("nli", Verdict.UNKNOWN, 0.3),
            ViewResult("align", Verdict.UNKNOWN, 0.45)),
     "no context states it (best support: align 0.45)"),
    (_typed(EvidenceType.UNSUPPORTED, ViewResult("numeric", Verdict.ABSTAINED, 0.0)),
     "no view could check it"),
])
def test_a_claim_reason_says_why_it_is_not_verified(node: Node, reason: str) -> None:
    assert claim_reason(node) == reason


def test_a_claim_reason_cites_where_the_evidence_says_otherwise() -> None:
    span = Span("d1", "d1:0", 0, 29)
    node = _typed(EvidenceType.UNSUPPORTED,
                  ViewResult("nli", Verdict.CONTRADICTED, 0.1, 0.9, spans=(span,)))
    assert claim_reason(node, lambda cited: f"context 0: {cited.start}-{cited.end}") == (
        "nli: the evidence says otherwise (contradiction 0.90); context 0: 0-29")
