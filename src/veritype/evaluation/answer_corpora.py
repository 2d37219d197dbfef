"""Questions over small corpora with gold answers, and the candidate answers the engine reads
for them: the data the answer reader is fitted on (``veritype.train.answer_reader``).

Two layouts: a folder with ``split.json`` and ``questions.json``
(``benchmarks/data/answer_corpora``), of which only the corpora of the calibration half are
read (the evaluation half is never touched here), or a folder whose ``questions.json`` maps
each corpus folder to its questions (``tests/data/corpora``). Each corpus is one source.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from veritype.answer_reader import features
from veritype.answering import DECIDED_BY_RULES, AnswerScorer
from veritype.errors import DataError
from veritype.evaluation.answer_metrics import contains_answer
from veritype.evidence import Chunk
from veritype.question import analyse

_QUESTIONS = "questions.json"
_SPLIT = "split.json"


@dataclass(frozen=True)
class GoldQuestion:
    """A question over one corpus folder with its gold answers (alternatives, each a list of
    strings that must all appear); an unanswerable question has none."""

    source: str
    folder: Path
    question: str
    kind: str  # answerable, comparative or unanswerable
    gold: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class ReadQuestion:
    """One question's candidates: their features, labels and the answer model's scores."""

    question: GoldQuestion
    rows: npt.NDArray[np.float64]
    labels: npt.NDArray[np.float64]
    answer_model: npt.NDArray[np.float64]
    shared_words: npt.NDArray[np.float64]


def gold_questions(folders: Sequence[Path]) -> list[GoldQuestion]:
    """The questions of each folder (see the module's docstring for the two layouts)."""
    found: list[GoldQuestion] = []
    for folder in folders:
        path = folder / _QUESTIONS
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise DataError(f"{path}: cannot read the questions: {error}") from None
        if (folder / _SPLIT).is_file():
            split = json.loads((folder / _SPLIT).read_text(encoding="utf-8"))
            allowed = set(split["calibration"])
            found += [GoldQuestion(row["corpus"], folder / row["corpus"], row["question"],
                                   row["kind"], _alternatives(row.get("gold_any")
                                                              or [row["gold"]]))
                      for row in data if row["corpus"] in allowed]
        elif isinstance(data, dict):
            found += [GoldQuestion(name, folder / name, row["question"], row["kind"],
                                   _alternatives([row["answer"]]))
                      for name, rows in data.items() for row in rows]
        else:
            raise DataError(f"{path}: neither a split corpus set nor a map of corpora")
    if not found:
        raise DataError("no questions to fit the answer reader on")
    return found


def _alternatives(gold: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(alternative) for alternative in gold)


def holds_gold(text: str, gold: Sequence[Sequence[str]]) -> bool:
    """Whether ``text`` holds every string of one gold alternative."""
    return any(alternative and all(contains_answer(text, value) for value in alternative)
               for alternative in gold)


def read_candidates(questions: Sequence[GoldQuestion], answer_model: str,
                    progress: Callable[[str], None] = lambda _: None) -> list[ReadQuestion]:
    """Each question's candidates, read from its corpus in a fresh store (but for the
    comparisons and yes/no questions, which the rules decide):
    the sentences of its evidence as ``Engine.ask`` retrieves it, as the extractive drafter
    reads them, each labelled by whether it holds the gold answer."""
    from veritype.engine import Engine, EngineConfig
    from veritype.engine._evidence import EvidenceFinder

    reads: list[ReadQuestion] = []
    folders = list(dict.fromkeys(q.folder for q in questions))
    with tempfile.TemporaryDirectory() as scratch:
        for number, folder in enumerate(folders):
            config = EngineConfig(store=f"sqlite:///{scratch}/{number}.sqlite",
                                  answer_model=answer_model, demo=False)
            with Engine(config) as engine:
                engine.ingest([folder])
                scorer = engine.answer_scorer()
                if scorer is None:
                    raise DataError("the answer reader reads an answer model's scores; "
                                    "answer_model is none")
                finder = EvidenceFinder(engine.corpus, config.claim_k)
                for question in questions:
                    # The rules decide yes/no questions and comparisons: the reader is not
                    # read there.
                    if (question.folder != folder or question.kind == "comparative"
                            or analyse(question.question).kind in DECIDED_BY_RULES):
                        continue
                    hits = finder.retrieve(question.question, config.k, None)
                    chunks = finder.pack([hit.chunk for hit in hits]).chunks
                    read = _read_one(question, chunks, scorer)
                    if read is not None:
                        reads.append(read)
            progress(f"{folder.name}: read")
    return reads


def _read_one(question: GoldQuestion, chunks: Sequence[Chunk], scorer: AnswerScorer
              ) -> ReadQuestion | None:
    from veritype.generation.extractive import candidate_sentences

    asked = analyse(question.question)
    candidates = candidate_sentences(chunks, asked)
    if not candidates:
        return None
    scores = scorer.score_batch(question.question, [c.sentence for c in candidates])
    read = [c.as_read() for c in candidates]
    labels = [question.kind == "answerable" and holds_gold(c.sentence, question.gold)
              for c in candidates]
    return ReadQuestion(question, np.array(features(asked, read, scores), dtype=np.float64),
                 np.array(labels, dtype=np.float64), np.array(scores, dtype=np.float64),
                 np.array([c.score for c in candidates], dtype=np.float64))


@dataclass(frozen=True)
class AskedAnswer:
    """One question asked through ``Engine.ask``: whether an answer was shown and right, and
    the best reader P and answer-model P(answers) of the claims it showed."""

    question: GoldQuestion
    shown: bool
    right: bool
    best_read: float
    best_scored: float


def ask_with_reader(questions: Sequence[GoldQuestion], answer_model: Path,
                    progress: Callable[[str], None] = lambda _: None) -> list[AskedAnswer]:
    """Ask each question the rules do not decide through ``Engine.ask`` with the answer model
    (and its reader) in ``answer_model``, each corpus in a fresh store."""
    from veritype.answer_reader import reader_of
    from veritype.engine import Engine, EngineConfig
    from veritype.engine._evidence import EvidenceFinder, claim_candidate, drafting_pool

    asked: list[AskedAnswer] = []
    folders = list(dict.fromkeys(q.folder for q in questions))
    with tempfile.TemporaryDirectory() as scratch:
        for number, folder in enumerate(folders):
            config = EngineConfig(store=f"sqlite:///{scratch}/{number}.sqlite",
                                  answer_model=str(answer_model), demo=False)
            with Engine(config) as engine:
                engine.ingest([folder])
                scorer = engine.answer_scorer()
                reader = reader_of(scorer) if scorer is not None else None
                if scorer is None or reader is None:
                    raise DataError(f"{answer_model}: no answer model with a reader")
                finder = EvidenceFinder(engine.corpus, config.claim_k)
                for question in questions:
                    if (question.folder != folder or question.kind == "comparative"
                            or analyse(question.question).kind in DECIDED_BY_RULES):
                        continue
                    answer = engine.ask(question.question)
                    shown = [claim.text for claim in answer.claims if claim.rendered]
                    if answer.abstained or not shown:
                        asked.append(AskedAnswer(question, False, False, 0.0, 0.0))
                        continue
                    hits = finder.retrieve(question.question, config.k, None)
                    pool = drafting_pool(finder.pack([hit.chunk for hit in hits]).chunks,
                                         analyse(question.question))
                    scores = scorer.score_batch(question.question, shown)
                    read = reader.probabilities(analyse(question.question),
                                                [claim_candidate(text, pool) for text in shown],
                                                scores, pool=pool)
                    right = (question.kind == "answerable"
                             and holds_gold(answer.answer, question.gold))
                    asked.append(AskedAnswer(question, True, right, max(read), max(scores)))
            progress(f"{folder.name}: asked")
    return asked
