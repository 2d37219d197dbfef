"""Fitting the answer reader on real corpora with the shipped answer model."""

import json
from pathlib import Path

import pytest

from veritype.answers.reader import FEATURES, READER_FILE, AnswerReader
from veritype.evaluation.answer_corpora import AskedAnswer
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


def test_the_reader_answers_alone_from_the_p_where_its_best_candidates_are_right_enough(
) -> None:
    import numpy as np

    from veritype.evaluation.answer_corpora import GoldQuestion, ReadQuestion
    from veritype.train.answer_reader import ANSWERS_PRECISION, MIN_BAND, HeldOut, answers_from

    # One feature only (the answer model's logit) carries the reader here: coefficient 1,
    # intercept 0, so a candidate's reader P is the answer model's P.
    coefficients = tuple([1.0] + [0.0] * (len(FEATURES) - 1))
    reads = []
    for i in range(60):
        p = 0.5 + i / 125  # 0.5 .. 0.97: the best-read questions are the right ones
        right = i >= 20 or i % 2 == 0
        row = np.zeros(len(FEATURES))
        row[0] = np.log(p / (1 - p))
        source = "a" if i % 2 else "b"
        reads.append(ReadQuestion(GoldQuestion(source, Path("."), f"q{i}", "answerable", ()),
                                  row[None, :], np.array([float(right)]), np.array([p]),
                                  np.array([0.0])))
    held_out = HeldOut({"a": (coefficients, 0.0), "b": (coefficients, 0.0)}, {})
    floor = answers_from(reads, held_out)
    above = [r.labels[0] for r in reads if np.exp(r.rows[0, 0]) / (1 + np.exp(r.rows[0, 0]))
             >= floor - 1e-12]
    assert len(above) >= MIN_BAND and sum(above) / len(above) >= ANSWERS_PRECISION
    # Below question 10 (P 0.58), one in two is wrong: the 45 right of the 50 from there
    # down to it are 0.9, one more is not.
    assert floor == pytest.approx(0.58)
    # Without source "a", which holds every wrong answer, the lowest P is precise enough.
    assert answers_from(reads, held_out, without="a") == pytest.approx(0.5)
    # Never precise enough: the reader never answers alone.
    wrong = [ReadQuestion(r.question, r.rows, np.array([0.0]), r.answer_model, r.shared_words)
             for r in reads]
    assert answers_from(wrong, held_out) == 1.0


def _answers(per_source: int) -> list[AskedAnswer]:
    from veritype.evaluation.answer_corpora import GoldQuestion

    asked = []
    for source in ("a", "b"):
        for i in range(per_source):
            read = 0.3 + 0.69 * i / per_source
            question = GoldQuestion(source, Path("."), f"q{i}", "answerable", ())
            # Right from reader P 0.6 up, and one in three wrong below it.
            asked.append(AskedAnswer(question, True, read >= 0.6 or i % 3 != 0, read, read, 1.0))
    return asked


def test_high_holds_on_answers_read_held_out_with_a_wilson_bound_of_at_least_0_9() -> None:
    from veritype.train.answer_reader import (
        HIGH_ACCURACY,
        HIGH_LOWER_BOUND,
        MIN_BAND,
        calibration_report,
        high_floor,
    )

    asked = _answers(60)
    floor = high_floor(asked)
    assert floor < 1.0
    at_high = calibration_report(asked, floor)["all"]["high"]
    assert at_high["shown"] >= MIN_BAND
    assert at_high["right"] / at_high["shown"] >= HIGH_ACCURACY
    # 35 right of 35 is the fewest whose Wilson lower bound (95%) reaches 0.9.
    assert at_high["shown"] >= 35 and HIGH_LOWER_BOUND == 0.9
    # Twenty answers per source leave fewer than 35 right at the top: nothing is "high".
    assert high_floor(_answers(20)) == 1.0
