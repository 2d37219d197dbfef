import json
import random
from pathlib import Path

import pytest

from veritype.errors import DataError
from veritype.train.answer_data import (
    ANSWER_TRAIN_ROWS,
    ANSWERS,
    EASY,
    HARD,
    answer_sentence_pairs,
)

ROWS = [
    {"knowledge": "Arthur's Magazine (1844-1846) was an American literary periodical.First for "
                  "Women is a woman's magazine published by Bauer Media Group in the USA.",
     "question": "Which magazine was started first Arthur's Magazine or First for Women?",
     "right_answer": "Arthur's Magazine", "hallucinated_answer": "First for Women"},
    {"knowledge": "The Oberoi family is an Indian family famous for its hotels. The Oberoi Group "
                  "is a hotel company with its head office in Delhi.",
     "question": "The Oberoi family is part of a hotel company that has a head office in what "
                 "city?",
     "right_answer": "Delhi", "hallucinated_answer": "Mumbai"},
    {"knowledge": "Both were born in 1950.", "question": "Were they born the same year?",
     "right_answer": "yes", "hallucinated_answer": "no"},
]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    (tmp_path / "halueval").mkdir()
    (tmp_path / "halueval" / "qa_data.json").write_text(
        "".join(json.dumps(row) + "\n" for row in ROWS))
    return tmp_path


def test_the_sentence_holding_the_answer_is_the_positive_and_its_neighbours_negatives(
        data_dir: Path) -> None:
    pairs = answer_sentence_pairs(data_dir, 3, random.Random(0))
    positives = [(p.premise, p.hypothesis) for p in pairs if p.source == ANSWERS]
    assert positives == [
        (ROWS[0]["question"], "Arthur's Magazine (1844-1846) was an American literary "
                              "periodical."),
        (ROWS[1]["question"], "The Oberoi Group is a hotel company with its head office in "
                              "Delhi."),
    ]
    hard = [p for p in pairs if p.source == HARD]
    assert [p.hypothesis for p in hard] == [
        "First for Women is a woman's magazine published by Bauer Media Group in the USA.",
        "The Oberoi family is an Indian family famous for its hotels.",
    ]
    assert all(p.label == "not_entailment" for p in pairs if p.source != ANSWERS)
    easy = [p for p in pairs if p.source == EASY]
    # One sentence of another row per row that has an answer; the yes/no row teaches nothing.
    assert len(easy) == 2
    assert all(p.hypothesis not in ROWS[i]["knowledge"] for i, p in enumerate(easy))


def test_calibration_and_evaluation_rows_are_refused(data_dir: Path) -> None:
    with pytest.raises(DataError, match="calibrate"):
        answer_sentence_pairs(data_dir, ANSWER_TRAIN_ROWS + 1, random.Random(0))
