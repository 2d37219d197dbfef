"""Markdown tables read row by row: each row a sentence of its own, read with its header.

"| Sandbox | 60 | 5 per second |" says nothing alone; under "| Environment | Requests per
minute | Burst |" it says "Environment: Sandbox; Requests per minute: 60; Burst: 5 per
second." The sentence splitter makes each line of a table a sentence of its own (the
separator line none), so a row is cited by its own span; the drafter quotes a row, and the
views read it, as that reading.
"""

from __future__ import annotations

import re

# A line of a Markdown table: it opens with "|" (after indentation).
_TABLE_LINE = re.compile(r"[ \t]*\|")
# The line under a table's header: "|---|:--:|".
_SEPARATOR = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$")


def is_table_line(line: str) -> bool:
    """Whether ``line`` is a line of a Markdown table (a row or its separator)."""
    return _TABLE_LINE.match(line) is not None


def is_separator(line: str) -> bool:
    """Whether ``line`` is the separator under a table's header ("|---|---|")."""
    return _SEPARATOR.match(line) is not None


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [" ".join(cell.split()) for cell in inner.split("|")]


def table_row_reading(text: str, start: int, end: int) -> str | None:
    """The row of a Markdown table at ``text[start:end]`` read with its header ("Environment:
    Sandbox; Requests per minute: 60; Burst: 5 per second."); None when the span is no row
    under a header in ``text`` (a sentence, a header row, a table cut off above its
    header)."""
    row = text[start:end]
    if "\n" in row or not is_table_line(row) or is_separator(row):
        return None
    lines_above = text[:start].split("\n")[:-1]
    header: str | None = None
    for above, line in zip(lines_above[-2::-1], lines_above[::-1], strict=False):
        if not is_table_line(line):
            return None
        if is_separator(line):
            header = above if is_table_line(above) and not is_separator(above) else None
            break
    if header is None:
        return None
    names, values = _cells(header), _cells(row)
    pairs = [f"{name}: {value}" if name else value
             for name, value in zip(names, values, strict=False) if value]
    return "; ".join(pairs) + "." if pairs else None
