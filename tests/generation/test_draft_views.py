import math
from pathlib import Path

import pytest

from veritype.claims import Claim, decompose
from veritype.evidence import Chunk, EvidencePack
from veritype.generation import Draft, GenerationParams, create_generator
from veritype.generation.draft_views import DRAFT_VIEWS, EntropyView, SelfCheckView, draft_views
from veritype.generation.local import LocalGenerator
from veritype.views import Verdict, VerificationView

QUESTION = "How tall is the Eiffel Tower?"


@pytest.fixture(scope="module")
def local(smollm2_path: Path) -> LocalGenerator:
    generator = create_generator("local", model_path=smollm2_path)
    assert isinstance(generator, LocalGenerator)
    return generator


@pytest.fixture(scope="module")
def draft(local: LocalGenerator, eiffel: list[Chunk]) -> Draft:
    return local.generate(QUESTION, eiffel, GenerationParams(max_tokens=32))


def test_draft_views_are_views_and_unknown_names_are_refused(
    local: LocalGenerator, draft: Draft, eiffel: list[Chunk]
) -> None:
    views = draft_views(sorted(DRAFT_VIEWS), draft=draft, generator=local, prompt=QUESTION,
                        evidence=eiffel, samples=2)
    assert [view.name for view in views] == ["entropy", "selfcheck"]
    assert all(isinstance(view, VerificationView) and not view.strong for view in views)
    with pytest.raises(ValueError, match="unknown draft view 'nli'"):
        draft_views(["nli"], draft=draft, generator=local, prompt=QUESTION, evidence=eiffel)


@pytest.mark.slow
def test_entropy_scores_each_claim_from_its_own_tokens(draft: Draft) -> None:
    claims = decompose(draft.text).claims
    assert claims, draft.text
    view = EntropyView(draft)
    packs = [EvidencePack() for _ in claims]
    for claim, result in zip(claims, view.verify_batch(claims, packs), strict=True):
        entropy = draft.mean_entropy(claim.start, claim.end)
        assert entropy is not None
        assert result.score == pytest.approx(math.exp(-entropy))
        assert result.verdict is (Verdict.ENTAILED if result.score >= 0.5 else Verdict.UNKNOWN)
        assert result.spans == ()
    outside = Claim("c9", "Nothing here.", start=len(draft.text) + 5, end=len(draft.text) + 9)
    assert view.verify(outside, EvidencePack()).verdict is Verdict.ABSTAINED


def test_entropy_abstains_on_a_draft_without_token_entropies(eiffel: list[Chunk]) -> None:
    extractive = create_generator("extractive").generate(QUESTION, eiffel)
    claim = decompose(extractive.text).claims[0]
    result = EntropyView(extractive).verify(claim, EvidencePack())
    assert result.verdict is Verdict.ABSTAINED


@pytest.mark.slow
def test_selfcheck_samples_the_local_model_and_reports_the_entailed_fraction(
    local: LocalGenerator, draft: Draft, eiffel: list[Chunk]
) -> None:
    view = SelfCheckView(local, QUESTION, eiffel, samples=2, max_tokens=32)
    claims = decompose(draft.text).claims
    results = view.verify_batch(claims, [EvidencePack() for _ in claims])
    assert len(view.sample_packs) == 2
    for result in results:
        assert result.score in (0.0, 0.5, 1.0)  # a fraction of two samples
        assert result.spans == ()  # samples are not evidence, so nothing is cited
        assert result.verdict is not Verdict.ENTAILED or result.score >= 0.5


@pytest.mark.slow
def test_selfcheck_separates_a_claim_the_samples_state_from_one_they_contradict(
    eiffel: list[Chunk],
) -> None:
    # The extractive generator repeats its draft, so every sample states its sentences.
    extractive = create_generator("extractive")
    view = SelfCheckView(extractive, "Eiffel Tower opened Paris", eiffel, samples=2)
    stated = Claim("c1", "The Eiffel Tower in Paris was opened on 31 March 1889.")
    contradicted = Claim("c2", "The Eiffel Tower in Paris was never opened.")
    supported, against = view.verify_batch([stated, contradicted], [EvidencePack()] * 2)
    assert supported.verdict is Verdict.ENTAILED and supported.score == 1.0
    assert against.score == 0.0 and against.verdict is not Verdict.ENTAILED
