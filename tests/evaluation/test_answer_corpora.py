"""Reading the question sets the answer reader is fitted on."""

import json
from pathlib import Path

import pytest

from veritype.errors import DataError
from veritype.evaluation.answer_corpora import gold_questions, holds_gold

ROOT = Path(__file__).resolve().parents[2]
SPLIT_SET = ROOT / "benchmarks" / "data" / "answer_corpora"
OWN_SET = ROOT / "tests" / "data" / "corpora"


def test_a_split_set_yields_its_calibration_half_and_never_its_evaluation_half() -> None:
    split = json.loads((SPLIT_SET / "split.json").read_text())
    read = gold_questions([SPLIT_SET])
    sources = {question.source for question in read}
    assert sources == set(split["calibration"])
    assert not sources & set(split["evaluation"])
    assert all(question.folder.is_dir() for question in read)


def test_a_map_of_corpora_yields_every_question_with_its_answer() -> None:
    read = gold_questions([OWN_SET])
    assert {question.source for question in read} == {"bridges", "ebikes", "people"}
    golden = next(q for q in read if q.question == "When did the Golden Gate Bridge open?")
    assert golden.gold == (("1937",),) and golden.kind == "answerable"


def test_a_folder_without_questions_is_a_data_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read the questions"):
        gold_questions([tmp_path])
    (tmp_path / "questions.json").write_text("[]")
    with pytest.raises(DataError, match="neither a split corpus set"):
        gold_questions([tmp_path])


def test_gold_is_held_when_every_string_of_one_alternative_is() -> None:
    gold = [["£160", "£110"], ["equal"]]
    assert holds_gold("£160 in London and £110 elsewhere", gold)
    assert not holds_gold("£160 in London", gold)
    assert not holds_gold("anything", [[]])
