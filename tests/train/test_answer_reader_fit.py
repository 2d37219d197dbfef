"""Fitting the answer reader on real corpora with the shipped answer model."""

import json
from pathlib import Path

from veritype.answers.reader import FEATURES, READER_FILE, AnswerReader
from veritype.train.answer_reader import REPORT_FILE, train_answer_reader

OWN_SET = Path(__file__).resolve().parents[2] / "tests" / "data" / "corpora"


def test_the_reader_fitted_on_three_corpora_ranks_answers_at_least_as_well_held_out(
        tmp_path: Path) -> None:
    report = train_answer_reader([OWN_SET], tmp_path)
    reader = AnswerReader.read(tmp_path / READER_FILE)
    assert len(reader.coefficients) == len(FEATURES)
    saved = json.loads((tmp_path / REPORT_FILE).read_text())
    assert saved["sources"] == ["bridges", "ebikes", "people"] == report["sources"]
    best = report["best_candidate_holds_answer"]
    # Held out by corpus, the combination does not lose to either single signal it weighs.
    assert best["reader"] >= max(best["answer_model"], best["shared_words"])
    assert best["answerable"] == 29
    assert reader.calibration.medium <= reader.calibration.high
    assert "machine" in saved
