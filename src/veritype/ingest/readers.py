"""Turning files into document texts: plain text, Markdown, HTML, PDF, JSON Lines and CSV.

A reader either returns the documents of a file or raises :class:`UnreadableFileError` with a
reason a person can act on; problems confined to one row of a JSON Lines or CSV file are
reported as row warnings and the other rows are kept.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from veritype._files import read_text_file
from veritype.errors import InputError


class UnreadableFileError(InputError):
    """A file that cannot be ingested; the message says why."""


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """A document as read from a file, before it gets an id and chunks."""

    text: str
    title: str
    source: str
    media_type: str


@dataclass(frozen=True, slots=True)
class RecordFields:
    """Which fields of a JSON Lines / CSV row hold the text, the title and a stable id.

    ``None`` means: the first of the usual names that the row has.
    """

    text: str | None = None
    title: str | None = None
    identifier: str | None = None


@dataclass(slots=True)
class FileContents:
    documents: list[SourceDocument] = field(default_factory=list)
    row_warnings: list[str] = field(default_factory=list)


_TEXT_FIELDS = ("text", "content", "body", "abstract", "passage", "contents")
_TITLE_FIELDS = ("title", "name", "heading")
_ID_FIELDS = ("doc_id", "id", "_id", "docid", "uuid")

Reader = Callable[[Path, str, RecordFields], FileContents]


def _read_text(path: Path) -> str:
    try:
        return read_text_file(path)
    except InputError as error:
        raise UnreadableFileError(_reason(error, path)) from None


def _reason(error: Exception, path: Path) -> str:
    """The message of an error from ``read_text_file`` without its leading path."""
    return str(error).removeprefix(f"{path}: ")


def read_plain(path: Path, source: str, fields: RecordFields) -> FileContents:
    text = _read_text(path)
    return FileContents([SourceDocument(text, path.name, source, "text/plain")])


_MD_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.M)


def read_markdown(path: Path, source: str, fields: RecordFields) -> FileContents:
    text = _read_text(path)
    heading = _MD_HEADING.search(text)
    title = heading.group(1) if heading else path.name
    return FileContents([SourceDocument(text, title, source, "text/markdown")])


class _HTMLText(HTMLParser):
    """Visible text of an HTML page, with block elements turned into paragraph breaks."""

    _SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
    _BLOCKS = frozenset(
        """p div br li ul ol tr table section article header footer nav aside main h1 h2 h3 h4
        h5 h6 blockquote pre dd dt dl figure figcaption hr td th""".split()  # noqa: SIM905
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self._skipping = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif not self._skipping:
            self.parts.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        paragraphs = (part.strip() for part in "".join(self.parts).split("\n\n"))
        return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


def read_html(path: Path, source: str, fields: RecordFields) -> FileContents:
    parser = _HTMLText()
    parser.feed(_read_text(path))
    parser.close()
    text = parser.text()
    if not text:
        raise UnreadableFileError("the page has no visible text")
    title = " ".join("".join(parser.title_parts).split()) or path.name
    return FileContents([SourceDocument(text, title, source, "text/html")])


def read_pdf(path: Path, source: str, fields: RecordFields) -> FileContents:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    with _library_messages("pypdf") as messages:
        try:
            reader = PdfReader(path)
            if reader.is_encrypted:
                raise UnreadableFileError("the PDF is encrypted")
            pages = [page.extract_text() or "" for page in reader.pages]
            metadata = reader.metadata
            title = str(metadata.title) if metadata is not None and metadata.title else path.name
        except UnreadableFileError:
            raise
        except (PyPdfError, OSError, ValueError, KeyError, TypeError) as error:
            raise UnreadableFileError(
                f"not a readable PDF ({type(error).__name__}: {error})"
            ) from None
    # Pages become paragraphs, so no chunk or sentence runs across a page break unnoticed.
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text:
        raise UnreadableFileError("the PDF has no extractable text (scanned images need OCR first)")
    return FileContents(
        [SourceDocument(text, title, source, "application/pdf")],
        [f"{path}: {message}" for message in dict.fromkeys(messages)],
    )


class _Collected(logging.Handler):
    def __init__(self, messages: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.messages = messages

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


@contextmanager
def _library_messages(name: str) -> Iterator[list[str]]:
    """Collect a library's log warnings and Python warnings while reading, so they reach
    the user as the file's warnings (through the ingest's report), not raw on stderr."""
    messages: list[str] = []
    logger = logging.getLogger(name)
    handler = _Collected(messages)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield messages
        messages.extend(f"{name}: {warning.message}" for warning in caught)
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _pick(row: dict[str, Any], wanted: str | None, usual: tuple[str, ...]) -> str | None:
    if wanted is not None:
        return wanted if wanted in row else None
    return next((name for name in usual if name in row), None)


def _field_text(value: Any) -> str:
    """A field as text; lists of strings (e.g. an abstract split into sentences) are joined."""
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(item).strip() for item in value if str(item).strip())
    return str(value)


def _rows_to_documents(
    rows: list[tuple[int, dict[str, Any]]],
    path: Path,
    source: str,
    fields: RecordFields,
    media_type: str,
) -> FileContents:
    contents = FileContents()
    seen: set[str] = set()
    for line, row in rows:
        text_field = _pick(row, fields.text, _TEXT_FIELDS)
        if text_field is None:
            wanted = fields.text or " / ".join(_TEXT_FIELDS)
            contents.row_warnings.append(
                f"{path}:{line}: no text field {wanted!r} (fields: {', '.join(row)})"
            )
            continue
        text = _field_text(row[text_field])
        if not text.strip():
            contents.row_warnings.append(f"{path}:{line}: empty {text_field!r}")
            continue
        title_field = _pick(row, fields.title, _TITLE_FIELDS)
        id_field = _pick(row, fields.identifier, _ID_FIELDS)
        identifier = _field_text(row[id_field]) if id_field else ""
        key = identifier or f"line{line}"
        if key in seen:
            contents.row_warnings.append(f"{path}:{line}: duplicate id {key!r}, row skipped")
            continue
        seen.add(key)
        title = _field_text(row[title_field]) if title_field else ""
        contents.documents.append(SourceDocument(text, title, f"{source}#{key}", media_type))
    if rows and not contents.documents:
        raise UnreadableFileError(
            "no row has usable text"
            + (f": {contents.row_warnings[0]}" if contents.row_warnings else "")
        )
    return contents


def read_jsonl(path: Path, source: str, fields: RecordFields) -> FileContents:
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[str] = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            bad.append(f"{path}:{number}: invalid JSON ({error.msg})")
            continue
        if not isinstance(row, dict):
            bad.append(f"{path}:{number}: a row must be a JSON object")
            continue
        rows.append((number, row))
    if not rows:
        raise UnreadableFileError(bad[0] if bad else "the file has no rows")
    contents = _rows_to_documents(rows, path, source, fields, "application/jsonl")
    contents.row_warnings[:0] = bad
    return contents


def read_csv(path: Path, source: str, fields: RecordFields) -> FileContents:
    text = _read_text(path)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], ",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), dialect=dialect)
        rows = [(number, dict(row)) for number, row in enumerate(reader, start=2)]
    except csv.Error as error:
        raise UnreadableFileError(f"malformed CSV ({error})") from None
    if not rows:
        raise UnreadableFileError("the file has no rows")
    return _rows_to_documents(rows, path, source, fields, "text/csv")


READERS: dict[str, Reader] = {
    ".txt": read_plain,
    ".text": read_plain,
    ".rst": read_plain,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".html": read_html,
    ".htm": read_html,
    ".pdf": read_pdf,
    ".jsonl": read_jsonl,
    ".ndjson": read_jsonl,
    ".csv": read_csv,
    ".tsv": read_csv,
}


def read_file(path: Path, fields: RecordFields | None = None) -> FileContents:
    """Read one file into documents; an unknown suffix is read as plain text."""
    reader = READERS.get(path.suffix.lower(), read_plain)
    if not path.is_file():
        raise UnreadableFileError("no such file" if not path.exists() else "not a regular file")
    contents = reader(path, str(path.resolve()), fields or RecordFields())
    if not any(document.text.strip() for document in contents.documents):
        raise UnreadableFileError("the file is empty")
    return contents
