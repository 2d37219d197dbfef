"""``veritype eval``: every benchmark on a small sample, through the CLI, to a run directory."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veritype.cli import app

runner = CliRunner()
RUN_FILES = {"report.json", "report.md", "table.tex"}


def _eval(tmp_path: Path, data_dir: Path, *args: str) -> Path:
    out = tmp_path / "runs"
    result = runner.invoke(
        app, ["eval", *args, "--data-dir", str(data_dir), "--out", str(out), "--resamples", "50"]
    )
    assert result.exit_code == 0, result.output + repr(result.exception)
    (run_dir,) = out.glob(f"{args[0]}-*")
    files = {path.name for path in run_dir.iterdir()}
    assert files >= RUN_FILES
    assert any(name.endswith(".png") for name in files)
    report = json.loads((run_dir / "report.json").read_text())
    assert report["benchmark"] == args[0]
    required = {"benchmark", "created_at", "config", "headline", "machine", "determinism"}
    assert required <= set(report)
    assert all(not isinstance(v, dict | list) for v in report["headline"].values())
    assert (run_dir / "report.md").read_text().startswith(f"# veritype eval {args[0]}")
    assert "\\begin{tabular}" in (run_dir / "table.tex").read_text()
    assert run_dir.name.startswith(f"{args[0]}-") and len(run_dir.name) == len(args[0]) + 16
    return run_dir


@pytest.mark.slow
def test_truthfulqa_run_reports_every_section(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _eval(tmp_path, data_dir, "truthfulqa", "--limit", "40")
    report = json.loads((run_dir / "report.json").read_text())
    main = report["release_2021"]
    assert main["questions"] == 40 and main["calibration_questions"] == 12
    configurations = main["configurations"]
    assert {"no verification", "view:nli", "view:align", "vote", "learned"} <= set(configurations)
    assert set(configurations["vote"]) == {"τ=0.2", "τ=0.4", "τ=0.6", "τ=0.8", "τ=1"}
    point = configurations["vote"]["τ=0.8"]
    assert point["ci95"]["precision"][0] <= point["precision"] <= point["ci95"]["precision"][1]
    assert sum(point["confusion"].values()) == main["held_out_claims"]
    assert {r["n"] for r in main["bound_vs_measured"]} == {1, 2, 3, 4}
    assert all(r["kl_bound"] >= r["exact_tail"] - 1e-12 for r in main["bound_vs_measured"])
    assert set(main["ablations"]["without_view"]) == {"numeric", "lexical", "nli", "align"}
    assert "nli~align" in main["pairwise_agreement"]
    assert main["mcnemar"] and 0.0 <= main["mcnemar"][0]["p_exact"] <= 1.0
    assert report["release_2025"]["claims"] > 0
    assert {"view:nli", "verify_wall", "reports", "plots"} <= set(report["timings"])
    assert {"pr_curves.png", "bound_scaling.png", "support_mass.png"} <= set(report["images"])


@pytest.mark.slow
def test_truthfulqa_learned_fits_on_calibration_only(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _eval(tmp_path, data_dir, "truthfulqa", "--limit", "30", "--views",
                    "lexical,nli", "--aggregator", "vote", "--tau", "0.5,1")
    report = json.loads((run_dir / "report.json").read_text())
    assert report["headline"]["configuration"].startswith("vote @ τ=")
    examples = [json.loads(line) for line in (run_dir / "examples.jsonl").open()]
    calibration = {e["group"] for e in examples if e["split"] == "calibration"}
    held = {e["group"] for e in examples if e["split"] == "held_out"}
    assert len(calibration) == 9 and not calibration & held


@pytest.mark.slow
def test_halueval_run(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _eval(tmp_path, data_dir, "halueval", "--limit", "3")
    report = json.loads((run_dir / "report.json").read_text())
    assert set(report["tasks"]) == {"qa", "dialogue", "summarization", "general"}
    assert report["tasks"]["qa"]["evaluation_examples"] == 6
    assert 0.0 <= report["headline"]["qa_accuracy"] <= 1.0


@pytest.mark.slow
def test_nli_run(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _eval(tmp_path, data_dir, "nli", "--limit", "6", "--views", "lexical,nli")
    report = json.loads((run_dir / "report.json").read_text())
    assert len(report["sets"]) == 9
    assert report["sets"]["rte_dev_2way"]["two_way"] is True
    assert report["headline"]["pairs"] == 54
    # Without numeric, whose rule the default reads, the default is not set beside the views.
    assert "default" not in report["sets"]["rte_dev_2way"]["accuracy"]
    run_dir = _eval(tmp_path / "default", data_dir, "nli", "--limit", "6", "--views",
                    "numeric,nli", "--subset", "snli_test_2k")
    accuracy = json.loads((run_dir / "report.json").read_text())["sets"]["snli_test_2k"]["accuracy"]
    assert {"default", "view:nli", "view:numeric"} <= set(accuracy)


@pytest.mark.slow
def test_scifact_run_reuses_its_corpus(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _eval(tmp_path, data_dir, "scifact", "--limit", "2")
    report = json.loads((run_dir / "report.json").read_text())
    headline = report["headline"]
    assert headline["claims"] == 2
    assert 0.0 <= headline["evidence_recall_at_3"] <= 1.0
    assert report["citations"]["judge"].startswith("nli and align")
    stores = list((tmp_path / "runs" / "cache").glob("*.sqlite"))
    assert len(stores) == 1
    before = stores[0].stat().st_mtime_ns
    second = _eval(tmp_path / "again", data_dir, "scifact", "--limit", "2",
                   "--cache-dir", str(tmp_path / "runs" / "cache"))
    assert stores[0].stat().st_mtime_ns == before
    again = json.loads((second / "report.json").read_text())
    assert again["timings"]["corpus"] < report["timings"]["corpus"]


@pytest.mark.slow
def test_export_and_kappa(tmp_path: Path, data_dir: Path) -> None:
    run_dir = _eval(tmp_path, data_dir, "truthfulqa", "--limit", "5", "--views", "lexical")
    export = tmp_path / "annotate.csv"
    result = runner.invoke(app, ["eval", "export", str(run_dir), "-o", str(export),
                                 "--count", "12", "--seed", "1"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(export.open()))
    assert len(rows) == 12 and set(rows[0]) == {"item_id", "question", "claim", "evidence",
                                                "label"}
    assert all(row["label"] == "" for row in rows)
    key = [json.loads(line) for line in export.with_suffix(".key.jsonl").open()]
    assert [k["item_id"] for k in key] == [row["item_id"] for row in rows]
    files = []
    for rater, labels in enumerate((["supported"] * 12, ["supported"] * 11 + ["unsupported"])):
        path = tmp_path / f"rater{rater}.csv"
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["item_id", "label"])
            writer.writeheader()
            writer.writerows({"item_id": r["item_id"], "label": lab}
                             for r, lab in zip(rows, labels, strict=True))
        files.append(str(path))
    result = runner.invoke(app, ["eval", "kappa", *files, "--json"])
    assert result.exit_code == 0, result.output
    kappa = json.loads(result.output)
    assert kappa["items"] == 12 and kappa["annotators"] == 2
    # 11 of 12 items agree; shares 23/24 and 1/24: κ = (11/12 - 0.9201) / (1 - 0.9201).
    assert kappa["fleiss_kappa"] == pytest.approx((11 / 12 - (23**2 + 1) / 576)
                                                  / (1 - (23**2 + 1) / 576))


def test_bad_input_exits_2_naming_the_problem(tmp_path: Path, data_dir: Path) -> None:
    cases = [
        (["eval", "truthfulqa", "--data-dir", str(tmp_path / "missing")], "data directory"),
        (["eval", "truthfulqa", "--data-dir", str(data_dir), "--views", "oracle"],
         "unknown view 'oracle'"),
        (["eval", "truthfulqa", "--data-dir", str(data_dir), "--tau", "0.5,high"], "--tau"),
        (["eval", "truthfulqa", "--data-dir", str(data_dir), "--aggregator", "rule"],
         "vote or learned"),
        (["eval", "truthfulqa", "--data-dir", str(data_dir), "--engine", "spark"],
         "unknown engine"),
        (["eval", "halueval", "--data-dir", str(data_dir), "--subset", "poetry"],
         "unknown HaluEval task"),
        (["eval", "kappa", str(tmp_path / "nope.csv"), str(tmp_path / "nope2.csv")],
         "not found"),
    ]
    for args, message in cases:
        result = runner.invoke(app, [*args, "--out", str(tmp_path)] if args[1] != "kappa"
                               else args)
        assert result.exit_code == 2, (args, result.output)
        assert "error:" in result.output and message in result.output, result.output
