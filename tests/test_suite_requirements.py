"""The suite's own rule for missing requirements: a test that needs the shared datasets is
skipped, with the reason, where they are absent, and fails in CI (``CI=true``), where a
missing dataset means a broken setup."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_TEST = "tests/evaluation/test_eval_cli.py::test_halueval_run"


def run_data_test(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["VERITYPE_DATA_DIR"] = str(tmp_path / "no-datasets-here")
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", DATA_TEST, "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize("ci", [False, True], ids=["outside-ci", "in-ci"])
def test_missing_datasets_skip_outside_ci_and_fail_in_ci(tmp_path: Path, ci: bool) -> None:
    result = run_data_test(tmp_path, ci)
    output = result.stdout + result.stderr
    assert "datasets not found at" in output and "VERITYPE_DATA_DIR" in output
    if ci:
        # The datasets fixture fails, so pytest counts an error in the test's setup.
        assert result.returncode == 1 and "1 error" in output and "skipped" not in output
    else:
        assert result.returncode == 0 and "1 skipped" in output
