"""A bare answer and its question rewritten as the statement they make."""

from __future__ import annotations

import pytest

from veritype.answers.statements import answered_statement

CASES = [
    # Yes or no: the auxiliary after the subject, "not" for no.
    ("Is the Eiffel Tower in Paris?", "Yes", "The Eiffel Tower is in Paris."),
    ("Is the Eiffel Tower in Paris?", "No.", "The Eiffel Tower is not in Paris."),
    ("Did Holly Hunter star in The Piano?", "yes", "Holly Hunter did star in The Piano."),
    ("Does the library charge fines for overdue books?", "yes",
     "The library does charge fines for overdue books."),
    ("Is the children's section open on Sundays?", "no",
     "The children's section is not open on Sundays."),
    ("Is the museum open on Mondays in winter?", "yes", "The museum is open on Mondays in winter."),
    ("Is the band Texas from Scotland?", "yes", "The band Texas is from Scotland."),
    ("Lou Gramm, is he American?", "yes", "Lou Gramm, he is American."),
    ("Is Tennessee Titans' Corey Davis a wide receiver?", "no",
     "Tennessee Titans' Corey Davis is not a wide receiver."),
    ("Can members renew an item twice?", "yes", "Members can renew an item twice."),
    ("Has Voltra ever sold a bike in Japan?", "no", "Voltra has never sold a bike in Japan."),
    # Options: the chosen one in their place.
    ("Which was released first, The True Glory or American Pimp?", "The True Glory",
     "The True Glory was released first."),
    ("Which was released first, The True Glory or American Pimp?", "American Pimp",
     "American Pimp was released first."),
    ("Which band was formed first Relient K or The Primitives?", "The Primitives",
     "The Primitives was formed first."),
    ("Who designed the building, Ida Kraal or the Verhoeven family?", "the Verhoeven family",
     "The Verhoeven family designed the building."),
    ("Who designed the building, Ida Kraal or the Verhoeven family?", "Ida Kraal",
     "Ida Kraal designed the building."),
    ("Which is open longer on weekdays, the main library or the children's section?",
     "the main library", "The main library is open longer on weekdays."),
    ("Which was released first, The True Glory or American Pimp?", "the true glory",
     "The True Glory was released first."),
    ("Does the Landseer or English Mastiff have a limited range of colors?", "English Mastiff",
     "English Mastiff does have a limited range of colors."),
    ("Did Holly Hunter star in The Piano or The Big White first?", "The Piano",
     "Holly Hunter did star in The Piano first."),
    ("Is Corey Davis the older or younger brother of Titus Davis?", "younger",
     "Corey Davis is the younger brother of Titus Davis."),
]


@pytest.mark.parametrize(("question", "answer", "statement"), CASES)
def test_a_bare_answer_and_its_question_make_one_statement(question: str, answer: str,
                                                           statement: str) -> None:
    assert answered_statement(question, answer) == statement


@pytest.mark.parametrize(("question", "answer"), [
    ("Who designed the Brooklyn Bridge?", "John A. Roebling"),  # no option, no yes or no
    ("Which bridge did Roebling design, the Brooklyn Bridge or Tower Bridge?", "Tower Bridge"),
    ("Which is older, the Brooklyn Bridge or Tower Bridge?", "the Golden Gate Bridge"),
    ("Who designed the Brooklyn Bridge?", "yes"),
    ("Is it?", "yes"),
    # A yes or no of two subjects at once.
    ("Do Ihor Podolchak and Roger Donaldson have the same nationality?", "no"),
    ("Are Indian School and In Search of the Second Amendment both documentaries?", "yes"),
    ("Do the band Texas and the singer Eagle-Eye Cherry both originate in Sweden?", "no"),
    ("Are both Liam Gallagher and Deron Miller known for lead vocals?", "yes"),
    ("John Gunther and Halldór Laxness, are American?", "no"),
    ("Wink and Aquafina are drinks, are they both owned by Canada Dry?", "yes"),
    ("", "yes"),
    ("Is the Eiffel Tower in Paris?", ""),
])
def test_what_the_rules_cannot_write_is_left_as_given(question: str, answer: str) -> None:
    assert answered_statement(question, answer) is None
