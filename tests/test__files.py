from pathlib import Path

import pytest

from veritype._files import binary_reason, read_text_file
from veritype.errors import InputError


def test_reads_utf8_with_or_without_bom(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_text("caf\u00e9", encoding="utf-8")
    bom = tmp_path / "b.txt"
    bom.write_bytes(b"\xef\xbb\xbfcaf\xc3\xa9")
    assert read_text_file(plain) == read_text_file(bom) == "caf\u00e9"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bin.dat", b"\x89PNG\r\n\x1a\n\x00\x00\x00", "looks like a PNG image, not text"),
        ("controls.dat", b"\x00\x01\x02\x03binary", "looks like a binary file, not text"),
        ("utf16.txt", "café".encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
        ("latin.txt", b"caf\xe9 au lait", "is not valid UTF-8 text \\(byte 3"),
    ],
)
def test_refuses_binary_and_undecodable(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_text_file(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_text_file(tmp_path / "missing.txt")
    with pytest.raises(InputError, match="is a directory"):
        read_text_file(tmp_path)


def test_text_with_a_stray_nul_is_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"The tower is 330 metres tall.\x00 It opened in 1889.\n")
    assert read_text_file(path) == "The tower is 330 metres tall.\x00 It opened in 1889.\n"


def test_data_that_is_mostly_controls_or_not_utf8_is_binary() -> None:
    noise = bytes((index * 97 + 13) % 256 for index in range(4096))
    assert binary_reason(noise, decodes=False) == "looks like a binary file, not text"
    assert binary_reason(b"plain text " * 100 + b"\x00", decodes=True) is None
