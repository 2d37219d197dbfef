"""The question analyser reads what kind of value would answer a question, of what, and
whether a sentence holds it."""

from __future__ import annotations

import pytest

from veritype.answers.question import AnswerKind, analyse
from veritype.errors import InputError


@pytest.mark.parametrize(("question", "kind", "focus"), [
    ("When did the Golden Gate Bridge open?", AnswerKind.DATE, {"open"}),
    ("What is the range of the Voltra Trek?", AnswerKind.QUANTITY, {"range"}),
    ("How long is the battery warranty?", AnswerKind.QUANTITY, {"battery", "warranty"}),
    ("How long does it take to charge the Trek's battery?", AnswerKind.DURATION,
     {"charge", "battery"}),
    ("Who designed the Sydney Harbour Bridge?", AnswerKind.PERSON, {"design"}),
    ("Where did Rosalind Franklin work?", AnswerKind.PLACE, {"work"}),
    ("Is the Voltra Sport waterproof?", AnswerKind.YES_NO, {"waterproof"}),
    ("Who is the CEO of Voltra?", AnswerKind.PERSON, {"ceo"}),
    ("Which is heavier, the Trek or the Cargo?", AnswerKind.COMPARISON, {"weigh"}),
    # A contracted question word is the question word, not a focus word.
    ("What's the default page size for list endpoints?", AnswerKind.QUANTITY,
     {"default", "page", "size", "list", "endpoint"}),
    ("What is the date of the bridge's opening?", AnswerKind.DATE, {"date", "bridge", "open"}),
])
def test_kind_and_focus(question: str, kind: AnswerKind, focus: set[str]) -> None:
    analysed = analyse(question)
    assert analysed.kind is kind
    assert analysed.focus == focus


@pytest.mark.parametrize(("question", "kind"), [
    # Asked after a comma, with no question word: a yes or no.
    ("Wink and Aquafina are drinks, are they both owned by Canada Dry?", AnswerKind.YES_NO),
    ("John Gunther and Halldor Laxness, are American?", AnswerKind.YES_NO),
    ("Cydista and Pachystegia, are related to what?", AnswerKind.DESCRIPTION),
    ("Lou Reed and Jack Russell, are of which nationality?", AnswerKind.DESCRIPTION),
])
def test_a_yes_no_question_may_ask_after_a_comma(question: str, kind: AnswerKind) -> None:
    assert analyse(question).kind is kind


def test_a_comparison_names_both_sides_without_their_kind_words() -> None:
    analysed = analyse("Which bridge opened first, the Brooklyn Bridge or Tower Bridge?")
    # "Tower" is itself a kind word: a name of kind words only keeps them all.
    assert analysed.sides == (frozenset({"brooklyn"}), frozenset({"tower", "bridge"}))
    assert analyse("Which has the longer range, the City or the Sport?").sides == (
        frozenset({"city"}), frozenset({"sport"}))
    assert analyse("Is the Sport faster or slower?").sides == ()


@pytest.mark.parametrize(("question", "sentence", "answers"), [
    ("When did the Golden Gate Bridge open?", "The bridge opened to traffic on May 27, 1937.",
     True),
    ("When did the Golden Gate Bridge open?", "Its main span is 1,280 metres long.", False),
    ("What is the range of the Voltra Trek?", "Its range is up to 140 km on one charge.", True),
    ("What is the range of the Voltra Trek?", "The Trek costs 3,499 euros.", False),
    ("How long is the battery warranty?",
     "Batteries are covered for 2 years or 500 charge cycles, whichever comes first.", True),
    ("How long is the battery warranty?",
     "Voltra frames carry a lifetime warranty for the original owner.", False),
    ("Who designed the Golden Gate Bridge?",
     "The bridge was designed by the engineer Joseph Strauss.", True),
    ("Who designed the Golden Gate Bridge?", "The Golden Gate Bridge was designed in a hurry.",
     False),
    ("Who is the CEO of Voltra?", "The company was founded by Anna de Vries.", False),
    ("Is the Voltra Sport waterproof?", "The Sport is not waterproof.", True),
    ("Is the Voltra Sport waterproof?", "The Sport weighs only 17 kg.", False),
    # A stretch of time, not any number near the focus words.
    ("How long does it take to charge the Trek's battery?",
     "The battery charges fully in 6 hours.", True),
    ("How long does it take to charge the Trek's battery?",
     "Its range is up to 140 km on one charge.", False),
    ("How long did the construction of the bridge last?",
     "Construction lasted four years.", True),
])
def test_a_sentence_answers_only_with_a_value_of_the_kind_on_the_focus(
    question: str, sentence: str, answers: bool
) -> None:
    assert analyse(question).answers(sentence) is answers


