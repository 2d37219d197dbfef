"""The ``extractive`` generator: an answer composed of evidence sentences, no model needed.

It ranks the evidence sentences by whether they answer the question, keeps the best few that
say something new, and joins them. Whether a sentence answers is the answer reader's P
(``veritype.answers.reader``: the answer model's P(answers) weighed with what the question
asks) where the answer scorer has one; for a yes/no question or a comparison, and for a
scorer without a reader, its P(answers) with the rules of ``veritype.answers.question`` (a value of
the kind asked for, on its focus and about its subject) and the share of the question's words
as a bonus; without a scorer, the rules alone.
Every sentence it writes is quoted from the evidence, so it is the safe default when no
language model is installed.
Headings are never answers; a chosen sentence that opens with a pronoun ("It is 1,006
kilometres long.") comes with the sentence it refers back to, or the heading above it, so
the draft says what "it" is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Unpack

from veritype._llama import RuntimeOptions
from veritype._tables import is_table_line, table_row_reading
from veritype._text import ANAPHORIC_LEAD, content_words, tokens
from veritype.answers.question import Question, analyse
from veritype.answers.reader import Candidate, reader_of
from veritype.answers.relevance import names_any
from veritype.answers.scoring import DECIDED_BY_RULES, AnswerScorer, may_answer, model_answers
from veritype.clauses import describes_another, heading_text, names_its_subject
from veritype.errors import ConfigurationError
from veritype.evidence import Chunk, paragraph_opening
from veritype.generation._base import (
    BaseGenerator,
    Draft,
    GenerationParams,
    TokenInfo,
    register_generator,
)
from veritype.generation._reading import MAX_SENTENCES, SentenceReader

# Two sentences sharing this fraction of their content words say the same thing.
_DUPLICATE_OVERLAP = 0.8
# Structured abstracts open sections with capitalised labels ("CONCLUSIONS AND RELEVANCE").
_SECTION_LABEL = re.compile(r"^(?:[A-Z][A-Z&/-]+:?\s+)+(?=[A-Z][a-z])")
# Sentences that state what a study set out to do answer no question about its findings.
_AIM = re.compile(
    r"^(?:To [a-z]+\b|(?:We|This study|The study|This trial)\s+(?:aimed|aims|sought|set out)\b"
    r"|(?:The )?(?:aim|objective|purpose|goal)s? of (?:this|the|our)\b)"
)


@register_generator("extractive")
class ExtractiveGenerator(BaseGenerator):
    """Composes an answer from the ``max_sentences`` evidence sentences that best answer the
    question, deduplicated, in order of relevance."""

    name = "extractive"

    def __init__(self, max_sentences: int = 3, answer_scorer: AnswerScorer | None = None,
                 reader_model_path: str | Path | None = None, reader_sentences: int = 6,
                 document_title: Callable[[str], str] | None = None,
                 **runtime: Unpack[RuntimeOptions]) -> None:
        if max_sentences < 1:
            raise ConfigurationError(f"max_sentences must be at least 1, got {max_sentences}")
        if not 1 <= reader_sentences <= MAX_SENTENCES:
            raise ConfigurationError(f"reader_sentences must lie in 1..{MAX_SENTENCES}, got "
                                     f"{reader_sentences}")
        self.max_sentences = max_sentences
        self.answer_scorer = answer_scorer
        self.reader_sentences = reader_sentences
        # A document's title by its id (the engine's store): a comparison's side may be named
        # only by the title of the passage that gives its value ("Methods" of which study).
        self.document_title = document_title
        self.reader = (SentenceReader(reader_model_path, **runtime)
                       if reader_model_path is not None else None)

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft:
        started = time.perf_counter()
        params = params if params is not None else GenerationParams()
        picked, declined = self._select(prompt, evidence, params.max_tokens)
        # A heading must stand on a line of its own to read as one.
        separator = "\n" if any(part.startswith("#") for part in picked) else " "
        text = separator.join(picked)
        words = tuple(TokenInfo(m.group(0), m.start()) for m in tokens(text))
        model = self.reader.model_path.name if self.reader is not None else ""
        return Draft(text, words, self.name, model, time.perf_counter() - started,
                     declined=declined)

    def _select(self, question: str, evidence: Sequence[Chunk], max_words: int
                ) -> tuple[list[str], str]:
        """The sentences of the draft, and why there are none when the reader found none
        that states the answer."""
        asked = analyse(question)
        titles = ({chunk.doc_id: self.document_title(chunk.doc_id) for chunk in evidence}
                  if self.document_title is not None and asked.comparative else {})
        candidates = candidate_sentences(evidence, asked, titles)
        if not candidates:
            return [], ""
        if self.answer_scorer is not None:
            answering = self.answer_scorer.score_batch(question, [c.sentence for c in candidates])
            reader = reader_of(self.answer_scorer)
            if reader is not None and asked.kind not in DECIDED_BY_RULES:
                # The reader weighs P(answers) with what the question asks; it alone ranks.
                read = reader.probabilities(asked, [c.as_read() for c in candidates], answering)
                for candidate, probability in zip(candidates, read, strict=True):
                    candidate.score = probability
            else:
                # P(answers) leads; the rules' answer and the shared words (``score``) break
                # ties, as for the questions the rules decide (yes/no, comparisons), where the
                # reader was fitted on too few. In a comparison the rules lead: the model knows
                # one answer, not the two sides the rules count.
                weight = 1.0 if asked.comparative else _RULES_WEIGHT
                for candidate, probability in zip(candidates, answering, strict=True):
                    candidate.score = probability + weight * candidate.score
        # Best score first; among equals, the better-ranked chunk and earlier sentence.
        ordered = sorted(enumerate(candidates),
                         key=lambda item: (-item[1].score, item[1].rank, item[0]))
        firsts: list[int] = []
        if ordered[0][1].score == 0.0:
            # Nothing shares a word with the question: the retriever's best chunk leads.
            ordered = [(0, candidates[0])]
        elif asked.comparative:
            # Each side's best value leads: a comparison answered for one side is no answer.
            for number, side in enumerate(asked.sides):
                first = next((index for index, candidate in ordered if asked.side_answered(
                    side, candidate.sentence, candidate.context, candidate.title)), None)
                if first is None and self.answer_scorer is not None:
                    first = self._side_value(asked, number, candidates)
                if first is not None and first not in firsts:
                    firsts.append(first)
            by_index = dict(ordered)
            ordered = ([(first, by_index[first]) for first in firsts]
                       + [item for item in ordered if item[0] not in firsts])
        if self.reader is not None and asked.kind not in DECIDED_BY_RULES:
            # Yes/no questions and comparisons are answered by several sentences, not one.
            top = [candidate.as_read() for _, candidate in ordered[:self.reader_sentences]]
            shown = [f"{c.context}: {c.text}" if c.context else c.text for c in top]
            if self.reader.choose(question, shown) is None:
                return [], (f"The reader ({self.reader.model_path.name}) found no sentence "
                            f"that states the answer among the {len(shown)} the evidence "
                            f"ranks highest.")
        chosen: list[set[str]] = []
        parts: list[str] = []
        orphans: list[str] = []
        used_words = 0
        for index, candidate in ordered:
            sentence, words, referent = candidate.sentence, candidate.words, candidate.referent
            if len(chosen) == self.max_sentences or (
                    chosen and candidate.score == 0.0 and index not in firsts):
                break
            # A side's value is never another side's duplicate: "Tickets cost 520 kroner for
            # adults." and "A return ticket costs 180 kroner for adults ..." share their words.
            if sentence in parts or sentence in orphans or (
                    index not in firsts and any(_same_content(words, seen) for seen in chosen)):
                continue
            lead = [referent] if referent is not None and referent not in parts else []
            length = sum(1 for text in (*lead, sentence) for _ in tokens(text))
            if chosen and used_words + length > max_words:
                break
            if not chosen and length > max_words:
                lead, sentence = [], _first_words(sentence, max_words)
            chosen.append(words)
            if candidate.leads_back and not lead and referent is None:
                orphans.append(sentence)
            elif candidate.leads_back and not lead and referent in parts:
                # Its referent is quoted already: "it" must follow it, not the latest part.
                parts.insert(parts.index(referent) + 1, sentence)
            else:
                parts.extend([*lead, sentence])
            used_words += length
        # A sentence whose "it" its own passage never names goes first: after another
        # passage's sentence, "it" would be read as that passage's subject.
        return [*orphans, *parts], ""

    def _side_value(self, asked: Question, number: int, candidates: Sequence[_Candidate]
                    ) -> int | None:
        """The candidate that best gives side ``number``'s value by the answer model reading
        that side's own question: it names the side, holds a value of the asked kind and its
        P(answers) reaches the calibrated threshold; None when no candidate does. Asked only
        when the rules find no candidate for the side, and only of the candidates that name
        it and may answer: the scorer is the costly part."""
        assert self.answer_scorer is not None
        calibration = self.answer_scorer.calibration
        side = asked.sides[number]
        naming = [index for index, candidate in enumerate(candidates)
                  if asked.names_side(side, candidate.sentence, candidate.context,
                                      candidate.title)
                  and may_answer(asked, candidate.sentence, calibration)]
        scores = dict(zip(naming, self.answer_scorer.score_batch(
            asked.side_question(number), [candidates[index].sentence for index in naming]),
            strict=True))
        fitting = [index for index in naming
                   if model_answers(asked, candidates[index].sentence, scores[index],
                                    calibration)]
        return max(fitting, key=scores.__getitem__, default=None)


# How much the rules (an answer counts 1, the share of the question's words up to 1) weigh
# beside a scorer's P(answers).
_RULES_WEIGHT = 0.2


@dataclass(slots=True)
class _Candidate:
    """An evidence sentence the draft may quote, with its ranking score."""

    score: float
    rank: int  # of its chunk among the retrieved
    sentence: str
    words: set[str]
    referent: str | None  # the sentence "it" leads back to, quoted before it
    leads_back: bool  # it opens with a pronoun ("It is 1,006 kilometres long.")
    about: str  # the heading of its passage
    title: str = ""  # the title of its document, where the drafter was given titles

    @property
    def context(self) -> str:
        """What the sentence is about beyond its words: its heading and, when it opens with
        a pronoun, the sentence the pronoun leads back to."""
        lead = (self.referent or "").removeprefix("# ")
        return " ".join(part for part in (self.about, lead) if part)

    def as_read(self) -> Candidate:
        """The sentence as the answer reader reads it: with its context."""
        return Candidate(self.sentence, self.context)


def candidate_sentences(evidence: Sequence[Chunk], asked: Question,
                        titles: dict[str, str] | None = None) -> list[_Candidate]:
    """Every sentence of the evidence that may answer, in order, each scored by the rules:
    the share of the question's content words it holds plus one when it answers; ``titles``
    (document id → title) name what a comparison's sentences are about."""
    titles = titles or {}
    wanted = set(content_words(asked.text))
    candidates: list[_Candidate] = []
    for rank, chunk in enumerate(evidence):
        referent: str | None = None
        about = ""
        for span in chunk.sentences():
            # A comparison's sentence is also said of the sentence that opens its paragraph,
            # when that names its subject.
            opening = (paragraph_opening(chunk.text, span.start - chunk.start)
                       if asked.comparative else "")
            title = " ".join(part for part in (
                titles.get(chunk.doc_id, ""), opening if names_its_subject(opening) else "")
                if part)
            written = chunk.slice(span.start, span.end)
            row = table_row_reading(chunk.text, span.start - chunk.start,
                                    span.end - chunk.start)
            if row is None and is_table_line(written):
                continue  # a table's header row: its words are the rows' readings'
            sentence = " ".join((written if row is None else row).split())
            heading = heading_text(sentence)
            if heading is not None:
                referent = f"# {heading}"
                about = heading
                continue
            sentence = _SECTION_LABEL.sub("", sentence)
            words = set(content_words(sentence))
            leads_back = ANAPHORIC_LEAD.match(sentence) is not None
            if words and not _AIM.match(sentence):
                share = len(wanted & words) / len(wanted) if wanted else 0.0
                # A sentence that answers outranks any that merely shares words.
                answered = _answer_score(asked, sentence, about or referent or "", title)
                candidates.append(_Candidate(share + answered, rank, sentence, words,
                                             referent if leads_back else None, leads_back,
                                             about, title))
            # "The bridge opened in 1998." names no bridge: "Its span ..." after it comes
            # with the sentence that names the bridge. "The lighthouse is open in summer."
            # under "## Holmø" describes a new subject: "Its 212 steps" are the lighthouse's.
            if names_its_subject(sentence) or describes_another(sentence, referent):
                referent = sentence
    return candidates


def _answer_score(question: Question, sentence: str, about: str, title: str = "") -> int:
    """How many sides of the question the sentence answers (one for a plain question),
    read with ``about``, the heading of its passage, for the thing it is about (and, for a
    comparison, its document's ``title``)."""
    if question.comparative:
        return sum(question.side_answered(side, sentence, about, title)
                   for side in question.sides)
    context = f"{sentence} {about}"
    on_subject = not question.subjects or names_any(context, question.subjects)
    return int(on_subject and question.answers(sentence))


def _same_content(first: set[str], second: set[str]) -> bool:
    return len(first & second) / min(len(first), len(second)) >= _DUPLICATE_OVERLAP


def _first_words(sentence: str, count: int) -> str:
    for index, match in enumerate(tokens(sentence)):
        if index == count - 1:
            return sentence[: match.end()]
    return sentence
