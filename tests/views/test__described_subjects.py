"""What a clause says of another subject, read by the words before its verb: the numeric
view contradicts a claim another subject's clause states, and leaves alone a claim whose
subject a description, a reordering or an imperative only seems to differ from."""

from __future__ import annotations

import pytest

from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.views import NumericConsistencyView, Verdict

BIRDS = "The heron feeds in shallow water; the plover feeds on open gravel."
ROUTES = ("Route 5 runs from the station to the port and opened in 1999. Route 7, which "
          "opened in 2004, runs from the market to the stadium.")


def _verdict(evidence: str, claim: str) -> tuple[Verdict, str]:
    result = NumericConsistencyView().verify(Claim("c1", claim),
                                             EvidencePack.from_texts([evidence]))
    return result.verdict, result.detail


@pytest.mark.parametrize(("evidence", "claim", "quoted"), [
    # Two descriptions: the plover's clause does not say what the heron's says.
    (BIRDS, "The plover feeds in shallow water.", "The heron feeds in shallow water"),
    # Two names that differ by a number.
    (ROUTES, "Route 7 runs from the station to the port.", "Route 5 runs from the station"),
])
def test_a_claim_another_subjects_clause_states_is_contradicted(
    evidence: str, claim: str, quoted: str
) -> None:
    verdict, detail = _verdict(evidence, claim)
    assert verdict is Verdict.CONTRADICTED
    assert detail.startswith("the evidence says this of another subject")
    assert quoted in detail


@pytest.mark.parametrize(("evidence", "claim"), [
    (BIRDS, "The plover feeds on open gravel."),
    (ROUTES, "Route 7 runs from the market to the stadium."),
    # A description standing for the name.
    ("Pixelon sold two million phones in 2022. The company's headquarters are in Tallinn.",
     "Pixelon's headquarters are in Tallinn."),
    # The same statement in another order.
    ("The Kestrel was built by Orbis Systems. Orbis Systems is based in Toulouse.",
     "Orbis Systems built the Kestrel."),
    # An imperative opens with its verb, not a subject.
    ("Cooked rice should be cooled quickly. Reheat it only once, until it is steaming hot.",
     "Cooked rice should be reheated only once, until it is steaming hot."),
    # An adverb before the verb is no part of the subject.
    ("The first Android phone, the HTC Dream, reached shops in October 2008.",
     "The HTC Dream reportedly reached shops in October 2008."),
])
def test_a_claim_of_its_own_subject_is_not_said_of_another(evidence: str, claim: str) -> None:
    verdict, detail = _verdict(evidence, claim)
    assert verdict is not Verdict.CONTRADICTED, detail


TOWN = "The town's station is near the Old Quay, while its market is in Hallam Square."


@pytest.mark.parametrize(("evidence", "claim", "detail"), [
    # A name the evidence gives another subject, where the claim's has another.
    (TOWN, "The town's station is near Hallam Square.",
     "claim says Hallam Square, evidence says Old Quay"),
    # A name the evidence never gives, where it gives the subject another.
    ("The first vaccine was developed at the Orlen Institute in 1931.",
     "The first vaccine was developed at the Varta Institute.",
     "claim says Varta Institute, evidence says Orlen Institute"),
])
def test_a_name_in_the_place_of_the_subjects_own_is_contradicted(
    evidence: str, claim: str, detail: str
) -> None:
    assert _verdict(evidence, claim) == (Verdict.CONTRADICTED, detail)


@pytest.mark.parametrize("claim", [
    "The town's station is near the Old Quay.",
    "The town's market is in Hallam Square.",
])
def test_the_subjects_own_name_stands(claim: str) -> None:
    assert _verdict(TOWN, claim)[0] is Verdict.ENTAILED
