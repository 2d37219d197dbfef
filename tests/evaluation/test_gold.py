"""``veritype eval corpus-qa`` and ``veritype eval truthfulqa-gen``: answers judged by gold
data, through the CLI, on a small sample with the extractive generator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from veritype.cli import app
from veritype.evaluation.answer_metrics import (
    contains_answer,
    truthful_by_rouge,
    without_markers,
)
from veritype.evaluation.gold import DRAFT, RENDERED

runner = CliRunner()
RUN_FILES = {"report.json", "report.md", "table.tex", "risk_coverage.png", "examples.jsonl"}
QUESTIONS = 12


def _run(tmp_path: Path, data_dir: Path, command: str) -> tuple[dict[str, Any], list[Any]]:
    out = tmp_path / "runs"
    result = runner.invoke(app, ["eval", command, "--data-dir", str(data_dir), "--out", str(out),
                                 "--generator", "extractive", "--limit", str(QUESTIONS),
                                 "--distractors", "30", "--resamples", "50"])
    assert result.exit_code == 0, result.output + repr(result.exception)
    (run_dir,) = out.glob(f"{command}-*")
    assert {path.name for path in run_dir.iterdir()} >= RUN_FILES
    report: dict[str, Any] = json.loads((run_dir / "report.json").read_text())
    assert report["benchmark"] == command and report["headline"]["questions"] == QUESTIONS
    examples = [json.loads(line) for line in (run_dir / "examples.jsonl").open()]
    assert len(examples) == QUESTIONS
    return report, examples


def _check(report: dict[str, Any], examples: list[Any]) -> None:
    kinds = report["summary"]["kinds"]
    drafts, rendered = kinds[DRAFT], kinds[RENDERED]
    # Every question gets a draft; abstentions are counted apart, never judged.
    assert drafts["answered"] == QUESTIONS
    assert rendered["answered"] == sum(not e["abstained"] for e in examples)
    assert rendered["coverage"]["value"] == pytest.approx(rendered["answered"] / QUESTIONS)
    # The accuracies are the judge's verdicts recorded per example.
    assert drafts["accuracy_all"]["value"] == pytest.approx(
        sum(e["draft_correct"] for e in examples) / QUESTIONS)
    assert rendered["accuracy_all"]["value"] == pytest.approx(
        sum(e["rendered_correct"] for e in examples) / QUESTIONS)
    low, high = drafts["accuracy_answered"]["ci95"]
    assert low <= drafts["accuracy_answered"]["value"] <= high
    assert drafts["selective_accuracy_at_0.5"]["value"] is not None
    labels = report["summary"]["per_confidence"]
    assert sum(label["questions"] for label in labels.values()) == QUESTIONS
    assert report["machine"]["cpu"]["model"]


@pytest.mark.slow
def test_corpus_qa_judges_answers_by_their_gold_answers(tmp_path: Path, data_dir: Path) -> None:
    report, examples = _run(tmp_path, data_dir, "corpus-qa")
    _check(report, examples)
    assert "right_answer" in report["config"]["judge"]
    # An extractive draft quotes the paragraphs; its own paragraph holds the right answer,
    # so the drafts are right far above chance.
    assert report["summary"]["kinds"][DRAFT]["accuracy_all"]["value"] >= 0.5
    for example in examples:
        if example["rendered_correct"]:
            assert not example["abstained"]
            assert contains_answer(example["answer"], example["correct"][0])
        elif not example["abstained"]:
            assert (not contains_answer(example["answer"], example["correct"][0])
                    or contains_answer(example["answer"], example["incorrect"][0]))


@pytest.mark.slow
def test_truthfulqa_generation_uses_the_rouge_judge(tmp_path: Path, data_dir: Path) -> None:
    report, examples = _run(tmp_path, data_dir, "truthfulqa-gen")
    _check(report, examples)
    for example in examples:
        draft = truthful_by_rouge(example["draft"], example["correct"], example["incorrect"])
        assert draft[0] == example["draft_correct"]
        if not example["abstained"]:
            shown = truthful_by_rouge(without_markers(example["answer"]), example["correct"],
                                      example["incorrect"])
            assert shown[0] == example["rendered_correct"]
    assert 0 <= report["headline"]["rendered_truthful_abstentions_as_no_comment"] <= 1
