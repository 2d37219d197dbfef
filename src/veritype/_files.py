"""Reading user files as text, with errors that name the file and the problem."""

from __future__ import annotations

from pathlib import Path

from veritype.errors import InputError

# A NUL byte in the first block is the same heuristic git and grep use for "binary".
_SNIFF_BYTES = 8192


def read_text_file(path: Path) -> str:
    """Read ``path`` as UTF-8 text (a BOM is allowed); refuse binary or undecodable files."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from error
    if b"\0" in data[:_SNIFF_BYTES]:
        raise InputError(f"{path}: looks like a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path}: is not valid UTF-8 text (byte {error.start}: {error.reason})"
        ) from error
