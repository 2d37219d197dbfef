"""The command line's shared parts: progress as a bar on a terminal and plain lines in a
log, and help that shows no type beside a flag and reflows its paragraphs."""

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from veritype.cli import app


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


def test_help_shows_no_type_beside_a_flag() -> None:
    shown = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "160"})
    assert shown.exit_code == 0
    assert "<bool>" not in shown.output
    lines = {line.split()[1]: line for line in shown.output.splitlines()
             if line.startswith("│ --")}
    assert "<path>" in lines["--out"] and "<float>" in lines["--tau"]


def test_help_paragraphs_reflow_to_the_terminal() -> None:
    shown = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0
    line = next(line for line in shown.output.splitlines() if "API keys come from" in line)
    assert "open and may only bind to a loopback address" in line  # not cut at 88 columns
