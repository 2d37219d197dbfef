"""The command-line progress display: a bar on a terminal, plain lines in a log."""

import subprocess
import sys
from pathlib import Path


def test_a_command_writing_to_a_log_reports_progress_as_plain_lines(
        tmp_path: Path, data_dir: Path) -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "veritype", "eval", "truthfulqa", "--data-dir", str(data_dir),
         "--views", "numeric,lexical", "--limit", "12", "--seeds", "0", "--resamples", "20",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False)
    assert finished.returncode == 0, finished.stderr
    lines = [line for line in finished.stderr.splitlines() if "verifying" in line]
    assert lines, finished.stderr
    done, total = lines[-1].split(": ")[-1].split()[0].split("/")
    assert done == total and int(total) > 0
    assert "min elapsed, ETA 0.0 min" in lines[-1]
    assert "\x1b[" not in finished.stderr