def test_each_side_of_a_comparison_is_answered_by_its_own_sentence() -> None:
    analysed = analyse("Which has the longer range, the City or the Sport?")
    city, sport = analysed.sides
    sentence = "The City has a 400 Wh battery and a range of up to 70 km."
    assert analysed.side_answered(city, sentence)
    assert not analysed.side_answered(sport, sentence)
    assert analysed.side_answered(sport, "Its range is up to 90 km.", about="Voltra Sport")


def test_a_number_that_names_a_side_is_not_its_value() -> None:
    analysed = analyse("Which gets you into town faster, the Airport Express or bus 30?")
    bus = analysed.sides[1]
    assert not analysed.side_answered(
        bus, "The cheaper option is airport bus 30, which stops at the Old Town.")
    assert analysed.side_answered(bus, "Airport bus 30 takes about 45 minutes into town.")


def test_a_side_named_by_its_scope_is_a_value_stated_of_no_other_side() -> None:
    analysed = analyse("Was the paired reading effect bigger overall or for pupils on free "
                       "school meals?")
    overall, meals = analysed.sides
    whole = ("Pupils in paired reading schools made more progress than those in comparison "
             "schools, with an effect size of 0.21.")
    part = "The effect was larger for pupils eligible for free school meals, at 0.29."
    assert analysed.side_answered(overall, whole)
    assert not analysed.side_answered(overall, part)
    assert analysed.side_answered(meals, part, title="Paired reading with older pupils")
    assert not analysed.side_answered(meals, part)


def test_an_age_states_what_older_compares_without_naming_it() -> None:
    analysed = analyse("Do you have to be older to buy spirits or to buy beer?")
    spirits, beer = analysed.sides
    both = "You must be 18 to buy beer and wine, and 20 to buy spirits."
    assert analysed.side_answered(spirits, both) and analysed.side_answered(beer, both)
    assert not analysed.side_answered(spirits, "Spirits are sold in shops that close at 18:00.")


def test_a_side_is_named_by_its_words_and_its_sentence_outranks_its_heading() -> None:
    analysed = analyse("Which is longer, full-pay maternity leave or partner leave?")
    maternity, partner = analysed.sides
    copy = "Quillfield pays the first 16 weeks at full pay, and the next 23 weeks unpaid."
    assert analysed.names_side(maternity, copy, about="Maternity leave")
    assert not analysed.names_side(maternity, copy)
    partners = "Partners may take four weeks of partner leave at full pay."
    assert analysed.names_side(partner, partners, about="Maternity and partner leave")
    assert not analysed.names_side(maternity, partners, about="Maternity and partner leave")


def test_each_side_is_asked_alone_as_a_plain_question() -> None:
    analysed = analyse("Which study had more participants, the student sleep study or the "
                       "paired reading trial?")
    assert analysed.side_question(0) == (
        "Which study had more participants, the student sleep study?")
    assert analysed.side_question(1) == (
        "Which study had more participants, the paired reading trial?")
    assert analyse("Do drivers or warehouse staff work longer weeks?").side_question(1) == (
        "Do warehouse staff work longer weeks?")
    assert analyse("When did Tower Bridge open?").side_question(0) == (
        "When did Tower Bridge open?")


