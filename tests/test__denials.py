"""The plain denials of a claim, and the claim a denial affirms."""

from __future__ import annotations

import pytest

from veritype._denials import denials, spelled_out


@pytest.mark.parametrize(("claim", "denial"), [
    ("The Kestrel 3 has obstacle sensors.", "The Kestrel 3 has no obstacle sensors"),
    ("The Kestrel 3 has obstacle sensors.", "The Kestrel 3 does not have obstacle sensors"),
    ("The ferry runs in winter.", "The ferry does not run in winter"),
    ("The ferry runs in winter.", "The ferry never runs in winter"),
    ("Penguins can fly.", "Penguins can not fly"),
    ("The museum is open on Mondays.", "The museum is not open on Mondays"),
    ("Marie Curie won two Nobel Prizes.", "Marie Curie did not win two Nobel Prizes"),
    ("The cats carried the mice.", "The cats did not carry the mice"),
    ("The bridge has been closed since 2019.", "The bridge has not been closed since 2019"),
    # A denial is affirmed by taking its negation away.
    ("The ferry doesn't run in winter.", "The ferry runs in winter"),
    ("Penguins cannot fly.", "Penguins can fly"),
    ("The Kestrel 3 does not have integrated lights.", "The Kestrel 3 has integrated lights"),
    ("Marie Curie did not win a Nobel Prize.", "Marie Curie won a Nobel Prize"),
    ("The company has no debts.", "The company has debts"),
    ("He never visited Paris.", "He visited Paris"),
])
def test_a_claim_is_denied_by_negating_its_first_verb(claim: str, denial: str) -> None:
    assert denial in denials(claim)


def test_a_claim_without_a_verb_has_no_denial() -> None:
    assert denials("The 2019 release.") == ()


def test_contracted_negations_are_spelled_out() -> None:
    assert spelled_out("Penguins cannot fly; it isn't wet. Can't, won't.") == (
        "Penguins can not fly; it is not wet. Can not, will not.")
