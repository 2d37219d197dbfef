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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from veritype.answers.question import analyse
from veritype.answers.reader import features
from veritype.answers.scoring import DECIDED_BY_RULES, AnswerScorer
from veritype.errors import DataError
from veritype.evaluation.answer_metrics import contains_answer
from veritype.evidence import Chunk

if TYPE_CHECKING:
    from veritype.engine import Engine
    from veritype.engine._evidence import EvidenceFinder

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
    reads: list[ReadQuestion] = []
    for corpus in _corpora(questions, answer_model, progress, "read"):
        for question in corpus.questions:
            read = _read_one(question, corpus.evidence(question.question), corpus.scorer)
            if read is not None:
                reads.append(read)
    return reads


@dataclass(frozen=True)
class _Corpus:
    """One corpus ingested into a fresh store, with the questions on it the reader reads."""

    engine: Engine
    scorer: AnswerScorer
    finder: EvidenceFinder
    questions: list[GoldQuestion]

    def evidence(self, question: str) -> list[Chunk]:
        """The chunks ``Engine.ask`` drafts ``question`` from."""
        hits = self.finder.retrieve(question, self.engine.config.k, None)
        return self.finder.pack([hit.chunk for hit in hits]).chunks


def _corpora(questions: Sequence[GoldQuestion], answer_model: str,
             progress: Callable[[str], None], done: str) -> Iterator[_Corpus]:
    """Each corpus folder of ``questions`` in a fresh store with ``answer_model``, and its
    questions that the reader reads: not the comparisons and yes/no questions, which the
    rules decide. Says ``done`` of each folder after its questions."""
    from veritype.engine import Engine, EngineConfig
    from veritype.engine._evidence import EvidenceFinder

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
                yield _Corpus(engine, scorer, EvidenceFinder(engine.corpus, config.claim_k),
                              [q for q in questions if q.folder == folder and _read(q)])
            progress(f"{folder.name}: {done}")


def _read(question: GoldQuestion) -> bool:
    return (question.kind != "comparative"
            and analyse(question.question).kind not in DECIDED_BY_RULES)


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
    the best reader P and answer-model P(answers) of the claims it showed, and the share of
    what the question asks about that they speak of (``question_coverage``)."""

    question: GoldQuestion
    shown: bool
    right: bool
    best_read: float
    best_scored: float
    coverage: float


def ask_with_reader(questions: Sequence[GoldQuestion], answer_model: Path,
                    progress: Callable[[str], None] = lambda _: None) -> list[AskedAnswer]:
    """Ask each question the rules do not decide through ``Engine.ask`` with the answer model
    (and its reader) in ``answer_model``, each corpus in a fresh store."""
    from veritype.answers.reader import question_coverage, reader_of
    from veritype.engine._evidence import claim_candidate, drafting_pool

    asked: list[AskedAnswer] = []
    for corpus in _corpora(questions, str(answer_model), progress, "asked"):
        reader = reader_of(corpus.scorer)
        if reader is None:
            raise DataError(f"{answer_model}: no reader beside the answer model")
        for question in corpus.questions:
            answer = corpus.engine.ask(question.question)
            shown = [claim.text for claim in answer.claims if claim.rendered]
            if answer.abstained or not shown:
                asked.append(AskedAnswer(question, False, False, 0.0, 0.0, 0.0))
                continue
            asking = analyse(question.question)
            pool = drafting_pool(corpus.evidence(question.question), asking)
            scores = corpus.scorer.score_batch(question.question, shown)
            candidates = [claim_candidate(text, pool) for text in shown]
            read = reader.probabilities(asking, candidates, scores, pool=pool)
            right = question.kind == "answerable" and holds_gold(answer.answer, question.gold)
            asked.append(AskedAnswer(question, True, right, max(read), max(scores),
                                     question_coverage(asking, candidates, pool)))
    return asked
