"""``veritype check`` as a user runs it: outputs, exit codes, errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from check_support import BAND_ARGS, BAND_ROWS, BAND_TAU, BAND_TAU_LOW, IN_THE_BAND, ROWS

from veritype.aggregate import create_aggregator, recommended_thresholds


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


def test_strict_fails_a_check_that_skipped_a_row(rows_file: Path, tmp_path: Path) -> None:
    # rows_file's sixth row has an empty answer: without --strict it is skipped quietly.
    lenient = veritype("check", str(rows_file), "--out", str(tmp_path / "a"), "--json")
    assert lenient.returncode == 0, lenient.stderr
    strict = veritype("check", str(rows_file), "--out", str(tmp_path / "b"), "--json",
                      "--strict")
    assert strict.returncode == 1
    assert "1 row(s) skipped (--strict)" in strict.stderr
    assert json.loads(strict.stdout)["skipped"] == 1


def test_fail_under_gates_on_mean_faithfulness(rows_file: Path, tmp_path: Path) -> None:
    passing = veritype("check", str(rows_file), "--out", str(tmp_path / "a"), "--json",
                       "--fail-under", "0.1")
    assert passing.returncode == 0, passing.stderr
    summary = json.loads(passing.stdout)
    mean = summary["mean_faithfulness"]
    assert 0.1 < mean < 0.9
    # Unset, τ and τ' are the default aggregator's, stated as numbers, not left as null.
    assert (summary["tau"], summary["tau_low"]) == recommended_thresholds(
        create_aggregator("default"))
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


def test_uncertain_as_decides_whether_a_row_that_needs_review_fails(tmp_path: Path) -> None:
    path = tmp_path / "band.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in BAND_ROWS), encoding="utf-8")
    out = tmp_path / "run"
    gate = ("check", str(path), "--out", str(out), "--fail-under", "0.6", *BAND_ARGS)
    failing = veritype(*gate, "--json")
    assert failing.returncode == 1, failing.stderr
    assert "mean faithfulness 0.500 is below --fail-under 0.6 (--uncertain-as fail)" in (
        failing.stderr)
    summary = json.loads(failing.stdout)
    assert summary["verdicts"] == {"faithful": 1, "unfaithful": 1, "uncertain": 1,
                                   "no claims": 0}
    assert summary["needs_review"] == 1 and summary["failing_rows"] == 2
    assert (summary["tau"], summary["tau_low"], summary["uncertain_as"]) == (
        BAND_TAU, BAND_TAU_LOW, "fail")
    # The same run directory read with Uncertain claims passing: nothing is checked again.
    passing = veritype(*gate, "--json", "--uncertain-as", "pass")
    assert passing.returncode == 0, passing.stderr
    summary = json.loads(passing.stdout)
    assert summary["checked_now"] == 0 and summary["mean_faithfulness"] == 0.6667
    assert summary["failing_rows"] == 1 and summary["uncertain_as"] == "pass"
    with (out / "results.csv").open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [(row["verdict"], row["needs_review"], row["faithfulness"]) for row in table] == [
        ("uncertain", "true", "1.0000"), ("faithful", "false", "1.0000"),
        ("unfaithful", "false", "0.0000")]
    assert table[0]["uncertain_claims"].startswith(IN_THE_BAND)
    results = json.loads((out / "results.json").read_text())
    assert [row["needs_review"] for row in results["rows"]] == [True, False, False]
    report = (out / "report.html").read_text()
    legend = report.split("<ul id='legend'>", 1)[1].split("</p>", 1)[0]
    for words in ("support ≥ τ = 0.8", "τ&#x27; = 0.3 &lt; support &lt; τ = 0.8",
                  "uncertain (needs review)</span> no claim is Unsupported",
                  "Uncertain ones count towards faithfulness, and uncertain rows pass"):
        assert words in legend, words
    assert "<td class='needs-review'>needs review</td>" in report


def test_the_tables_name_the_row_that_needs_review_and_the_thresholds(
        tmp_path: Path) -> None:
    path = tmp_path / "band.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in BAND_ROWS), encoding="utf-8")
    done = veritype("check", str(path), *BAND_ARGS)
    assert done.returncode == 0, done.stderr
    shown = " ".join(done.stdout.split())
    assert "1 faithful, 1 unfaithful, 1 uncertain (needs review), 0 no claims" in shown
    assert "rows failing │ 2 (uncertain rows fail)" in shown
    assert "Verified at support ≥ τ = 0.8, Unsupported at ≤ τ' = 0.3, Uncertain between" in shown
    assert "line 1 (id needs-review) faithfulness 0.50, uncertain (needs review)" in shown
    assert f"uncertain {IN_THE_BAND}" in shown


def test_an_unknown_uncertain_as_is_a_usage_error(rows_file: Path) -> None:
    done = veritype("check", str(rows_file), "--uncertain-as", "maybe")
    assert done.returncode == 2 and "'maybe' is not one of" in done.stderr
