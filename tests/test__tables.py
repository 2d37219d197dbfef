"""Markdown tables read row by row, each row with its header."""

from __future__ import annotations

from veritype._tables import is_separator, is_table_line, table_row_reading
from veritype._text import sentence_spans

TABLE = ("Limits differ by environment.\n\n"
         "| Environment | Requests per minute | Burst |\n"
         "|---|:---:|--:|\n"
         "| Production | 600 | 50 per second |\n"
         "| Sandbox | 60 |  |\n"
         "The bulk endpoint has its own limit.")


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def test_each_line_of_a_table_is_a_sentence_and_its_separator_none() -> None:
    assert _sentences(TABLE) == [
        "Limits differ by environment.",
        "| Environment | Requests per minute | Burst |",
        "| Production | 600 | 50 per second |",
        "| Sandbox | 60 |  |",
        "The bulk endpoint has its own limit.",
    ]


def test_a_row_is_read_with_its_header_and_without_empty_cells() -> None:
    readings = [table_row_reading(TABLE, start, end) for start, end in sentence_spans(TABLE)]
    assert readings == [
        None,
        None,  # the header row
        "Environment: Production; Requests per minute: 600; Burst: 50 per second.",
        "Environment: Sandbox; Requests per minute: 60.",
        None,
    ]


def test_a_table_cut_off_above_its_header_has_no_reading() -> None:
    cut = "| Production | 600 | 50 per second |\n| Sandbox | 60 | 5 per second |"
    assert [table_row_reading(cut, start, end) for start, end in sentence_spans(cut)] == [
        None, None]


def test_table_lines_and_separators_are_told_apart() -> None:
    assert is_table_line("| a | b |") and is_table_line("  | a |")
    assert not is_table_line("a | b")
    assert is_separator("|---|:--:|") and is_separator("| --- | --- |")
    assert not is_separator("| - | b |")
