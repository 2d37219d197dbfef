"""A claim that gives the asked value of a sibling of what the question names."""

from __future__ import annotations

from collections.abc import Sequence

from veritype.answers.question import analyse
from veritype.answers.siblings import Sibling, sibling_in_place, sibling_instead

LENDING = ["Books are lent for three weeks; films and games for one week.",
           "A fine of \u20ac0.20 per day is charged for overdue books."]
FINE = "A fine of \u20ac0.20 per day is charged for overdue books."
FARES = "A return ticket costs 180 kroner for adults and 90 kroner for children."


def _sibling(question: str, claim: str, about: str = "",
             evidence: Sequence[str] = ()) -> Sibling | None:
    return sibling_in_place(question, analyse(question).focus, claim, about, evidence)


def test_a_claim_naming_a_listed_sibling_in_the_asked_word_s_place_gives_its_value() -> None:
    assert _sibling("How much is the fine for an overdue film?", FINE,
                    evidence=LENDING) == Sibling("film", "books")
    assert _sibling("What is the fine for overdue games?", FINE,
                    evidence=LENDING) == Sibling("games", "books")


def test_a_compound_of_the_same_head_in_its_place_is_a_sibling() -> None:
    assert _sibling("How much is a 48-hour city card?", "- the 24-hour card costs 290 kroner; "
                    "- the 72-hour card costs 590 kroner.") == Sibling("48-hour", "24-hour")


def test_the_asked_word_held_by_the_claim_or_its_heading_is_no_sibling() -> None:
    assert _sibling("How much is the fine for an overdue book?", FINE, evidence=LENDING) is None
    assert _sibling("How much is the fine for an overdue film?",
                    "A fine of \u20ac0.20 per day is charged for overdue items.", about="Films",
                    evidence=LENDING) is None
    # "children" is the plural of "child".
    assert _sibling("How much is the fare for a child?", FARES,
                    evidence=["Adults and children pay the same fare."]) is None


def test_words_the_evidence_never_sets_side_by_side_are_no_siblings() -> None:
    # "main" and "museum" stand in one sentence, but not as items of a list.
    assert _sibling("Who designed the main building?",
                    "The museum building was designed by Ida Kraal.",
                    evidence=["The museum's main building was designed by Ida Kraal."]) is None
    assert _sibling("How much is the fine for an overdue film?", FINE,
                    evidence=LENDING[1:]) is None


def test_a_sibling_after_the_asked_words_preposition_stands_instead_of_it() -> None:
    question = "Which is cheaper for a child, the fjord cruise or the Holmø ferry?"
    focus = analyse(question).focus
    assert sibling_instead(question, focus, "Tickets cost 520 kroner for adults.",
                           "Fjord cruise", [FARES]) == Sibling("child", "adults")
    assert sibling_instead(question, focus, FARES, "Holmø", [FARES]) is None
    # Without the evidence setting them side by side, "adults" is no sibling of "child".
    assert sibling_instead(question, focus, "Tickets cost 520 kroner for adults.",
                           "Fjord cruise", ["Tickets are sold on board."]) is None
