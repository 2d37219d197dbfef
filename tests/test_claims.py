import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veritype._text import content_words, has_negation
from veritype.claims import Claim, ClaimClass, classify, decompose


def texts(answer: str) -> list[str]:
    return [claim.text for claim in decompose(answer).claims]


def test_each_sentence_is_a_claim_with_its_exact_span() -> None:
    answer = "The Eiffel Tower opened on March 31, 1889, in Paris. The tower is 300 metres tall."
    claims = decompose(answer).claims
    assert [c.claim_id for c in claims] == ["c1", "c2"]
    for claim in claims:
        assert answer[claim.start : claim.end] == claim.shown
    assert claims[1].text == "The Eiffel Tower is 300 metres tall."


def test_coordinated_clauses_with_their_own_subject_are_split() -> None:
    answer = "Dr. Smith earned 3.5 million dollars in 2020, and he was promoted in 2021."
    decomposition = decompose(answer)
    assert texts(answer) == [
        "Dr. Smith earned 3.5 million dollars in 2020.",
        "Dr. Smith was promoted in 2021.",
    ]
    assert decomposition.edges == [("c1", "c2")]
    second = decomposition.claims[1]
    assert answer[second.start : second.end] == "he was promoted in 2021."


def test_a_coordinated_clause_whose_pronoun_takes_a_plain_verb_is_split() -> None:
    answer = "The Rhine rises in the Swiss Alps, and it flows into the North Sea."
    assert texts(answer) == ["The Rhine rises in the Swiss Alps.",
                             "The Rhine flows into the North Sea."]
    # "its" opens a noun phrase: the clause's subject is "its profits", read as the
    # company's.
    assert texts("The company grew quickly, but its profits fell in 2020.") == [
        "The company grew quickly.", "The company's profits fell in 2020."]


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


def spans(answer: str) -> list[str]:
    return [answer[claim.start : claim.end] for claim in decompose(answer).claims]


def test_exact_and_reordered_repeats_are_dropped_keeping_the_first() -> None:
    answer = (
        "The drug lowers blood pressure. The drug lowers blood pressure. "
        "Blood pressure the drug lowers. The drug does not lower blood pressure."
    )
    claims = decompose(answer).claims
    assert [c.text for c in claims] == [
        "The drug lowers blood pressure.",
        "The drug does not lower blood pressure.",  # opposite polarity: not a repeat
    ]
    assert [c.claim_id for c in claims] == ["c1", "c2"]
    assert answer[claims[1].start : claims[1].end] == "The drug does not lower blood pressure."


def test_a_pronoun_claim_repeats_only_with_the_same_referent() -> None:
    answer = (
        "Rome has a colosseum. It is very old. It is very old. Paris has a tower. "
        "It is very old."
    )
    decomposition = decompose(answer)
    assert texts(answer) == [
        "Rome has a colosseum.", "Rome is very old.", "Paris has a tower.", "Paris is very old."
    ]
    assert decomposition.edges == [("c1", "c2"), ("c3", "c4")]


def test_a_repetition_loop_cut_off_by_the_token_limit_is_dropped() -> None:
    answer = "Vitamin D reduced fractures by 20%. Vitamin D reduced fractures by 20%. Vitamin D red"
    assert texts(answer) == ["Vitamin D reduced fractures by 20%."]
    # An unfinished sentence that says something new stays.
    assert texts("Vitamin D reduced fractures. Calcium helped bone density in wom") == [
        "Vitamin D reduced fractures.", "Calcium helped bone density in wom."
    ]


def test_list_items_and_comma_splices_are_split() -> None:
    answer = "- The trial enrolled 300 adults\n- It ran for two years\n3) Mortality fell by 5%."
    assert spans(answer) == ["The trial enrolled 300 adults", "It ran for two years",
                             "Mortality fell by 5%."]
    assert decompose(answer).edges == [("c1", "c2")]
    splice = "The trial enrolled many adult patients, they received aspirin daily."
    assert texts(splice) == ["The trial enrolled many adult patients.",
                             "They received aspirin daily."]


