"""Reading rows: the three file formats, the column spellings of other tools, bad rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veritype.checking import BadRow, CheckRow, Columns
from veritype.checking._rows import check_columns, parse_row, read_records
from veritype.errors import InputError


def _parsed(path: Path, columns: Columns | None = None) -> list[CheckRow | BadRow]:
    return [record if isinstance(record, BadRow) else (
        BadRow(line, record) if isinstance(record, str) else parse_row(line, record, columns or
                                                                       Columns()))
            for line, record in read_records(path)]


def test_ragas_deepeval_and_plain_spellings_are_recognised(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in [
        {"user_input": "Q1?", "response": "A one.", "retrieved_contexts": ["c1", "c2"]},
        {"input": "Q2?", "actual_output": "A two.", "retrieval_context": ["c3"]},
        {"question": "Q3?", "answer": "A three.", "contexts": "one context", "id": 7},
    ]) + "\n")
    rows = _parsed(path)
    assert rows == [
        CheckRow(1, "A one.", ("c1", "c2"), "Q1?"),
        CheckRow(2, "A two.", ("c3",), "Q2?"),
        CheckRow(3, "A three.", ("one context",), "Q3?", "7"),
    ]


def test_bad_rows_name_their_line_and_problem(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join([
        json.dumps({"answer": "fine", "contexts": ["c"]}),
        "{broken",
        json.dumps({"answer": "", "contexts": ["c"]}),
        "",
        json.dumps({"answer": "x", "contexts": [1, 2]}),
        json.dumps({"answer": "x", "contexts": ["  "]}),
        json.dumps(["a list"]),
        json.dumps({"answer": "x"}),
        json.dumps({"answer": "x\x00y", "contexts": ["c"]}),
    ]) + "\n")
    bad = {row.line: row.problem for row in _parsed(path) if isinstance(row, BadRow)}
    assert set(bad) == {2, 3, 5, 6, 7, 8, 9}
    assert "not valid JSON" in bad[2]
    assert "answer is empty" in bad[3]
    assert "every context must be text" in bad[5]
    assert "no context has any text" in bad[6]
    assert "not an object" in bad[7]
    assert "no contexts column" in bad[8]
    assert "NUL" in bad[9]


def test_csv_cells_hold_lists_as_json_or_python_repr(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        'question,answer,contexts\n'
        'Q1?,A1,"[""first"", ""second""]"\n'
        "Q2?,A2,\"['pandas wrote', 'this']\"\n"
        'Q3?,"A3, with a comma",just one text\n'
        'Q4?,A4,ctx,surplus\n'
    )
    rows = _parsed(path)
    assert rows[:3] == [
        CheckRow(2, "A1", ("first", "second"), "Q1?"),
        CheckRow(3, "A2", ("pandas wrote", "this"), "Q2?"),
        CheckRow(4, "A3, with a comma", ("just one text",), "Q3?"),
    ]
    assert rows[3] == BadRow(5, "more cells than the header has columns")


@pytest.mark.needs_parquet
def test_parquet_rows_with_list_columns(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"question": ["Q1?", "Q2?"], "answer": ["A1", None],
                             "contexts": [["c1", "c2"], ["c3"]]}), path)
    rows = _parsed(path)
    assert rows[0] == CheckRow(1, "A1", ("c1", "c2"), "Q1?")
    assert isinstance(rows[1], BadRow) and rows[1].line == 2


def test_named_columns_override_the_spellings(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"q": "Q?", "a": "A.", "docs": ["d"], "answer": "not this"}) + "\n")
    rows = _parsed(path, Columns(question="q", answer="a", contexts="docs"))
    assert rows == [CheckRow(1, "A.", ("d",), "Q?")]


def test_a_file_without_the_column_is_refused_naming_what_it_has() -> None:
    records = [{"prompt": "Q?", "completion": "A.", "docs": ["d"]}]
    with pytest.raises(InputError, match=r"no answer column.*completion, docs, prompt.*"
                                         r"--answer-column"):
        check_columns(records, Columns(), "rows.jsonl")


def test_unknown_suffix_and_missing_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "rows.xlsx").write_text("x")
    with pytest.raises(InputError, match=r"unknown file type '.xlsx'"):
        read_records(tmp_path / "rows.xlsx")
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "absent.jsonl")
