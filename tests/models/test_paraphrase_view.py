import pytest

from veritype.claims import Claim
from veritype.errors import ConfigurationError
from veritype.evidence import EvidencePack
from veritype.views import Verdict, create_view

EVIDENCE = EvidencePack.from_texts([
    "The museum opened in 1902. Construction of the tower was completed in 1889. "
    "The gardens are closed in winter."
])


def test_a_paraphrase_lies_closer_to_its_sentence_than_an_unrelated_claim() -> None:
    view = create_view("paraphrase")
    near, far = view.verify_batch(
        [Claim(claim_id="c1", text="Work on the tower was finished in 1889."),
         Claim(claim_id="c2", text="Penguins cannot fly.")],
        [EVIDENCE, EVIDENCE])
    assert near.score > far.score + 0.3
    # It cites the sentence it is closest to, and never contradicts.
    (span,) = near.spans
    assert EVIDENCE.quote(span).startswith("Construction of the tower")
    assert {near.verdict, far.verdict} <= {Verdict.ENTAILED, Verdict.UNKNOWN}


def test_a_copy_is_entailed_and_empty_evidence_abstains() -> None:
    view = create_view("paraphrase")
    copy = view.verify(Claim(claim_id="c1", text="The gardens are closed in winter."), EVIDENCE)
    assert copy.verdict is Verdict.ENTAILED and copy.score > 0.99
    empty = view.verify(Claim(claim_id="c1", text="The gardens are closed."),
                        EvidencePack.from_texts([]))
    assert empty.verdict is Verdict.ABSTAINED


def test_a_threshold_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="threshold"):
        create_view("paraphrase", threshold=1.5)