def test_lead_ins_and_citation_markers_leave_the_claim() -> None:
    answer = (
        "Answer: According to the evidence, aspirin reduces stroke risk [1]. "
        "The study shows that the effect is larger in women [2, 3]."
    )
    claims = decompose(answer).claims
    assert [c.text for c in claims] == [
        "Aspirin reduces stroke risk.", "The effect is larger in women."
    ]
    assert [answer[c.start : c.end] for c in claims] == [
        "aspirin reduces stroke risk [1].", "the effect is larger in women [2, 3]."
    ]


def test_questions_are_not_claims_and_hedges_are_flagged_not_removed() -> None:
    answer = "Does aspirin prevent strokes? Aspirin may prevent strokes. Aspirin thins blood."
    claims = decompose(answer).claims
    assert [(c.text, c.hedged) for c in claims] == [
        ("Aspirin may prevent strokes.", True), ("Aspirin thins blood.", False)
    ]
    hedged = claims[0]
    assert Claim.from_dict(hedged.to_dict()) == hedged
    assert "hedged" not in claims[1].to_dict()  # unhedged claims keep their exact JSON


_SENTENCES = st.sampled_from([
    "The tower is 330 metres tall.", "It opened in 1889.", "According to the evidence, it is old.",
    "The bridge opened in 1900 and was closed in 1950.", "Is it tall?", "Yes.",
    "The drug may lower blood pressure [2].", "- Rome has a colosseum", "Paris is big, it is busy",
    "Dr. Smith earned 3.5 million dollars in 2020, and he was promoted in 2021.",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(_SENTENCES, min_size=1, max_size=8), st.sampled_from([" ", "\n", "  "]))
def test_every_claim_keeps_an_exact_span_of_the_answer(parts: list[str], joiner: str) -> None:
    answer = joiner.join(parts)
    decomposition = decompose(answer)
    ids = [c.claim_id for c in decomposition.claims]
    assert ids == [f"c{i}" for i in range(1, len(ids) + 1)]
    previous_start = -1
    for claim in decomposition.claims:
        assert 0 <= claim.start < claim.end <= len(answer)
        assert claim.start >= previous_start
        previous_start = claim.start
        source = answer[claim.start : claim.end]
        # A claim says nothing its span does not, except a subject it borrowed.
        borrowed = set(content_words(answer[: claim.start]))
        assert set(content_words(claim.text)) <= set(content_words(source)) | borrowed
    dependent = {child for _, child in decomposition.edges}
    # Claims that repeat an earlier one's words are only kept when they depend on a referent.
    keys = [
        (has_negation(c.text), tuple(sorted(content_words(c.text))))
        for c in decomposition.claims
        if c.claim_id not in dependent
    ]
    assert len(set(keys)) == len(keys)
    for parent, child in decomposition.edges:
        assert ids.index(parent) < ids.index(child)


@pytest.mark.parametrize(
    ("text", "hedged"),
    [
        ("The Brooklyn Bridge opened on May 24, 1883.", False),
        ("It opened in May 1883.", False),
        ("May 24, 1883 was the day it opened.", False),
        ("It may open in 1883.", True),
        ("May it open soon?", True),
        ("The drug might help.", True),
    ],
)
def test_the_month_may_is_no_hedge_and_the_modal_is(text: str, hedged: bool) -> None:
    from veritype.claims import is_hedged

    assert is_hedged(text) is hedged


def test_claims_are_resolved_to_their_referent_and_keep_their_words_for_display() -> None:
    answer = ("# Tower Bridge\nTower Bridge is a bridge in London. It opened in 1894. "
              "Its towers are 65 metres tall. The bridge crosses the Thames.")
    claims = decompose(answer).claims
    assert [c.text for c in claims] == [
        "Tower Bridge is a bridge in London.",
        "Tower Bridge opened in 1894.",
        "Tower Bridge's towers are 65 metres tall.",
        "Tower Bridge crosses the Thames.",
    ]
    assert [answer[c.start : c.end] for c in claims[1:]] == [c.written for c in claims[1:]]
    assert claims[1].shown == "It opened in 1894."


def test_a_heading_is_context_and_never_a_claim() -> None:
    claims = decompose("# Golden Gate Bridge\n\nIt opened in 1937.").claims
    assert [c.text for c in claims] == ["Golden Gate Bridge opened in 1937."]


@pytest.mark.parametrize(
    ("answer", "second"),
    [
        # "They" is the patients, not the trial: a plural pronoun needs a plural subject.
        ("The trial enrolled 300 adult patients. They received aspirin daily.",
         "They received aspirin daily."),
        ("The new museum opened in 2001. It holds 300 paintings.",
         "The new museum holds 300 paintings."),
        ("Marie Curie won the Nobel Prize in 1903. She was born in Warsaw.",
         "Marie Curie was born in Warsaw."),
        # A sentence that opens with a preposition has no subject a pronoun could take.
        ("In 1894 the bridge opened. It was busy.", "It was busy."),
        ("The bridges were closed in 1990. They reopened in 1992.",
         "The bridges reopened in 1992."),
        # A capitalised name after "The" is the name itself, not a description of it.
        ("The Eiffel Tower opened in 1889. The Eiffel Tower is 330 metres tall.",
         "The Eiffel Tower is 330 metres tall."),
        # A description said to be a name: "It" is the name.
        ("The quickest way into town is the Airport Express train. It leaves every 15 "
         "minutes.", "The Airport Express train leaves every 15 minutes."),
        ("The capital of France is Paris. It has two airports.", "Paris has two airports."),
        # ... a numbered name in lower case, and a relative clause on the name.
        ("The cheaper option is airport bus 30, which stops at the harbour. It runs every 20 "
         "minutes.", "Airport bus 30 runs every 20 minutes."),
        # A year after a preposition is no number of a name.
        ("The bridge was the longest in 1998. It is painted red.",
         "The bridge is painted red."),
    ],
)
def test_pronouns_resolve_only_to_a_subject_they_agree_with(answer: str, second: str) -> None:
    assert texts(answer)[1] == second


def test_a_pronoun_after_a_sentence_without_a_clear_subject_is_left_as_written() -> None:
    # "It" may be the wall or most of it: the sentence just before names no subject.
    answer = ("The Great Wall of China is over 21,000 km long. Most of what stands today was "
              "built in the Ming dynasty. It was built entirely in the Qin dynasty.")
    assert texts(answer)[2] == "It was built entirely in the Qin dynasty."


def test_it_costs_a_price_is_the_subject_and_it_costs_to_do_is_not() -> None:
    claims = decompose("The Voltra Sport is a light bike. It costs 2,799 euros.").claims
    assert claims[1].text == "The Voltra Sport costs 2,799 euros."
    claims = decompose("The Voltra Sport is a light bike. It costs 200 euros to replace the "
                       "battery.").claims
    assert claims[1].text.startswith("It costs 200 euros")
    # "to" before a place, not a verb: "It" is the subject.
    claims = decompose("The Metro Link train is the fastest way in. It takes 12 minutes to the "
                       "central square.").claims
    assert claims[1].text == "The Metro Link train takes 12 minutes to the central square."


def test_it_takes_a_time_to_a_place_is_the_subject_and_it_takes_time_to_do_is_not() -> None:
    claims = decompose("The Airport Express is a train. It takes 22 minutes to Varnholm "
                       "Central Station. It takes an hour to walk there.").claims
    assert claims[1].text == "The Airport Express takes 22 minutes to Varnholm Central Station."
    assert claims[2].text == "It takes an hour to walk there."
