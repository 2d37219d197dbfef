"""``veritype check`` as a user runs it: outputs, exit codes, errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from check_support import ROWS


def veritype(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "veritype", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})


def test_check_writes_json_csv_and_html_and_prints_the_summary(rows_file: Path) -> None:
    done = veritype("check", str(rows_file))
    assert done.returncode == 0, done.stderr
    out = rows_file.with_name(rows_file.name + ".check")
    assert "mean faithfulness" in done.stdout and "rows checked / skipped │ 5 / 1" in done.stdout
    assert "skipped line 6: answer: the answer is empty or not text" in done.stderr
    assert "line 2 (id gg-wrong-date) faithfulness 0.00" in done.stdout, "worst rows are shown"
    assert "faithfulness 1.00" not in done.stdout, "faithful rows are not among the worst"
    results = json.loads((out / "results.json").read_text())
    assert results["summary"]["checked"] == 5 and results["bad_rows"] == [
        {"line": 6, "problem": "answer: the answer is empty or not text"}]
    with (out / "results.csv").open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [row["id"] for row in table] == [row["id"] for row in ROWS[:5]]
    assert table[0]["verdict"] == "faithful" and table[1]["verdict"] != "faithful"
    assert "<svg id='histogram'" in (out / "report.html").read_text()


def test_fail_under_gates_on_mean_faithfulness(rows_file: Path, tmp_path: Path) -> None:
    passing = veritype("check", str(rows_file), "--out", str(tmp_path / "a"), "--json",
                       "--fail-under", "0.1")
    assert passing.returncode == 0, passing.stderr
    mean = json.loads(passing.stdout)["mean_faithfulness"]
    assert 0.1 < mean < 0.9
    failing = veritype("check", str(rows_file), "--out", str(tmp_path / "a"), "--json",
                       "--fail-under", "0.9")
    assert failing.returncode == 1
    assert f"mean faithfulness {mean:.3f} is below --fail-under 0.9" in failing.stderr


def test_a_wrong_column_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"prompt": "Q", "completion": "A.", "contexts": ["c"]}) + "\n")
    done = veritype("check", str(path))
    assert done.returncode == 2
    assert "no answer column" in done.stderr and "--answer-column" in done.stderr
    assert "Traceback" not in done.stderr
    named = veritype("check", str(path), "--answer-column", "completion", "--json")
    assert named.returncode == 0, named.stderr
    assert json.loads(named.stdout)["checked"] == 1


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    done = veritype("check", str(tmp_path / "absent.jsonl"))
    assert done.returncode == 2 and "no such file" in done.stderr


def test_check_takes_a_config_an_aggregator_and_view_options(
        rows_file: Path, tmp_path: Path) -> None:
    config = tmp_path / "check.toml"
    config.write_text('views = ["numeric", "lexical"]\naggregator = "vote"\n'
                      '[view_options.lexical]\nsupport_threshold = 0.9\n')
    done = veritype("check", str(rows_file), "--out", str(tmp_path / "a"), "--json",
                    "--config", str(config), "--view-option", "numeric.cost=0.7")
    assert done.returncode == 0, done.stderr
    settings = json.loads(done.stdout)["settings"]
    assert settings["views"] == ["numeric", "lexical"] and settings["aggregator"] == "vote"
    assert settings["view_options"] == {"lexical": {"support_threshold": 0.9},
                                        "numeric": {"cost": 0.7}}
    overridden = veritype("check", str(rows_file), "--out", str(tmp_path / "b"), "--json",
                          "--config", str(config), "--views", "lexical")
    assert overridden.returncode == 0, overridden.stderr
    assert json.loads(overridden.stdout)["settings"]["views"] == ["lexical"]


def test_bad_check_settings_are_clear_errors(rows_file: Path, tmp_path: Path) -> None:
    config = tmp_path / "check.toml"
    config.write_text('viewz = ["numeric"]\n')
    for args, words in [
        (["--config", str(config)], "unknown keys viewz"),
        (["--view-option", "numeric"], "--view-option must look like VIEW.KEY=VALUE"),
        (["--view-option", "nli.model=x", "--views", "numeric"],
         "view options name views that are not checked: nli"),
        (["--aggregator", "majority"], "aggregator 'majority'"),
        (["--aggregator", "learned"], "needs path="),
    ]:
        done = veritype("check", str(rows_file), "--out", str(tmp_path / "x"), *args)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
