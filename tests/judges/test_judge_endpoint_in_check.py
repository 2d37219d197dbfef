"""``veritype check`` asking its judge view of any OpenAI-compatible endpoint: here a real
llama.cpp server on loopback serving the judge model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROWS = [
    {"question": "When did the Golden Gate Bridge open?",
     "answer": "The Golden Gate Bridge opened to traffic in 1937.",
     "contexts": ["The Golden Gate Bridge opened to traffic on May 27, 1937."]},
    {"question": "Who designed the Brooklyn Bridge?",
     "answer": "The Brooklyn Bridge was designed by Gustave Eiffel.",
     "contexts": ["The Brooklyn Bridge was designed by John A. Roebling."]},
]


@pytest.mark.slow
def test_check_runs_the_judge_on_a_named_endpoint(judge_server: str, tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "veritype", "check", str(rows), "--out", str(tmp_path / "run"),
         "--views", "judge", "--view-option", "judge.judge=openai",
         "--view-option", f"judge.base_url={judge_server}", "--json"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["settings"]["view_options"] == {
        "judge": {"judge": "openai", "base_url": judge_server}}
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    claims = [row["claims"][0] for row in results["rows"]]
    assert claims[0]["views"]["judge"][0] == "entailed"
    right, wrong = (claim["views"]["judge"][1] for claim in claims)
    assert right > 0.5 > wrong, (right, wrong)