@pytest.mark.parametrize(("question", "sides", "focus"), [
    # A comparative the question's noun names the attribute of; each side is the words that
    # tell it from the other.
    ("Which expires sooner, an access token or a refresh token?",
     (frozenset({"access"}), frozenset({"refresh"})), {"expir"}),
    ("Which is longer, full-pay maternity leave or partner leave?",
     (frozenset({"full-pay", "maternity"}), frozenset({"partner"})), set()),
    # "study" and "trial" say what kind of thing a side is, not which one.
    ("Which study had more participants, the student sleep study or the paired reading trial?",
     (frozenset({"student", "sleep"}), frozenset({"paired", "reading"})), {"participant"}),
    # Asked with an auxiliary: the sides stand between it and the verb.
    ("Do drivers or warehouse staff work longer weeks?",
     (frozenset({"drivers"}), frozenset({"warehouse", "staff"})), {"work", "week"}),
    # Compound modifiers of one head noun: the head is of both sides.
    ("Do full-time or part-time employees get more leave days?",
     (frozenset({"full-time"}), frozenset({"part-time"})), {"employe", "leave", "day"}),
    # A side with a name is its name; the attribute is the one named, not "higher"'s height.
    ("Which hotel limit is higher, London or the rest of the UK?",
     (frozenset({"london"}), frozenset({"uk"})), {"hotel", "limit"}),
    ("Which has more steps, the cathedral tower or the Holmø lighthouse?",
     (frozenset({"cathedral", "tower"}), frozenset({"holmø"})), {"step"}),
])
def test_comparisons_read_beyond_which_and_a_fixed_list_of_words(
        question: str, sides: tuple[frozenset[str], ...], focus: set[str]) -> None:
    analysed = analyse(question)
    assert analysed.kind is AnswerKind.COMPARISON
    assert analysed.sides == sides
    assert analysed.focus == focus


def test_a_comparative_before_or_compares_what_follows_it_with_what_follows_or() -> None:
    gain = analyse("Was the biochar yield gain bigger in the driest season or across all "
                   "three seasons?")
    assert gain.kind is AnswerKind.COMPARISON
    assert gain.side_texts == ("in the driest season", "across all three seasons")
    assert analyse("Do you have to be older to buy spirits or to buy beer?").sides == (
        frozenset({"spirits"}), frozenset({"beer"}))


def test_a_long_side_is_named_by_all_but_one_of_its_words() -> None:
    meals = analyse("Can I claim more for meals on an overnight stay or on a long day trip?")
    overnight, day_trip = meals.sides
    sentence = "On a day trip of more than ten hours, you may claim up to £12 for one meal."
    assert meals.names_side(day_trip, sentence)
    assert not meals.names_side(overnight, sentence)


def test_a_question_of_money_is_answered_by_a_sum_not_by_another_figure() -> None:
    cheaper = analyse("Which is cheaper for a child, the fjord cruise or the Holmø ferry?")
    ferry = cheaper.sides[1]
    assert cheaper.money
    assert cheaper.side_answered(ferry, "A child's return on the Holmø ferry costs 90 kroner.")
    assert not cheaper.side_answered(ferry, "The Holmø ferry takes 50 minutes.")
    assert not analyse("How many weeks of full sick pay do I get?").money


def test_a_side_named_in_the_plural_or_in_its_heading_is_answered() -> None:
    analysed = analyse("Which costs more for an adult, Kunsthall Varn or the Maritime Museum?")
    kunsthall, museum = analysed.sides
    assert analysed.side_answered(kunsthall, "Admission costs 170 kroner.", about="Kunsthall Varn")
    assert not analysed.side_answered(museum, "Admission costs 170 kroner.",
                                      about="Kunsthall Varn")
    tokens = analyse("Which expires sooner, an access token or a refresh token?")
    assert tokens.side_answered(tokens.sides[0], "Access tokens expire after 60 minutes.")


def test_an_empty_question_is_refused() -> None:
    with pytest.raises(InputError, match="empty"):
        analyse("  ")


