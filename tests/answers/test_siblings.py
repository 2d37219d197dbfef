"""A claim that gives the asked value of a sibling of what the question names."""

from __future__ import annotations

from veritype.answers.siblings import Sibling, sibling_in_place

LENDING = ["Books are lent for three weeks; films and games for one week.",
           "A fine of \u20ac0.20 per day is charged for overdue books."]
FINE = "A fine of \u20ac0.20 per day is charged for overdue books."


def test_a_claim_naming_a_listed_sibling_in_the_asked_word_s_place_gives_its_value() -> None:
    assert sibling_in_place("How much is the fine for an overdue film?", FINE, "",
                            LENDING) == Sibling("film", "books")
    assert sibling_in_place("What is the fine for overdue games?", FINE, "",
                            LENDING) == Sibling("games", "books")


def test_the_asked_word_held_by_the_claim_or_its_heading_is_no_sibling() -> None:
    assert sibling_in_place("How much is the fine for an overdue book?", FINE, "",
                            LENDING) is None
    assert sibling_in_place("How much is the fine for an overdue film?",
                            "A fine of \u20ac0.20 per day is charged for overdue items.",
                            "Films", LENDING) is None


def test_words_the_evidence_never_sets_side_by_side_are_no_siblings() -> None:
    # "main" and "museum" stand in one sentence, but not as items of a list.
    assert sibling_in_place("Who designed the main building?",
                            "The museum building was designed by Ida Kraal.", "",
                            ["The museum's main building was designed by Ida Kraal."]) is None
    assert sibling_in_place("How much is the fine for an overdue film?", FINE, "",
                            LENDING[1:]) is None
