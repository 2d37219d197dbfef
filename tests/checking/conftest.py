"""The checking tests' input file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from check_support import ROWS


@pytest.fixture
def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "rag_outputs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return path
