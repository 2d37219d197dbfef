"""What follows a copy of a claim: a second predicate of its subject, or a list's next item."""

from __future__ import annotations

from veritype._verbs import coordinates_a_predicate


def test_a_measure_of_another_dimension_coordinates_a_predicate() -> None:
    assert coordinates_a_predicate("and up to 38 metres deep")
    assert coordinates_a_predicate("and 12 m wide")
    # A list's next item, even with a number, is no predicate.
    assert not coordinates_a_predicate("and 38 metres of rope")
    assert not coordinates_a_predicate("and swiss francs")


def test_a_word_in_s_before_a_determiner_coordinates_a_predicate() -> None:
    # Verbs the lexicon lacks, known by the object that follows them.
    assert coordinates_a_predicate("and coaches the football team")
    assert coordinates_a_predicate("and runs the chess club")
    # A list's next noun takes no determiner after it.
    assert not coordinates_a_predicate("and games for one week")
    assert not coordinates_a_predicate("and helmets in three sizes")
