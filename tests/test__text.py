from hypothesis import given
from hypothesis import strategies as st

from veritype._text import (
    ANAPHORIC_LEAD,
    content_words,
    has_negation,
    normalise_word,
    sentence_spans,
)


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def test_splits_plain_sentences() -> None:
    assert sentences("One fact. Another fact! A question? Last") == [
        "One fact.",
        "Another fact!",
        "A question?",
        "Last",
    ]


def test_keeps_abbreviations_decimals_and_initials_together() -> None:
    text = (
        "Dr. Smith paid $3.5 million on Jan. 5, 1889 in the U.S. for e.g. land. "
        "J. R. R. Tolkien wrote it."
    )
    assert sentences(text) == [
        "Dr. Smith paid $3.5 million on Jan. 5, 1889 in the U.S. for e.g. land.",
        "J. R. R. Tolkien wrote it.",
    ]


def test_terminator_inside_quotes_ends_after_the_closing_quote() -> None:
    assert sentences('He said "Stop." Then he left.') == ['He said "Stop."', "Then he left."]
    assert sentences("She asked \u201cWhy?\u201d Nobody knew.") == [
        "She asked \u201cWhy?\u201d",
        "Nobody knew.",
    ]


def test_blank_line_ends_a_sentence_and_whitespace_is_trimmed() -> None:
    assert sentences("  Title line\n\nBody text here.  ") == ["Title line", "Body text here."]


def test_ellipsis_and_version_numbers_do_not_split() -> None:
    assert sentences("Wait... and see version 2.1.3 work.") == [
        "Wait... and see version 2.1.3 work."
    ]


@given(st.text())
def test_spans_are_ordered_disjoint_and_trimmed(text: str) -> None:
    previous_end = 0
    for start, end in sentence_spans(text):
        assert previous_end <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        previous_end = end


def test_content_words_drop_stopwords_and_stem_lightly() -> None:
    assert content_words("The tower was opened in 1889 by the engineers.") == [
        "tower",
        "open",
        "1889",
        "engineer",
    ]
    assert normalise_word("studies") == "study"
    assert normalise_word("running") == "run"
    assert normalise_word("Paris") == "paris"


def test_negation_detection() -> None:
    assert has_negation("It was not built in 1889.")
    assert has_negation("It wasn\u2019t built in 1889.")
    assert has_negation("They never met.")
    assert not has_negation("It was built in 1889 and knotted.")


def test_anaphoric_lead_takes_pronouns_and_demonstratives_not_words_that_start_alike() -> None:
    leading = ("It was completed in 1889.", "their roots", "These results hold.", "That is all.")
    for sentence in leading:
        assert ANAPHORIC_LEAD.match(sentence), sentence
    for sentence in ("Italy is large.", "Theirs is red.", "Thesis defended.", "Hermes flew."):
        assert not ANAPHORIC_LEAD.match(sentence), sentence
