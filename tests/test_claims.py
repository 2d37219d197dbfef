import pytest

from veritype.claims import Claim, ClaimClass, classify, decompose


def texts(answer: str) -> list[str]:
    return [claim.text for claim in decompose(answer).claims]


def test_each_sentence_is_a_claim_with_its_exact_span() -> None:
    answer = "The Eiffel Tower opened on March 31, 1889, in Paris. The tower is 300 metres tall."
    claims = decompose(answer).claims
    assert [c.claim_id for c in claims] == ["c1", "c2"]
    for claim in claims:
        assert answer[claim.start : claim.end] == claim.text


def test_coordinated_clauses_with_their_own_subject_are_split() -> None:
    answer = "Dr. Smith earned 3.5 million dollars in 2020, and he was promoted in 2021."
    decomposition = decompose(answer)
    assert texts(answer) == [
        "Dr. Smith earned 3.5 million dollars in 2020.",
        "He was promoted in 2021.",
    ]
    assert decomposition.edges == [("c1", "c2")]
    second = decomposition.claims[1]
    assert answer[second.start : second.end] == "he was promoted in 2021."


def test_shared_subject_predicates_borrow_the_subject() -> None:
    answer = "The bridge opened in 1900 and was closed in 1950."
    decomposition = decompose(answer)
    assert texts(answer) == ["The bridge opened in 1900.", "The bridge was closed in 1950."]
    assert answer[decomposition.claims[1].start : decomposition.claims[1].end] == (
        "was closed in 1950."
    )
    assert decomposition.edges == [("c1", "c2")]


def test_coordinated_noun_phrases_stay_whole() -> None:
    assert texts("Salt and pepper are sold together in most shops.") == [
        "Salt and pepper are sold together in most shops."
    ]


def test_pronoun_led_sentence_depends_on_the_claim_that_introduced_the_referent() -> None:
    answer = (
        "The tower is in Paris. It is 330 metres tall. It opened in 1889. "
        "Rome has a colosseum. It is old."
    )
    assert decompose(answer).edges == [("c1", "c2"), ("c1", "c3"), ("c4", "c5")]


def test_pronoun_without_any_referent_has_no_edge() -> None:
    assert decompose("It is 330 metres tall.").edges == []


def test_sentences_without_content_are_skipped() -> None:
    assert texts("Yes. The tower is tall.") == ["The tower is tall."]


def test_claim_ids_use_the_prefix() -> None:
    assert [
        c.claim_id for c in decompose("A tower stands. A bridge spans.", prefix="q").claims
    ] == [
        "q1",
        "q2",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The tower is taller than the cathedral.", ClaimClass.COMPARATIVE),
        ("It is the tallest structure in Paris.", ClaimClass.COMPARATIVE),
        ("The warranty applies only to new devices.", ClaimClass.SCOPE),
        ("The dose is at most 5 mg per day.", ClaimClass.SCOPE),
        ("The company was founded in 1887.", ClaimClass.HISTORICAL),
        ("Water boils at 100 degrees Celsius at sea level.", ClaimClass.FACTUAL),
    ],
)
def test_classify(text: str, expected: ClaimClass) -> None:
    assert classify(text) is expected


def test_claim_validation_and_round_trip() -> None:
    with pytest.raises(ValueError, match="empty text"):
        Claim("c1", "  ")
    with pytest.raises(ValueError, match="invalid span"):
        Claim("c1", "text", start=5, end=2)
    claim = Claim("c1", "The tower is tall.", ClaimClass.FACTUAL, 3, 21)
    assert Claim.from_dict(claim.to_dict()) == claim
