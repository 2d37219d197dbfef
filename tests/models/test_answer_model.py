"""The shipped answer model, run for real: does a sentence answer a question?"""

import pytest

from veritype.answers.scoring import AnswerScorer, create_answer_scorer
from veritype.models.cross_encoder import shipped_model_dir

# (question, the sentence that answers it, true sentences beside it that do not)
CASES = [
    ("What is the range of the Voltra Trek?",
     "The Voltra Trek has a range of up to 140 km.",
     ["The Voltra Trek costs 2,499 euros and has a 625 Wh battery.",
      "The Voltra City weighs 21 kg."]),
    ("When did the Golden Gate Bridge open?",
     "The Golden Gate Bridge opened to traffic on May 27, 1937.",
     ["The Golden Gate Bridge has a main span of 1,280 metres.",
      "The Golden Gate Bridge is painted International Orange."]),
    ("Who discovered penicillin?",
     "Penicillin was discovered by Alexander Fleming in 1928.",
     ["Penicillin is an antibiotic used against bacterial infections.",
      "Penicillin is produced by Penicillium moulds."]),
    # A known miss, in the model card: the model reads "how long" and "battery" and misses
    # that a charging time is no warranty (HotpotQA's negatives rarely share the asked kind).
    pytest.param("How long is the battery warranty?",
                 "Batteries are covered for 2 years or 500 charge cycles.",
                 ["Frames carry a lifetime warranty.", "The battery charges in 4 hours."],
                 marks=pytest.mark.xfail(strict=True, reason="focus: charging time vs warranty")),
    ("Where is the headquarters of Red Bull GmbH?",
     "The headquarters of Red Bull GmbH are located in Fuschl am See, Austria.",
     ["Red Bull GmbH sells energy drinks.", "Red Bull GmbH was founded in 1987."]),
]


@pytest.fixture(scope="module")
def scorer() -> AnswerScorer:
    return create_answer_scorer("answers")


def test_the_shipped_model_is_small_and_calibrated() -> None:
    directory = shipped_model_dir("answers")
    assert (directory / "model.onnx").stat().st_size <= 30 * 1024 * 1024
    assert (directory / "calibration.json").is_file()
    assert (directory / "model_card.md").is_file()


@pytest.mark.parametrize(("question", "answer", "others"), CASES)
def test_the_answering_sentence_outranks_true_neighbours(
        scorer: AnswerScorer, question: str, answer: str, others: list[str]) -> None:
    scores = scorer.score_batch(question, [answer, *others])
    assert scores[0] > max(scores[1:])


def test_most_answering_sentences_reach_the_threshold(scorer: AnswerScorer) -> None:
    cases = [case.values if hasattr(case, "values") else case for case in CASES]
    reached = [scorer.score(str(question), str(answer)) >= scorer.calibration.threshold
               for question, answer, _ in cases]
    assert all(reached)


def test_a_directory_loads_like_the_name(scorer: AnswerScorer) -> None:
    same = create_answer_scorer(str(shipped_model_dir("answers")))
    question, answer, _ = CASES[0]
    assert isinstance(question, str) and isinstance(answer, str)
    assert same.score(question, answer) == pytest.approx(scorer.score(question, answer))
