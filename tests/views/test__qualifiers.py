from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.verdicts import Verdict, ViewResult
from veritype.views import NumericConsistencyView
from veritype.views._qualifiers import subject_words
from veritype.views._values import extract_values

CAFE = ("The café sells its coffee in two sizes. A small cup costs 2.40 euros, while a large "
        "cup costs 3.10 euros. In winter the café opens at 8:00; in summer it opens at 7:00.")
DIET = ("In the trial, people on the new diet lost 4 kilograms on average over six months. In "
        "the control group, the average loss was 1 kilogram.")


def check(text: str, evidence: str) -> ViewResult:
    return NumericConsistencyView().verify(Claim("c1", text), EvidencePack.from_texts([evidence]))


def test_a_number_the_evidence_gives_a_rival_thing_is_contradicted() -> None:
    result = check("A large cup of coffee costs 2.40 euros.", CAFE)
    assert result.verdict is Verdict.CONTRADICTED
    assert "2.40 euros is stated of small" in result.detail
    assert "evidence says 3.10 euros of large" in result.detail


def test_the_number_of_its_own_thing_is_found() -> None:
    assert check("A small cup of coffee costs 2.40 euros.", CAFE).verdict is Verdict.ENTAILED
    assert check("A large cup costs 3.10 euros.", CAFE).verdict is Verdict.ENTAILED


def test_a_subject_the_clause_leaves_unsaid_has_no_rival() -> None:
    # "Body weight" is the diet's and the control group's alike: the clause stating 1 kg
    # names no other thing it would be of.
    result = check("Body weight fell by 1 kilogram in the control group.", DIET)
    assert result.verdict is not Verdict.CONTRADICTED


def test_a_capitalised_first_word_the_evidence_writes_in_lower_case_qualifies() -> None:
    claim = "Winter opening time is 7:00."
    values = extract_values(claim)
    assert "winter" in subject_words(claim, values, frozenset({"winter"}))
    assert "winter" not in subject_words(claim, values)


def test_a_claim_giving_several_values_of_a_kind_is_left_alone() -> None:
    evidence = ("The Harriers won 9 of their 12 home games. The Rovers won 5 of their 12 home "
                "games.")
    assert "is stated of" not in check("The Rovers won 9 of their 12 home games.",
                                       evidence).detail


def test_the_subject_is_read_before_the_claims_own_verb() -> None:
    # Read with its name left out, "The Aster X2 has a two-year warranty that covers ..."
    # would seem to be about "year, warranty", the words before "covers".
    evidence = ("The Aster X2 comes with a two-year warranty covering the motor. The Aster X4 "
                "has a five-year warranty on the motor and two years on the battery.")
    result = check("The Aster X2 has a two-year warranty that covers its motor.", evidence)
    assert result.verdict is Verdict.ENTAILED


def test_a_number_inside_a_hyphenated_word_is_no_measure_of_the_subject() -> None:
    evidence = ("The bistro's tasting menu has seven courses and costs 80 euros. Its sister "
                "café, Quay Street, serves a four-course lunch for 30 euros.")
    result = check("A four-course lunch costing 30 euros is served at Quay Street.", evidence)
    assert result.verdict is not Verdict.CONTRADICTED


def test_values_paired_with_their_things_in_one_clause_are_read_apart() -> None:
    evidence = ("The aquarium opens at 9:00. Entry costs 20 dollars for adults and 11 dollars "
                "for children, and the shop closes at 17:00.")
    result = check("Children pay 20 dollars for entry.", evidence)
    assert result.verdict is Verdict.CONTRADICTED
    assert "20 dollars is stated of adults" in result.detail
    assert check("Children pay 11 dollars for entry.", evidence).verdict is Verdict.ENTAILED
    assert check("Adults pay 20 dollars for entry.", evidence).verdict is Verdict.ENTAILED
