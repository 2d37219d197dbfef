"""Training pairs for the answer-sentence model: does this sentence answer this question?

HaluEval-QA rows hold HotpotQA questions with the knowledge paragraphs that answer them. Each
sentence of a row's knowledge that contains the row's right answer (SQuAD normalisation, whole
words) answers its question; the row's other sentences are its hard negatives (the same
entities, the bridge fact of a two-hop question, not the answer), and one sentence of another
row an easy one (off the question altogether, as a retriever's weaker hits are). Rows whose
answer is in no sentence ("yes", "no") teach nothing and are skipped.

Pairs are ``(question, sentence)`` in QNLI's order, so QNLI's pairs of the NLI pool train the
same head. Rows from ``ANSWER_TRAIN_ROWS`` on are left for calibrating the model's threshold
and the answers' confidence; rows from ``HALUEVAL_TRAIN_ROWS`` on are evaluation only.
"""

from __future__ import annotations

import random
from pathlib import Path

from veritype._text import sentence_spans
from veritype.errors import DataError
from veritype.evaluation.answer_metrics import contains_answer
from veritype.evaluation.e2e import halueval_rows
from veritype.train.data import HALUEVAL_TRAIN_ROWS, TWO_WAY, Pair

# Rows [ANSWER_TRAIN_ROWS, HALUEVAL_TRAIN_ROWS) calibrate; the model never reads them.
ANSWER_TRAIN_ROWS = 7000
ANSWERS, HARD, EASY = "halueval_answers", "halueval_answers_hard", "halueval_answers_easy"


def knowledge_sentences(knowledge: str) -> list[str]:
    """The sentences of a knowledge text, as veritype's splitter cuts them."""
    return [" ".join(knowledge[start:end].split()) for start, end in sentence_spans(knowledge)]


def answer_sentence_pairs(data_dir: Path, rows: int, rng: random.Random) -> list[Pair]:
    """Pairs from the first ``rows`` HaluEval-QA rows: each sentence holding the right answer
    is entailment, the row's other sentences and one other row's sentence not_entailment."""
    if rows > ANSWER_TRAIN_ROWS:
        raise DataError(
            f"answer-sentence training reads HaluEval-QA rows below {ANSWER_TRAIN_ROWS} "
            f"(rows {ANSWER_TRAIN_ROWS}-{HALUEVAL_TRAIN_ROWS - 1} calibrate, later ones are "
            f"evaluation only); asked for {rows}"
        )
    parsed = [
        (str(row["question"]).strip(), str(row["right_answer"]).strip(),
         knowledge_sentences(str(row["knowledge"])))
        for row in halueval_rows(data_dir, 0, rows)
    ]
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
