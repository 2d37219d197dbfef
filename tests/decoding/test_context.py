import pytest

from veritype.decoding import END_OF_TEXT, Guard, create_guard
from veritype.decoding.context import ContextGuard, closed_clause, earlier_clauses
from veritype.errors import DecodingError
from veritype.evidence import EvidencePack

EVIDENCE = [
    "The Eiffel Tower is in Paris. It was completed in 1889.",
    "Water boils at 100 degrees Celsius at sea level.",
]
TRIAL = ("At the second screen, 19 579 women in the intervention group and 19,731 in the "
         "control group were eligible.")


@pytest.fixture(scope="module")
def guard() -> ContextGuard:
    return ContextGuard(EVIDENCE)


def test_blocks_closing_a_clause_the_evidence_contradicts(guard: ContextGuard) -> None:
    assert isinstance(guard, Guard) and not guard.exact
    prefix = "Q: Where is the Eiffel Tower?\nA: The Eiffel Tower is in Berlin"
    # "." and the end close the contradicted clause; " city" does not close it.
    assert guard.safe(prefix, [".", END_OF_TEXT, " city"]) == [False, False, True]
    assert guard.safe("Water boils at 50 degrees Celsius at sea level", ["."]) == [False]
    score, premise = guard.contradiction("The Eiffel Tower is in Berlin")
    assert score >= guard.contradiction_threshold and premise == "The Eiffel Tower is in Paris."


def test_accepts_what_the_evidence_supports(guard: ContextGuard) -> None:
    assert guard.safe("A: The Eiffel Tower is in Paris", [".", END_OF_TEXT]) == [True, True]
    assert guard.safe("A: The Eiffel Tower is a tall tower", ["."]) == [True]


def test_a_shared_number_is_no_shared_topic(guard: ContextGuard) -> None:
    trial = guard.with_evidence([TRIAL])
    # Scored against the trial, the sum would be "contradicted" (the shipped model puts it
    # above 0.9); sharing only "19" with it, it is not scored at all.
    assert trial.safe("Answer: 23 * 19 = 437", [END_OF_TEXT]) == [True]
    assert trial.contradiction("Answer: 23 * 19 = 437") == (0.0, "")
    assert trial.contradiction("Only 19 women were eligible at the second screen")[1] == TRIAL


def test_blocks_contradicting_an_earlier_clause_of_the_answer() -> None:
    guard = ContextGuard([])
    assert guard.safe("The sky is green. The sky is not green", ["."]) == [False]
    assert guard.safe("The sky is green. The grass is green", ["."]) == [True]


def test_clause_boundaries() -> None:
    assert closed_clause("It rained. The road is wet", ".") == "The road is wet"
    assert closed_clause("The road is wet,", " and") == "The road is wet"
    assert closed_clause("The value is 3", ".") is None  # may be "3.5"
    assert closed_clause("The value is 3.", " Then") == "The value is 3"
    assert closed_clause("The road is", " wet") is None
    assert earlier_clauses("Is it wet? It rained; the road is wet. Now") == [
        "It rained", "the road is wet",
    ]


def test_evidence_pack_registry_and_errors(guard: ContextGuard) -> None:
    shared = guard.with_evidence(EvidencePack.from_texts(["Mount Everest is 8,849 metres tall."]))
    assert shared.encoder is guard.encoder
    assert shared.evidence_sentences == ["Mount Everest is 8,849 metres tall."]
    assert create_guard("context", encoder=guard.encoder, evidence=EVIDENCE).name == "context"
    with pytest.raises(DecodingError, match="not one string"):
        ContextGuard("The Eiffel Tower is in Paris.", encoder=guard.encoder)
    with pytest.raises(DecodingError, match="contradiction_threshold"):
        ContextGuard(EVIDENCE, encoder=guard.encoder, contradiction_threshold=0.0)
