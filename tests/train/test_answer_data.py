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
    SQUAD2_ANSWERS,
    SQUAD2_FILE,
    SQUAD2_HELD_OUT,
    SQUAD2_OTHER,
    SQUAD2_PLAUSIBLE,
    answer_sentence_pairs,
    sibling_question,
    sibling_question_pairs,
    squad2_answer_pairs,
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


SQUAD2_CONTEXT = ("The Rhine flows through six countries. It is about 1,230 km long. "
                  "The Danube is about 2,850 km long.")
SQUAD2_ROWS = [
    {"title": "Rhine", "context": SQUAD2_CONTEXT, "question": "How long is the Rhine?",
     "answers": ["1,230 km"], "plausible_answers": [], "is_impossible": False},
    {"title": "Rhine", "context": SQUAD2_CONTEXT, "question": "How long is the Elbe?",
     "answers": [], "plausible_answers": ["2,850 km"], "is_impossible": True},
    {"title": SQUAD2_HELD_OUT, "context": "The Normans came from Normandy.",
     "question": "Where did the Normans come from?", "answers": ["Normandy"],
     "plausible_answers": [], "is_impossible": False},
]


def _squad2_dir(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    (tmp_path / SQUAD2_FILE).parent.mkdir(parents=True)
    (tmp_path / SQUAD2_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))
    return tmp_path


def test_squad2_plausible_answer_sentences_are_negatives_and_the_held_out_article_unread(
        tmp_path: Path) -> None:
    pairs = squad2_answer_pairs(_squad2_dir(tmp_path, SQUAD2_ROWS), random.Random(0))
    by_source = {(p.source, p.premise, p.hypothesis, p.label) for p in pairs}
    assert (SQUAD2_ANSWERS, "How long is the Rhine?", "It is about 1,230 km long.",
            "entailment") in by_source
    # The sibling's length is what a reader is tempted to give for the Elbe: a negative.
    assert (SQUAD2_PLAUSIBLE, "How long is the Elbe?", "The Danube is about 2,850 km long.",
            "not_entailment") in by_source
    assert sum(p.source == SQUAD2_OTHER and p.premise == "How long is the Rhine?"
               for p in pairs) == 2
    assert sum(p.source == SQUAD2_OTHER and p.premise == "How long is the Elbe?"
               for p in pairs) == 1
    assert not any("Normans" in p.premise for p in pairs)


def test_squad2_rows_without_their_fields_or_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="squad2_subset"):
        squad2_answer_pairs(tmp_path, random.Random(0))
    with pytest.raises(DataError, match="plausible_answers"):
        squad2_answer_pairs(_squad2_dir(tmp_path, [{"title": "Rhine", "context": "x"}]),
                            random.Random(0))


def test_a_sibling_question_swaps_a_held_word_for_one_only_the_siblings_hold() -> None:
    sentence = "The 24-hour card costs 290 kroner."
    siblings = ["The 72-hour card costs 450 kroner.", "Children travel free."]
    swapped = sibling_question("How much is the 24-hour card?", sentence, siblings,
                               random.Random(0))
    # A figure the sentence holds becomes the sibling's figure; its price is not this one.
    assert swapped == "How much is the 72-hour card?"
    # A name goes before a figure or a word; a sentence-initial capital is no name.
    assert sibling_question("When did the Rhine flood in 1,230?", "The Rhine flooded in 1,230.",
                            ["Later, the Danube flooded too."], random.Random(0)) == (
        "When did the Danube flood in 1,230?")
    # Nothing the sentence holds, or nothing of its shape in the siblings: no question.
    assert sibling_question("Who won?", sentence, siblings, random.Random(0)) is None
    assert sibling_question("How much is the card?", sentence, ["It is red."],
                            random.Random(0)) is None


def test_sibling_question_pairs_are_negatives_without_comparisons_or_held_out_rows(
        data_dir: Path) -> None:
    _squad2_dir(data_dir, SQUAD2_ROWS)
    pairs = sibling_question_pairs(data_dir, 3, random.Random(0))
    # The Oberoi row swaps a word of its own knowledge ("Group" holds no answer); the
    # comparison row and the yes/no row give none, nor the unanswerable or held-out questions.
    assert [(p.hypothesis, p.label) for p in pairs] == [
        ("The Oberoi Group is a hotel company with its head office in Delhi.", "not_entailment"),
        ("It is about 1,230 km long.", "not_entailment"),
    ]
    assert pairs[0].premise != ROWS[1]["question"]
    # "long" is the only word of the question the pronoun sentence holds ("Rhine" is not).
    assert pairs[1].premise == "How flows is the Rhine?"
    with pytest.raises(DataError, match="below"):
        sibling_question_pairs(data_dir, ANSWER_TRAIN_ROWS + 1, random.Random(0))
