import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veritype.claims import Claim
from veritype.evidence import EvidencePack, Span
from veritype.verdicts import ViewResult
from veritype.views import LexicalSupportView, Verdict, VerificationView, create_view

EIFFEL = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
    "It is named after the engineer Gustave Eiffel, whose company designed and built the "
    "tower from 1887 to 1889. The Eiffel Tower in Paris was opened on 31 March 1889 as the "
    "centrepiece of the 1889 World's Fair. The tower is 330 metres tall, about the same "
    "height as an 81-storey building."
)


@pytest.fixture
def pack() -> EvidencePack:
    return EvidencePack.from_texts([EIFFEL])


def check(view: LexicalSupportView, text: str, evidence: EvidencePack) -> ViewResult:
    result = view.verify(Claim("c1", text), evidence)
    assert result.view == "lexical"
    for span in result.spans:
        assert evidence.resolves(span)
    return result


def test_protocol_and_registry() -> None:
    view = LexicalSupportView()
    assert isinstance(view, VerificationView)
    assert (view.name, view.cost, view.strong) == ("lexical", 0.2, True)
    assert (view.support_threshold, view.contradiction_threshold) == (0.75, 0.6)
    built = create_view("lexical", support_threshold=0.5, cost=0.1)
    assert isinstance(built, LexicalSupportView)
    assert (built.support_threshold, built.cost) == (0.5, 0.1)


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.01, math.nan])
@pytest.mark.parametrize("option", ["support_threshold", "contradiction_threshold"])
def test_threshold_validation(option: str, bad: float) -> None:
    with pytest.raises(ValueError, match=rf"{option} must lie in \(0, 1\]"):
        LexicalSupportView(**{option: bad})


def test_threshold_of_one_is_allowed() -> None:
    assert LexicalSupportView(support_threshold=1.0).support_threshold == 1.0


def test_negative_cost_is_rejected() -> None:
    with pytest.raises(ValueError, match="cost"):
        LexicalSupportView(cost=-0.5)


def test_example_opened_is_entailed(pack: EvidencePack) -> None:
    result = check(LexicalSupportView(), "The Eiffel Tower opened on March 31, 1889, in Paris.",
                   pack)
    assert result.verdict is Verdict.ENTAILED
    assert result.score == 1.0
    assert len(result.spans) == 1
    assert pack.quote(result.spans[0]).startswith("The Eiffel Tower in Paris was opened")


def test_example_unsupported_claim_is_unknown(pack: EvidencePack) -> None:
    result = check(LexicalSupportView(), "It was painted gold for the 1900 Olympic Games.", pack)
    assert result.verdict is Verdict.UNKNOWN
    assert result.score == 0.0
    assert result.spans == ()


def test_partial_coverage_is_unknown_with_best_span(pack: EvidencePack) -> None:
    # iron, lattice, tower, paint, gold: only lattice and tower are words of the first
    # sentence ("wrought-iron" is one token).
    result = check(LexicalSupportView(), "The iron lattice tower was painted gold.", pack)
    assert result.verdict is Verdict.UNKNOWN
    assert result.score == pytest.approx(2 / 5)
    assert [pack.quote(s).startswith("The Eiffel Tower is a wrought-iron") for s in result.spans] \
        == [True]


def test_support_threshold_is_inclusive(pack: EvidencePack) -> None:
    # tower, 300, metre, tall: 3 of 4 words, exactly the default threshold.
    claim = "The tower is 300 metres tall."
    assert check(LexicalSupportView(), claim, pack).verdict is Verdict.ENTAILED
    strict = LexicalSupportView(support_threshold=0.8)
    result = check(strict, claim, pack)
    assert result.verdict is Verdict.UNKNOWN
    assert result.score == 0.75


def test_negated_claim_against_positive_evidence(pack: EvidencePack) -> None:
    result = check(LexicalSupportView(), "The Eiffel Tower was not opened in 1889.", pack)
    assert result.verdict is Verdict.CONTRADICTED
    assert result.score == 0.0
    assert result.contradiction == 1.0
    assert "claim negates" in result.detail
    assert len(result.spans) == 1


def test_positive_claim_against_negated_evidence() -> None:
    evidence = EvidencePack.from_texts(["The bridge was never painted red."])
    result = check(LexicalSupportView(), "The bridge was painted red.", evidence)
    assert result.verdict is Verdict.CONTRADICTED
    assert "evidence negates" in result.detail


def test_negation_mismatch_below_contradiction_threshold_is_unknown() -> None:
    evidence = EvidencePack.from_texts(["The bridge was never painted."])
    # Claim words steel, bridge, paint, red: 2 of 4 < 0.6.
    result = check(LexicalSupportView(), "The steel bridge was painted red.", evidence)
    assert result.verdict is Verdict.UNKNOWN
    assert result.score == 0.5
    assert result.contradiction == 0.0


def test_both_negated_is_entailed() -> None:
    evidence = EvidencePack.from_texts(["The bridge wasn't painted red."])
    result = check(LexicalSupportView(), "The bridge was not painted red.", evidence)
    assert result.verdict is Verdict.ENTAILED


