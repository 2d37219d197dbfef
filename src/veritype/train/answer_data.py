"""Training pairs for the answer-sentence model: does this sentence answer this question?

HaluEval-QA rows hold HotpotQA questions with the knowledge paragraphs that answer them. Each
sentence of a row's knowledge that contains the row's right answer (SQuAD normalisation, whole
words) answers its question; the row's other sentences are its hard negatives (the same
entities, the bridge fact of a two-hop question, not the answer), and one sentence of another
row an easy one (off the question altogether, as a retriever's weaker hits are). Rows whose
answer is in no sentence ("yes", "no") teach nothing and are skipped.

SQuAD 2.0's unanswerable questions were written to look answerable from their paragraph, each
with the span a reader is tempted to give: the sentence holding that span is the negative the
HaluEval pairs lack (the asked attribute of a sibling entity, another attribute of the asked
one). Its answerable questions add their answer sentences and the paragraph's other sentences.
One article, ``SQUAD2_HELD_OUT``, is never read: it measures the model on that trap.

Pairs are ``(question, sentence)`` in QNLI's order, so QNLI's pairs of the NLI pool train the
same head. Rows from ``ANSWER_TRAIN_ROWS`` on are left for calibrating the model's threshold
and the answers' confidence; rows from ``HALUEVAL_TRAIN_ROWS`` on are evaluation only.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from veritype._text import STOPWORDS, sentence_spans
from veritype.errors import DataError
from veritype.evaluation.answer_metrics import contains_answer
from veritype.evaluation.e2e import halueval_rows
from veritype.train.data import HALUEVAL_TRAIN_ROWS, TWO_WAY, Pair

# Rows [ANSWER_TRAIN_ROWS, HALUEVAL_TRAIN_ROWS) calibrate; the model never reads them.
ANSWER_TRAIN_ROWS = 7000
ANSWERS, HARD, EASY = "halueval_answers", "halueval_answers_hard", "halueval_answers_easy"
SQUAD2_ANSWERS, SQUAD2_OTHER, SQUAD2_PLAUSIBLE = (
    "squad2_answers", "squad2_answers_other", "squad2_plausible")
SQUAD2_FILE = Path("squad2_subset") / "squad2_subset.jsonl"
SQUAD2_HELD_OUT = "Normans"


def knowledge_sentences(knowledge: str) -> list[str]:
    """The sentences of a knowledge text, as veritype's splitter cuts them."""
    return [" ".join(knowledge[start:end].split()) for start, end in sentence_spans(knowledge)]


def answer_sentence_pairs(data_dir: Path, rows: int, rng: random.Random) -> list[Pair]:
    """Pairs from the first ``rows`` HaluEval-QA rows: each sentence holding the right answer
    is entailment, the row's other sentences and one other row's sentence not_entailment."""
    parsed = _training_questions(data_dir, rows, "answer-sentence training reads")
    pairs: list[Pair] = []
    for index, (question, answer, sentences) in enumerate(parsed):
        holds = [contains_answer(sentence, answer) for sentence in sentences]
        if not any(holds):
            continue
        for sentence, answers in zip(sentences, holds, strict=True):
            pairs.append(Pair(question, sentence, "entailment" if answers else TWO_WAY,
                              ANSWERS if answers else HARD))
        other = rng.randrange(len(parsed) - 1) if len(parsed) > 1 else index
        other += other >= index
        if other < len(parsed) and parsed[other][2]:
            pairs.append(Pair(question, rng.choice(parsed[other][2]), TWO_WAY, EASY))
    return pairs


def _training_questions(data_dir: Path, rows: int, reader: str
                        ) -> list[tuple[str, str, list[str]]]:
    """The question, right answer and knowledge sentences of the first ``rows`` HaluEval-QA
    rows; ``reader`` names what reads them when more rows are asked for than training may."""
    if rows > ANSWER_TRAIN_ROWS:
        raise DataError(
            f"{reader} HaluEval-QA rows below {ANSWER_TRAIN_ROWS} "
            f"(rows {ANSWER_TRAIN_ROWS}-{HALUEVAL_TRAIN_ROWS - 1} calibrate, later ones are "
            f"evaluation only); asked for {rows}"
        )
    return [
        (str(row["question"]).strip(), str(row["right_answer"]).strip(),
         knowledge_sentences(str(row["knowledge"])))
        for row in halueval_rows(data_dir, 0, rows)
    ]


