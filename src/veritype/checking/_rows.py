"""Reading (question, answer, contexts) rows from JSON Lines, CSV or Parquet files.

Column names are looked up in the row: the one given, else the first spelling of
:data:`ALIASES` the row has (the RAGAS, TruLens and DeepEval names included). A row that
cannot be checked becomes a :class:`BadRow` naming its line and the problem; reading goes on.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from veritype.errors import InputError

ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "user_input", "query", "input"),
    "answer": ("answer", "response", "actual_output", "output"),
    "contexts": ("contexts", "retrieved_contexts", "retrieval_context", "context"),
    "id": ("id", "row_id", "sample_id"),
}
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
           ".parquet": "parquet"}
PARQUET_NEEDS = 'reading Parquet needs pyarrow: pip install "veritype[parquet]"'
MAX_ANSWER_CHARS = 20_000
MAX_CONTEXT_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class Columns:
    """Which column holds each field; ``None`` looks the field up under :data:`ALIASES`."""

    question: str | None = None
    answer: str | None = None
    contexts: str | None = None
    id: str | None = None

    def lookup(self, field: str, record: Mapping[str, Any]) -> tuple[str | None, Any]:
        """The column name used for ``field`` in ``record`` and its value (``None, None`` when
        the record has none of the names)."""
        given: str | None = getattr(self, field)
        names = (given,) if given is not None else ALIASES[field]
        for name in names:
            if name in record:
                return name, record[name]
        return None, None

    def names(self, field: str) -> str:
        given: str | None = getattr(self, field)
        return given if given is not None else " or ".join(ALIASES[field])


@dataclass(frozen=True, slots=True)
class CheckRow:
    """One answer to check. ``line`` is its line in the file (the row number for Parquet and
    for rows given in Python), counted from 1."""

    line: int
    answer: str
    contexts: tuple[str, ...]
    question: str | None = None
    row_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "answer": self.answer, "contexts": list(self.contexts),
                "question": self.question, "row_id": self.row_id}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckRow:
        return cls(int(data["line"]), str(data["answer"]), tuple(data["contexts"]),
                   data.get("question"), data.get("row_id"))


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row that was skipped, with the reason."""

    line: int
    problem: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "problem": self.problem}


def file_format(path: Path) -> str:
    """``jsonl``, ``csv`` or ``parquet`` from the file's suffix; an unknown one is refused."""
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise InputError(f"{path}: unknown file type {path.suffix or '(none)'!r}; give JSON Lines "
                         f"(.jsonl), CSV (.csv) or Parquet (.parquet)")
    return found


def read_records(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | str]]:
    """``(line, record)`` for every record of the file, or ``(line, problem)`` for a record
    that is not a mapping (a line that is not a JSON object)."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    kind = file_format(path)
    if kind == "jsonl":
        return _jsonl(path)
    if kind == "csv":
        return _csv(path)
    return _parquet(path)


def _jsonl(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | str]]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                yield line, f"not valid JSON ({error.msg} at column {error.colno})"
                continue
            if not isinstance(record, dict):
                yield line, f"a JSON {type(record).__name__}, not an object"
                continue
            yield line, record


def _csv(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | str]]:
    # Contexts can be long: the default field limit (128 KiB) would refuse a whole document.
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        reader = csv.DictReader(handle)
        start = 2
        for record in reader:
            if None in record:
                yield start, "more cells than the header has columns"
            else:
                yield start, record
            start = reader.line_num + 1


def _parquet(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | str]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(PARQUET_NEEDS) from None
    try:
        table = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own error types for a broken file
        raise InputError(f"{path}: not a readable Parquet file ({error})") from None
    line = 0
    for batch in table.iter_batches(batch_size=1024):
        for record in batch.to_pylist():
            line += 1
            yield line, record


def parse_row(line: int, record: Mapping[str, Any], columns: Columns) -> CheckRow | BadRow:
    """The row to check, or why it cannot be checked."""
    name, answer = columns.lookup("answer", record)
    if name is None:
        return BadRow(line, f"no answer column ({columns.names('answer')})")
    if not isinstance(answer, str) or not answer.strip():
        return BadRow(line, f"{name}: the answer is empty or not text")
    if len(answer) > MAX_ANSWER_CHARS:
        return BadRow(line, f"{name}: the answer has {len(answer):,} characters; at most "
                            f"{MAX_ANSWER_CHARS:,} are checked")
    name, raw = columns.lookup("contexts", record)
    if name is None:
        return BadRow(line, f"no contexts column ({columns.names('contexts')})")
    contexts = _contexts(raw)
    if isinstance(contexts, str):
        return BadRow(line, f"{name}: {contexts}")
    question_name, question = columns.lookup("question", record)
    if isinstance(question, float) and math.isnan(question):
        question = None  # a DataFrame's empty cell
    if question is not None and not isinstance(question, str):
        return BadRow(line, f"{question_name}: the question is not text")
    _, row_id = columns.lookup("id", record)
    for field, text in (("answer", answer), ("question", question or ""), *(
            (f"contexts[{i}]", context) for i, context in enumerate(contexts))):
        if "\x00" in text:
            return BadRow(line, f"{field} holds a NUL character")
    return CheckRow(line, answer, contexts, question.strip() or None if question else None,
                    None if row_id is None else str(row_id))


def _contexts(raw: Any) -> tuple[str, ...] | str:
    """The contexts as texts, or what is wrong with them."""
    if isinstance(raw, str):
        raw = _decoded_list(raw)
    if isinstance(raw, str):
        texts: Sequence[Any] = [raw]
    elif isinstance(raw, Sequence):
        texts = raw
    elif raw is not None and hasattr(raw, "tolist"):  # a numpy array from a dataframe
        texts = raw.tolist()
    else:
        return "the contexts are neither a list of texts nor a text"
    if not all(isinstance(text, str) for text in texts):
        return "every context must be text"
    kept = tuple(text for text in texts if text.strip())
    if not kept:
        return "no context has any text"
    if sum(len(text) for text in kept) > MAX_CONTEXT_CHARS:
        return f"the contexts hold more than {MAX_CONTEXT_CHARS:,} characters"
    return kept


def _decoded_list(text: str) -> Any:
    """A CSV cell holding a list, written as JSON or as Python's repr (pandas writes that);
    any other text is one context."""
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return text
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def check_columns(records: Sequence[Mapping[str, Any]], columns: Columns, where: str) -> None:
    """Refuse a file whose first records have no answer or no contexts column at all: every
    row would be skipped, which is a wrong column name, not bad rows."""
    for field in ("answer", "contexts"):
        if records and all(columns.lookup(field, record)[0] is None for record in records):
            found = sorted({key for record in records for key in record})
            flag = f"--{field}-column"
            raise InputError(f"{where}: no {field} column: looked for {columns.names(field)}; "
                             f"the file has {', '.join(found) or 'no columns'} (name it with "
                             f"{flag})")
