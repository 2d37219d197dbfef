"""Reading user files as text, with errors that name the file and the problem; a lock on a
path shared by processes."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from veritype.errors import InputError

# How much of a file decides whether it is text.
_SNIFF_BYTES = 8192
# Formats that begin with a fixed signature, for a clear reason when one is named as text.
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive or Office document"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x7fELF", "an executable"),
    (b"SQLite format 3\x00", "a SQLite database"),
)
# Byte order marks of encodings that are text, but not UTF-8 (the longer ones first).
_WIDE_ENCODINGS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
# C0 control bytes that text does not hold (tab, line breaks, form feed and escape it may).
_CONTROL_BYTES = bytes(set(range(32)) - {9, 10, 11, 12, 13, 27})
# Share of control bytes above which a file is binary; real text has almost none, so a stray
# NUL stays far below it, while compressed or encoded data holds about one byte in ten
# (and is then no UTF-8 either: the lower share decides).
_BINARY_SHARE = 0.10
_BINARY_SHARE_NOT_UTF8 = 0.01


def binary_reason(head: bytes, *, decodes: bool) -> str | None:
    """Why a file that begins with ``head`` is not text, or ``None`` if it may be."""
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return f"looks like {kind}, not text"
    for mark, encoding in _WIDE_ENCODINGS:
        if head.startswith(mark):
            return f"is {encoding} text; save it as UTF-8"
    if not head:
        return None
    share = sum(head.count(byte) for byte in _CONTROL_BYTES) / len(head)
    if share > _BINARY_SHARE or (share > _BINARY_SHARE_NOT_UTF8 and not decodes):
        return "looks like a binary file, not text"
    return None


def read_text_file(path: Path) -> str:
    """Read ``path`` as UTF-8 text (a BOM is allowed); refuse binary or undecodable files,
    but not text with a stray control character."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        undecodable: UnicodeDecodeError | None = error
    else:
        undecodable = None
    binary = binary_reason(data[:_SNIFF_BYTES], decodes=undecodable is None)
    if binary is not None:
        raise InputError(f"{path}: {binary}")
    if undecodable is not None:
        raise InputError(
            f"{path}: is not valid UTF-8 text (byte {undecodable.start}: {undecodable.reason})"
        ) from undecodable
    # Stray control characters (a NUL among them) stay: the ingest turns them into spaces.
    return text


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """A lock on ``path`` held across processes, on a file beside it (released when that file
    is closed, so also when a process dies)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with (path.parent / f".{path.name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