def test_contradiction_threshold_is_configurable() -> None:
    evidence = EvidencePack.from_texts(["The steel bridge was never painted."])
    claim = "The steel bridge was painted red."  # 3 of 4 words
    assert check(LexicalSupportView(), claim, evidence).verdict is Verdict.CONTRADICTED
    lenient = LexicalSupportView(contradiction_threshold=0.9)
    assert check(lenient, claim, evidence).verdict is Verdict.UNKNOWN


def test_ties_prefer_the_earliest_sentence() -> None:
    evidence = EvidencePack.from_texts(["The bridge is red. Also the bridge is red."])
    result = check(LexicalSupportView(), "The bridge is red.", evidence)
    assert result.verdict is Verdict.ENTAILED
    assert result.spans[0].start == 0


def test_ties_prefer_the_claims_polarity() -> None:
    evidence = EvidencePack.from_texts(["The bridge is not red. The bridge is red."])
    result = check(LexicalSupportView(), "The bridge is red.", evidence)
    assert result.verdict is Verdict.ENTAILED
    assert evidence.quote(result.spans[0]) == "The bridge is red."


def test_higher_coverage_wins_over_polarity() -> None:
    evidence = EvidencePack.from_texts(["The red bridge is closed. The bridge is not red today."])
    result = check(LexicalSupportView(), "The bridge is not red today.", evidence)
    assert result.verdict is Verdict.ENTAILED
    assert evidence.quote(result.spans[0]) == "The bridge is not red today."


def test_no_content_words_abstains(pack: EvidencePack) -> None:
    result = check(LexicalSupportView(), "It is what it was.", pack)
    assert result.verdict is Verdict.ABSTAINED
    assert result.score == 0.0


def test_empty_pack_is_unknown() -> None:
    result = check(LexicalSupportView(), "The bridge is red.", EvidencePack())
    assert result.verdict is Verdict.UNKNOWN
    assert result.spans == ()


def test_verify_batch_matches_verify(pack: EvidencePack) -> None:
    view = LexicalSupportView()
    other = EvidencePack.from_texts(["The bridge was never painted gold."])
    claims = [
        Claim("c1", "The Eiffel Tower opened on March 31, 1889, in Paris."),
        Claim("c2", "The bridge was painted gold."),
        Claim("c3", "It was painted gold for the 1900 Olympic Games."),
    ]
    packs = [pack, other, pack]
    results = view.verify_batch(claims, packs)
    assert results == [view.verify(c, p) for c, p in zip(claims, packs, strict=True)]
    assert [r.verdict for r in results] == [
        Verdict.ENTAILED, Verdict.CONTRADICTED, Verdict.UNKNOWN
    ]


def test_verify_batch_analyses_a_shared_pack_once(
    pack: EvidencePack, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    original = EvidencePack.sentences

    def counting(self: EvidencePack) -> list[Span]:
        calls.append(id(self))
        return original(self)

    monkeypatch.setattr(EvidencePack, "sentences", counting)
    other = EvidencePack.from_texts(["The bridge is red."])
    claims = [Claim(f"c{i}", "The tower is tall.") for i in range(4)]
    LexicalSupportView().verify_batch(claims, [pack, other, pack, other])
    assert calls == [id(pack), id(other)]


def test_verify_batch_length_mismatch(pack: EvidencePack) -> None:
    with pytest.raises(ValueError, match="1 claims, 0 packs"):
        LexicalSupportView().verify_batch([Claim("c1", "The bridge is red.")], [])


_WORDS = ["tower", "river", "bridge", "iron", "paris", "built", "opened", "tall", "green",
          "the", "is", "was", "not", "never", "lamp", "museum", "stone"]
_SENTENCE = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8).map(
    lambda words: " ".join(words).capitalize() + "."
)


@given(st.lists(_SENTENCE, min_size=1, max_size=6), st.data())
def test_verbatim_evidence_sentence_is_entailed(sentences: list[str], data: st.DataObject) -> None:
    evidence = EvidencePack.from_texts([" ".join(sentences)])
    claim = data.draw(st.sampled_from(sentences))
    result = LexicalSupportView().verify(Claim("c1", claim), evidence)
    if not set(claim.lower().rstrip(".").split()) - {"the", "is", "was", "not", "never"}:
        assert result.verdict is Verdict.ABSTAINED
        return
    assert result.verdict is Verdict.ENTAILED
    assert result.score == 1.0
    assert all(evidence.resolves(span) for span in result.spans)


def test_a_copy_inside_qualifying_words_is_unknown_and_a_plain_copy_entailed() -> None:
    view = LexicalSupportView()
    pack = EvidencePack.from_texts(["Very few (if any) pop records are illegal in the UK."])
    qualified = view.verify(Claim("c1", "Pop records are illegal in the UK."), pack)
    assert qualified.verdict is Verdict.UNKNOWN and "qualified" in qualified.detail
    plain = EvidencePack.from_texts(["Pop records are illegal in the UK. So are some films."])
    assert view.verify(Claim("c1", "Pop records are illegal in the UK."), plain).verdict is (
        Verdict.ENTAILED)