def squad2_questions(data_dir: Path) -> list[dict[str, Any]]:
    """The SQuAD 2.0 subset's questions, one dict each (its README names the fields)."""
    path = data_dir / SQUAD2_FILE
    if not path.is_file():
        raise DataError(f"SQuAD 2.0 subset not found: {path} (set --data-dir to the folder "
                        f"that holds squad2_subset/)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        if not {"title", "context", "question", "answers", "plausible_answers"} <= row.keys():
            raise DataError(f"{path}: a row lacks title, context, question, answers or "
                            f"plausible_answers: {str(row)[:120]}")
    return rows


def squad2_answer_pairs(data_dir: Path, rng: random.Random) -> list[Pair]:
    """Pairs from the SQuAD 2.0 subset, its held-out article left out: an answerable
    question's sentences holding a gold answer are entailment and its paragraph's other
    sentences not_entailment; an unanswerable question's sentences holding its plausible
    answer are not_entailment, with one other sentence of its paragraph."""
    pairs: list[Pair] = []
    for row in squad2_questions(data_dir):
        if row["title"] == SQUAD2_HELD_OUT:
            continue
        question = str(row["question"]).strip()
        sentences = knowledge_sentences(str(row["context"]))
        answers = [str(answer) for answer in row["answers"]]
        if answers:
            holds = [any(contains_answer(s, a) for a in answers) for s in sentences]
            if not any(holds):
                continue
            pairs += [Pair(question, sentence, "entailment" if held else TWO_WAY,
                           SQUAD2_ANSWERS if held else SQUAD2_OTHER)
                      for sentence, held in zip(sentences, holds, strict=True)]
            continue
        plausible = [str(answer) for answer in row["plausible_answers"]]
        tempting = [s for s in sentences if any(contains_answer(s, a) for a in plausible)]
        pairs += [Pair(question, sentence, TWO_WAY, SQUAD2_PLAUSIBLE) for sentence in tempting]
        others = [s for s in sentences if s not in tempting]
        if others:
            pairs.append(Pair(question, rng.choice(others), TWO_WAY, SQUAD2_OTHER))
    return pairs


SIBLING = "sibling_question"
_QUESTION_WORD = re.compile(r"[A-Za-z0-9][\w'\u2019-]*")
# Shapes a swap keeps, most telling first: another name, another figure, another word.
_SHAPES = ("name", "figure", "word")


def _shape(word: str, sentence_initial: bool) -> str | None:
    if any(character.isdigit() for character in word):
        return "figure"
    if word[0].isupper():
        # A capital that opens a sentence says nothing of whether the word is a name.
        return None if sentence_initial else "name"
    return "word" if len(word) >= 4 else None


def sibling_question(question: str, sentence: str, siblings: Sequence[str],
                     rng: random.Random) -> str | None:
    """``question`` with one of its words that ``sentence`` holds (not its first word)
    replaced by a word of the same shape that only ``siblings`` hold: a name by a name, a
    figure by a figure, a word by a word. ``sentence`` answers ``question`` and not the
    result, which asks of a sibling entity or another attribute ("the 24-hour card" of a
    question about "the 48-hour card"). None when no word can be swapped."""
    held = {word.lower() for word in _QUESTION_WORD.findall(sentence)}
    asked = {word.lower() for word in _QUESTION_WORD.findall(question)}
    replacements: dict[str, set[str]] = {shape: set() for shape in _SHAPES}
    for text in siblings:
        for match in _QUESTION_WORD.finditer(text):
            word = match.group(0)
            shape = _shape(word, match.start() == 0)
            if shape and word.lower() not in held | asked | STOPWORDS:
                replacements[shape].add(word)
    targets: dict[str, list[re.Match[str]]] = {shape: [] for shape in _SHAPES}
    for match in list(_QUESTION_WORD.finditer(question))[1:]:
        word = match.group(0)
        shape = _shape(word, False)
        if shape and word.lower() in held and word.lower() not in STOPWORDS:
            targets[shape].append(match)
    for shape in _SHAPES:
        if targets[shape] and replacements[shape]:
            target = rng.choice(targets[shape])
            replacement = rng.choice(sorted(replacements[shape]))
            return question[: target.start()] + replacement + question[target.end():]
    return None


def sibling_question_pairs(data_dir: Path, rows: int, rng: random.Random) -> list[Pair]:
    """One not_entailment pair per answerable question of the first ``rows`` HaluEval-QA rows
    and of the SQuAD 2.0 subset (its held-out article left out): a sentence that answers the
    question, against the question swapped to a sibling by :func:`sibling_question`, its
    replacement drawn from the passage's other sentences. Comparisons ("A or B?") are left
    out: a swapped side may still be answered by the sentence."""
    questions = [
        (question, [answer], sentences) for question, answer, sentences
        in _training_questions(data_dir, rows, "sibling questions read")
    ] + [
        (str(row["question"]).strip(), [str(answer) for answer in row["answers"]],
         knowledge_sentences(str(row["context"])))
        for row in squad2_questions(data_dir)
        if row["title"] != SQUAD2_HELD_OUT and row["answers"]
    ]
    pairs: list[Pair] = []
    for question, answers, sentences in questions:
        if re.search(r"\bor\b", question, re.IGNORECASE):
            continue
        holding = [s for s in sentences if any(contains_answer(s, a) for a in answers)]
        if not holding:
            continue
        sentence = rng.choice(holding)
        swapped = sibling_question(question, sentence,
                                   [s for s in sentences if s not in holding], rng)
        if swapped:
            pairs.append(Pair(swapped, sentence, TWO_WAY, SIBLING))
    return pairs
