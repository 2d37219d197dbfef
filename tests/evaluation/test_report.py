"""The run directory contract: names, files and JSON that the web viewer can read."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from veritype.evaluation.report import (
    PLOTS_NEED_EXTRA,
    RunResult,
    Table,
    latex_table,
    run_directory,
    write_run,
)


def test_run_directory_is_named_by_benchmark_and_time(tmp_path: Path) -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    first = run_directory(tmp_path, "nli", moment)
    second = run_directory(tmp_path, "nli", moment)
    assert first.name == "nli-20260102-030405"
    assert second.name == "nli-20260102-030405-2"


def test_write_run_files_and_json(tmp_path: Path) -> None:
    def plot(path: Path) -> None:
        path.write_bytes(b"\x89PNG\r\n")

    result = RunResult(
        benchmark="demo",
        config={"views": ["nli"]},
        headline={"precision": 0.5, "configuration": "vote @ τ=0.8"},
        sections={"details": {"nan": float("nan"), "pair": (1, 2)}},
        tables=[Table("Rates & more_τ", ("name", "value"), [("a_b", 0.12345), ("c", None)])],
        plots={"curve": plot},
        examples=[{"id": "x", "claim": "c"}],
    )
    path = write_run(result, tmp_path)
    report = json.loads((path / "report.json").read_text())
    assert report["benchmark"] == "demo" and report["headline"]["precision"] == 0.5
    assert datetime.fromisoformat(report["created_at"]).tzinfo is not None
    assert report["details"] == {"nan": None, "pair": [1, 2]}
    assert report["machine"]["cpu"]["model"] and report["machine"]["libraries"]["onnxruntime"]
    # The shipped verifier scores each pair alone, so its scores repeat exactly.
    assert report["determinism"]["deterministic"] is True
    assert report["determinism"]["max_abs_difference"] == 0.0
    markdown = (path / "report.md").read_text()
    assert "| a_b | 0.123 |" in markdown
    assert (path / "examples.jsonl").read_text().count("\n") == 1
    # With the eval extra the plots are drawn; on a core install they are skipped and the
    # run says so (the core test lane runs the second branch).
    if importlib.util.find_spec("matplotlib") is not None:
        assert report["images"] == ["curve.png"] and (path / "curve.png").is_file()
        assert "![curve.png](curve.png)" in markdown and report["notes"] == []
    else:
        assert report["images"] == [] and not (path / "curve.png").exists()
        assert report["notes"] == [PLOTS_NEED_EXTRA] == result.notes


def test_latex_table_escapes_specials() -> None:
    text = latex_table(Table("P & R at τ", ("name", "50%"), [("a_b", 1.0)]), "t")
    assert r"P \& R at $\tau$" in text and r"50\%" in text and r"a\_b & 1.000 \\" in text


RESULTS_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "eval_results.py"


def test_result_files_are_written_from_run_directories(tmp_path: Path) -> None:
    result = RunResult(benchmark="demo", config={}, headline={"precision": 0.5},
                       sections={"split": {"pr_curves": {"vote": [[0.1, 0.9]]}, "kept": 1}})
    run = write_run(result, tmp_path / "runs")
    out, docs = tmp_path / "results", tmp_path / "docs"
    done = subprocess.run([sys.executable, str(RESULTS_SCRIPT), str(run), f"{run}=demo-named",
                           "--out", str(out), "--docs", str(docs)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    written = json.loads((out / "eval_demo.json").read_text())
    assert written["split"] == {"kept": 1} and written["run_directory"] == run.name
    assert written["machine"] == json.loads((run / "report.json").read_text())["machine"]
    assert json.loads((out / "eval_demo-named.json").read_text()) == written
    page = (docs / "demo.md").read_text()
    assert run.name in page.splitlines()[0] and "# veritype eval demo" in page
    # Two runs that would write one name are refused, and so is a directory that is not a
    # run; nothing is written for either.
    for runs, message in (([str(run), str(run)], "two runs would write one name"),
                          ([str(tmp_path)], "no report.json")):
        refused = subprocess.run([sys.executable, str(RESULTS_SCRIPT), *runs, "--out",
                                  str(tmp_path / "none"), "--docs", str(tmp_path / "none")],
                                 capture_output=True, text=True, check=False)
        assert refused.returncode == 2 and message in refused.stderr
        assert not (tmp_path / "none").exists()
