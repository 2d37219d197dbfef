"""A one-clause statement in the other voice."""

from __future__ import annotations

import pytest

from veritype._voice import other_voice


@pytest.mark.parametrize(("text", "turned"), [
    ("Odile Marchetti wrote the novel Salt Between Us.",
     "The novel Salt Between Us was written by Odile Marchetti."),
    ("Peter Lyall made the English translation in 1995.",
     "The English translation was made by Peter Lyall in 1995."),
    ("Harrow Press published the novel in 1988.",
     "The novel was published by Harrow Press in 1988."),
    ("The cover was designed by Greta Holm.", "Greta Holm designed the cover."),
    ("The tower was later rebuilt by the guild in 1610.",
     "The guild later rebuilt the tower in 1610."),
    ("Hyla verdana was named by Marta Quiroga after the green colour of its back.",
     "Marta Quiroga named Hyla verdana after the green colour of its back."),
])
def test_a_plain_clause_is_turned_round(text: str, turned: str) -> None:
    assert turned in other_voice(text)


def test_an_active_clause_is_read_with_either_number() -> None:
    assert other_voice("Kraal designed the houses.") == (
        "The houses was designed by Kraal.", "The houses were designed by Kraal.")


@pytest.mark.parametrize("text", [
    "Gustave Eiffel did not design the tower.",  # a negated clause
    "The tower was never rebuilt by the guild.",
    "The Rotary Club paid for the organ.",  # no object: a phrasal verb
    "The museum is open on Mondays.",  # no past tense
    "The museum designs its own posters.",
    "In 1962, the committee awarded the prize to Watson.",  # a lead-in before the subject
    "The bridge was built in 1840.",  # a passive without an agent
    "The bridge was designed by engineers who had built the dam.",  # a verb in the agent
])
def test_other_shapes_are_left_alone(text: str) -> None:
    assert other_voice(text) == ()
