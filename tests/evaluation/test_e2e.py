"""``veritype eval e2e``: raw drafts vs rendered answers, through the CLI, on a tiny sample."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from veritype.cli import app
from veritype.evaluation.e2e import Question, judge_citations, judge_claims
from veritype.evaluation.metrics import Floats

runner = CliRunner()
RUN_FILES = {"report.json", "report.md", "table.tex", "e2e_precision.png", "examples.jsonl"}


def _run(tmp_path: Path, data_dir: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "runs"
    result = runner.invoke(app, ["eval", "e2e", "--data-dir", str(data_dir), "--out", str(out),
                                 "--resamples", "50", "--distractors", "40", *args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    (run_dir,) = out.glob("e2e-*")
    assert {path.name for path in run_dir.iterdir()} >= RUN_FILES
    assert (run_dir / "report.md").read_text().startswith("# veritype eval e2e")
    assert "\\begin{tabular}" in (run_dir / "table.tex").read_text()
    report: dict[str, Any] = json.loads((run_dir / "report.json").read_text())
    assert {"benchmark", "created_at", "config", "headline"} <= set(report)
    assert report["benchmark"] == "e2e"
    examples = [json.loads(line) for line in (run_dir / "examples.jsonl").open()]
    assert len(examples) == report["headline"]["questions"]
    return report


def _check_figures(report: dict[str, Any], questions_per_source: int) -> None:
    headline = report["headline"]
    assert headline["questions"] == 2 * questions_per_source
    assert headline["answered"] + headline["abstained"] == headline["questions"]
    for name in ("raw_precision", "rendered_precision", "abstained_share", "citation_recall",
                 "citation_precision", "own_evidence_in_context"):
        assert 0.0 <= headline[name] <= 1.0, name
    assert headline["raw_precision_ci_low"] <= headline["raw_precision"] \
        <= headline["raw_precision_ci_high"]
    assert headline["raw_claims"] > 0
    assert headline["latency_median_s"] > 0
    sources = report["sources"]
    assert set(sources) == {"TruthfulQA", "HaluEval-QA", "all"}
    for summary in sources.values():
        assert summary["rendered_supported"] <= summary["rendered_claims"]
        assert summary["raw_supported"] <= summary["raw_claims"]
    assert sources["TruthfulQA"]["questions"] == questions_per_source
    assert sources["all"]["raw_claims"] == sum(
        sources[name]["raw_claims"] for name in ("TruthfulQA", "HaluEval-QA")
    )


def test_extractive_run_writes_the_run_directory(tmp_path: Path, data_dir: Path) -> None:
    report = _run(tmp_path, data_dir, "--generator", "extractive", "--limit", "3")
    _check_figures(report, 3)
    assert report["config"]["generator"] == "extractive"
    assert "Best Answer" in report["config"]["evidence"]["truthfulqa"]
    assert report["config"]["distractors"] == 40


@pytest.mark.slow
@pytest.mark.needs_llama
def test_local_model_run_on_one_question_per_source(tmp_path: Path, data_dir: Path) -> None:
    report = _run(tmp_path, data_dir, "--generator", "local", "--limit", "1",
                  "--max-tokens", "24")
    _check_figures(report, 1)
    assert report["config"]["max_tokens"] == 24


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--data-dir", "/nonexistent/data"], "data directory not found"),
     (["--limit", "0"], "limit must be >= 1"),
     (["--max-tokens", "0"], "max_tokens"),
     (["--distractors", "-1"], "distractors must be >= 0")],
)
def test_bad_input_exits_with_a_named_error(
    tmp_path: Path, data_dir: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["eval", "e2e", "--data-dir", str(data_dir), "--generator",
                                 "extractive", "--out", str(tmp_path), *args])
    assert result.exit_code == 2
    assert message in result.output


def _table_scorer(table: dict[tuple[str, str], float]) -> Any:
    def scores(pairs: Sequence[tuple[str, str]]) -> Floats:
        return np.array([table.get(pair, 0.0) for pair in pairs], dtype=np.float64)

    return scores


def test_a_claim_is_supported_only_when_a_correct_answer_entails_it_more_strongly() -> None:
    question = Question("truthfulqa", "q", "Q?", correct=("yes",), incorrect=("no",),
                        gold_evidence="yes")
    scorer = _table_scorer({
        ("Q? yes", "entailed by the correct answer"): 0.9,
        ("Q? yes", "entailed by both, more by the wrong one"): 0.7,
        ("Q? no", "entailed by both, more by the wrong one"): 0.8,
        ("Q? yes", "weakly entailed"): 0.4,
    })
    claims = ["entailed by the correct answer", "entailed by both, more by the wrong one",
              "weakly entailed", "unrelated"]
    verdicts = judge_claims(scorer, [(question, claim) for claim in claims])
    assert verdicts == [True, False, False, False]


def test_citation_recall_and_needed_citations_follow_alce() -> None:
    scorer = _table_scorer({
        ("a b", "claim"): 0.9,  # both quotes together entail the claim
        ("a", "claim"): 0.9,  # quote a alone does too; b is then not needed
        ("c", "other"): 0.2,
    })
    recall, needed = judge_citations(scorer, [("claim", ["a", "b"]), ("other", ["c"])])
    assert recall == [True, False]
    assert needed == [[True, False], [False]]
