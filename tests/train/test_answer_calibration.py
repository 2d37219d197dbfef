"""Calibrating the shipped answer model for real, on a few calibration-side HaluEval rows."""

import json
import shutil
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

from veritype.answers.question import AnswerKind
from veritype.answers.scoring import AnswerCalibration
from veritype.models.cross_encoder import shipped_model_dir
from veritype.train.answer_calibration import (
    MEDIUM_ACCURACY,
    MIN_KIND,
    REPORT_FILE,
    calibrate_answers,
    fit_p_right,
    wilson_low,
)
from veritype.train.answer_data import ANSWER_TRAIN_ROWS


@pytest.mark.slow
def test_calibration_writes_a_threshold_bands_and_a_report(data_dir: Path,
                                                           tmp_path: Path) -> None:
    small = tmp_path / "data"
    (small / "halueval").mkdir(parents=True)
    first = ANSWER_TRAIN_ROWS - 20  # the distractors' rows, then the calibration rows
    with (data_dir / "halueval" / "qa_data.json").open(encoding="utf-8") as source:
        rows = list(islice(source, first, ANSWER_TRAIN_ROWS + 40))
    # Rows before the distractors are never read: blank objects stand in for them.
    (small / "halueval" / "qa_data.json").write_text("{}\n" * first + "".join(rows))
    model = tmp_path / "answers"
    shutil.copytree(shipped_model_dir("answers"), model)
    (model / "calibration.json").unlink()

    calibration = calibrate_answers(model, small, questions=30, distractor_rows=20)

    assert AnswerCalibration.read(model / "calibration.json") == calibration
    assert calibration.slope > 0
    assert calibration.medium == min(MEDIUM_ACCURACY, calibration.high)
    report = json.loads((model / REPORT_FILE).read_text())
    assert report["questions"] == 30
    assert report["rows"] == [7000, 7999]
    assert report["distractor_rows"] == [6980, 6999] and report["corpus_paragraphs"] == 60
    assert report["pairs"]["roc_auc"] > 0.6
    assert 0 < report["answered"] <= 30
    assert report["shown_at_right_floor"]["answers"] <= report["answered"]
    assert set(report["per_kind"]) <= {kind.value for kind in AnswerKind}
    assert "cpu" in report["machine"]
    card = (model / "model_card.md").read_text()
    assert card.count("## Quality and calibration") == 1
    assert f"Threshold {calibration.threshold:.3f}" in card
    assert "and those of rows 6980–6999 (60 paragraphs;" in card
    assert "## Known limits" in card
    assert "- Shown: an answer with P(right) below 0.5 is not shown" in card


def test_the_wilson_bound_asks_more_of_a_small_band() -> None:
    # 27 of 30 right is 0.9 in the sample, but no band of 30 shows 0.9 will hold.
    assert wilson_low(27, 30) < 0.9 < wilson_low(290, 300) + 0.03
    assert wilson_low(30, 30) < 1.0 and wilson_low(0, 30) == pytest.approx(0.0, abs=1e-12)
    assert wilson_low(90, 100) < wilson_low(900, 1000) < 0.9


def test_p_right_gives_a_kind_answered_wrongly_a_negative_offset_and_a_rare_kind_none() -> None:
    rng = np.random.default_rng(3)
    best = rng.uniform(0.3, 0.99, 300)
    kinds = ([AnswerKind.YES_NO] * 60 + [AnswerKind.DATE] * 60
             + [AnswerKind.PLACE] * (MIN_KIND - 1) + [AnswerKind.ENTITY] * (181 - MIN_KIND))
    # Yes/no answers are right a tenth of the time, the others as often as P(answers) says.
    right = np.array([float(rng.random() < (0.1 if kind is AnswerKind.YES_NO else b))
                      for b, kind in zip(best, kinds, strict=True)])
    fitted = fit_p_right(0.3, best, kinds, right)
    assert fitted.slope > 0
    assert fitted.kind_offsets["yes_no"] < -1.0 < fitted.kind_offsets["date"]
    assert "place" not in fitted.kind_offsets
    assert fitted.right(0.9, AnswerKind.YES_NO) < 0.5 < fitted.right(0.9, AnswerKind.DATE)
