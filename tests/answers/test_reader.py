"""The answer reader: its features, the shipped fit, and how a reader file is read."""

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from veritype.answer import Confidence
from veritype.answers.question import analyse
from veritype.answers.reader import (
    FEATURES,
    READER_FILE,
    AnswerReader,
    Candidate,
    RightCalibration,
    features,
    question_coverage,
    reader_of,
)
from veritype.answers.scoring import AnswerCalibration
from veritype.errors import ConfigurationError

SHIPPED = Path(__file__).resolve().parents[2] / "src" / "veritype" / "models" / "answers"
RIGHT = RightCalibration(intercept=0.0, reader_slope=1.0, answer_model_slope=0.5, high=0.9,
                         medium=0.7)


def _shipped() -> AnswerReader:
    return AnswerReader.read(SHIPPED / READER_FILE)


def test_a_word_few_candidates_hold_weighs_more_than_one_they_all_hold() -> None:
    question = analyse("How much does the Grazer 800 cost?")
    pool = [Candidate("The Grazer 800 mows up to 800 m².", "Grazer 800"),
            Candidate("The Grazer 800 costs 999 euros.", "Grazer 800"),
            Candidate("The Grazer 800 docks itself.", "Grazer 800")]
    rows = features(question, pool, [0.5, 0.5, 0.5])
    rare = FEATURES.index("rare_shared_words")
    # "cost" is held by one sentence, "Grazer" by all three: the price sentence shares more
    # of what is rare.
    assert rows[1][rare] > rows[0][rare] == rows[2][rare]
    assert len(rows[0]) == len(FEATURES)


def test_the_context_of_a_sentence_counts_for_its_subject() -> None:
    question = analyse("What is the range of the Voltra Trek?")
    bare, headed = features(question, [Candidate("Its range is 120 km."),
                                       Candidate("Its range is 120 km.", "Voltra Trek")],
                            [0.6, 0.6])
    subject = FEATURES.index("on_subject")
    assert (bare[subject], headed[subject]) == (0.0, 1.0)


def test_the_shipped_reader_prefers_the_sentence_on_the_asked_sibling() -> None:
    reader = _shipped()
    question = analyse("How long can films be borrowed?")
    candidates = [Candidate("Books are lent for three weeks.", "Borrowing"),
                  Candidate("Films and games are lent for one week.", "Borrowing"),
                  Candidate("The library has four study rooms.", "Rooms")]
    # The answer model alone would pick the books sentence.
    read = reader.probabilities(question, candidates, [0.9, 0.6, 0.1])
    assert read.index(max(read)) == 1
    assert reader.calibration.medium <= reader.calibration.high <= 1.0
    # P(right) rises with the reader's P.
    assert reader.calibration.right(0.9, 0.5, 1.0) > reader.calibration.right(0.2, 0.5, 1.0)


def test_a_reader_file_for_other_features_is_refused_by_name(tmp_path: Path) -> None:
    data = _shipped().to_dict()
    data["features"] = data["features"][:-1]
    path = tmp_path / READER_FILE
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigurationError, match=r"not an answer reader.*features"):
        AnswerReader.read(path)
    path.write_text("[1, 2]")
    with pytest.raises(ConfigurationError, match="a JSON object"):
        AnswerReader.read(path)
    with pytest.raises(ConfigurationError, match="cannot read"):
        AnswerReader.read(tmp_path / "missing.json")


def test_a_reader_round_trips_and_needs_a_coefficient_per_feature() -> None:
    reader = AnswerReader(tuple(0.1 for _ in FEATURES), -1.0, RIGHT)
    again = AnswerReader.from_dict(reader.to_dict(), where="test")
    assert again == reader
    with pytest.raises(ConfigurationError, match="coefficients"):
        AnswerReader((0.1,), 0.0, RIGHT)


def test_a_scorer_without_a_reader_has_none() -> None:
    class Bare:
        name = "bare"
        calibration = AnswerCalibration(threshold=0.3, slope=1.0, intercept=0.0, high=0.9,
                                        medium=0.7)

        def score(self, question: str, text: str) -> float:
            return 0.5

        def score_batch(self, question: str, texts: Sequence[str]) -> list[float]:
            return [0.5 for _ in texts]

    assert reader_of(Bare()) is None


def test_p_right_reads_both_scores_and_labels_by_its_floors() -> None:
    assert RIGHT.right(0.5, 0.5, 0.0) == pytest.approx(0.5)
    assert RIGHT.right(0.5, 0.9, 0.0) > 0.5 > RIGHT.right(0.5, 0.1, 0.0)
    covering = RightCalibration(0.0, 1.0, 0.5, high=0.9, medium=0.7, coverage_slope=2.0)
    assert covering.right(0.5, 0.5, 1.0) > covering.right(0.5, 0.5, 0.2) > 0.5
    assert [RIGHT.label(p) for p in (0.95, 0.8, 0.3)] == [
        Confidence.HIGH, Confidence.MEDIUM, Confidence.LOW]
    with pytest.raises(ConfigurationError, match="medium <= high"):
        RightCalibration(0.0, 1.0, 0.0, high=0.5, medium=0.7)


def test_a_reader_file_without_answers_from_never_answers_by_its_p_alone(tmp_path: Path) -> None:
    data = _shipped().to_dict()
    del data["calibration"]["answers_from"]
    (tmp_path / READER_FILE).write_text(json.dumps(data))
    read = AnswerReader.read(tmp_path / READER_FILE)
    assert read.calibration.answers_from == 1.0
    assert not read.calibration.reads_as_answer(analyse("When must a renewal be refused?"),
                                                0.999)
    with pytest.raises(ConfigurationError, match="answers_from"):
        RightCalibration(0.0, 1.0, 0.0, high=0.9, medium=0.7, answers_from=0.0)


def test_coverage_misses_the_word_that_tells_the_asked_thing_from_its_siblings() -> None:
    question = analyse("How much paid bereavement leave is there?")
    pool = [Candidate("Full-time employees receive 27 days of paid annual leave a year."),
            Candidate("Every employee may take up to five days of paid leave for an emergency."),
            Candidate("Bereavement leave of five paid days is given for a close relative."),
            Candidate("Claims are made in PeopleDesk.")]
    emergency, bereavement = (question_coverage(question, [pool[i]], pool) for i in (1, 2))
    # "paid" and "leave" are held by three of four sentences; "bereavement" by one.
    assert bereavement == pytest.approx(1.0)
    assert emergency < 0.5
    # The context of a sentence counts; a question naming nothing to cover is covered.
    headed = Candidate("Five paid days of leave are given.", "Bereavement leave")
    assert question_coverage(question, [headed], [*pool, headed]) == pytest.approx(1.0)
    assert question_coverage(analyse("Who is it?"), [pool[0]], pool) == 1.0


def test_a_reader_file_without_coverage_slope_reads_no_coverage(tmp_path: Path) -> None:
    data = _shipped().to_dict()
    data["calibration"].pop("coverage_slope", None)
    (tmp_path / READER_FILE).write_text(json.dumps(data))
    calibration = AnswerReader.read(tmp_path / READER_FILE).calibration
    assert calibration.right(0.8, 0.6, 0.0) == calibration.right(0.8, 0.6, 1.0)