@pytest.mark.parametrize(("sentence", "holds"), [
    ("The bridge's main span is 1,280 metres long.", False),
    ("The bridge opened in 1937.", False),
    ("About 112,000 vehicles cross the bridge each day.", True),
    ("Two towers hold the cables.", True),
])
def test_how_many_asks_for_a_count_not_a_measure(sentence: str, holds: bool) -> None:
    question = analyse("How many cars cross the Golden Gate Bridge each day?")
    assert question.counts
    assert question.holds_kind(sentence) is holds


def test_a_count_in_a_measure_answers_when_the_question_counts_in_it() -> None:
    assert analyse("How many kilometres long is the Danube?").holds_kind(
        "The Danube is 2,850 km long.")
    assert not analyse("How much does the Voltra City weigh?").counts


def test_a_weight_question_is_answered_by_the_weight() -> None:
    question = analyse("How much does the Voltra City weigh?")
    assert question.names_asked_attribute("The City weighs 21 kg.")
    assert not question.names_asked_attribute("The City has a 400 Wh battery.")


@pytest.mark.parametrize(("question", "events"), [
    ("When did Marie Curie move to Paris?", {"move"}),
    ("When did the Golden Gate Bridge open to traffic?", {"open"}),
    ("Where did Rosalind Franklin work?", {"work"}),
    ("When was the Eiffel Tower completed?", set()),
    ("What is the range of the Voltra Trek?", set()),
    # Only a date or a place belongs to an event; "run through" is a relation.
    ("What country does Elstree and Watling Street run through?", set()),
    ("What instrument did Shannon Leto play in his band?", set()),
])
def test_a_did_question_names_the_event_it_asks_about(question: str, events: set[str]) -> None:
    assert analyse(question).events == frozenset(events)


def test_an_answer_states_the_asked_event_in_any_of_its_forms() -> None:
    question = analyse("When did Rosalind Franklin die?")
    assert question.names_asked_event("Rosalind Franklin died in 1958.")
    assert not question.names_asked_event("Rosalind Franklin was born in 1920.")
    assert analyse("When did the Berlin Wall fall?").names_asked_event(
        "The Berlin Wall fell on 9 November 1989.")
    assert analyse("How tall is the tower?").names_asked_event("The tower is 330 m tall.")


@pytest.mark.parametrize(("sentence", "holds"), [
    ("The bridge opened in 1937.", True),
    ("Cars are banned from the Old Town between 11:00 and 18:00.", True),
    ("On Friday and Saturday nights a night bus runs every hour.", True),
    ("In summer there are six departures a day.", True),
    ("From the eighth day you need a fit note from your doctor.", True),
    ("A key that has not been used for 180 days is revoked automatically.", True),
    ("Members may borrow up to twelve items at a time.", False),
    ("The ferry leaves from the Kvay terminal.", False),
])
def test_when_is_answered_by_a_time_a_day_a_season_or_a_span(sentence: str,
                                                             holds: bool) -> None:
    assert analyse("When does it happen?").holds_kind(sentence) is holds


def test_a_date_word_after_the_asked_phrase_does_not_make_a_question_ask_for_a_date() -> None:
    # "year" belongs to "in the tax year", not to the rate asked for.
    asked = analyse("What's the mileage rate once I've done 10,000 miles in the tax year?")
    assert asked.kind is AnswerKind.DESCRIPTION
    assert analyse("What's the closing day for entries?").kind is AnswerKind.DATE


def test_the_focus_may_be_named_by_the_heading_the_value_stands_under() -> None:
    asked = analyse("What's the default page size for list endpoints?")
    assert not asked.answers("The default is 25 items.")
    assert asked.answers("The default is 25 items.", about="Pagination Page size")
    # The value itself must be in the sentence, not in its heading.
    assert not asked.answers("The default can be changed.", about="Page size: 25 items")


def test_an_unstated_word_is_one_the_sentence_lacks_in_every_form_of_its_family() -> None:
    renewal = analyse("When must a renewal be refused?")
    sentence = "An item can be renewed twice, unless another member has reserved it."
    assert renewal.unstated(sentence) == ["refused"]
    assert renewal.describe() == "a date (refused, renewal)"
