"""A bare answer read as the answer to its question.

"Bill Condon" states nothing alone. Checked against "Who directed the film in which the
actor who played Gandalf played Cogsworth?", it is right when the contexts give it as that
answer. The views read the question and the phrase glued together, a text no context states
in those words: they pass "3,499 euros" for "How much does the Voltra Sport cost?" because
some sentence states a price. The answer scorer reads what a sentence answers; the question's
subjects say whose answer it is.

The contexts' answers are their sentences that answer the question
(:func:`veritype.answers.scoring.model_answers`, each read with its opening pronoun resolved: "It
costs 2,799 euros." is the Voltra Sport's price). They are ranked by how much of a subject of
the question they name, then by P(answers). The best one is the contexts' answer. So is the
next, when it names as much of a subject and scores at least ``NEAR_BEST`` of the best, as
``ask`` reads a claim beside a better one: a two-hop question is answered by a bridge sentence
and the sentence that holds the answer, and neither names the subject more than the other;
"Voltra assembles its bikes in Eindhoven" (0.21) beside "Voltra was founded in 2015 in
Utrecht" (0.96) does not say where Voltra was founded.

- *Stated*: one of them holds the phrase word for word (case, punctuation and articles
  aside), or, unless the best answers otherwise, another answering sentence does (a two-hop
  question's answer stands in a sentence that names the bridge, not the subject).
- *Answered otherwise*: neither holds it; the best names a subject, answers at P ≥
  ``OTHERWISE``, and lacks a content word of the phrase ("1883" where it says 1937). An
  answer worded otherwise ("John A. Roebling" for "John Augustus Roebling") keeps its words
  and is left to the views.

A yes/no answer and a phrase the question names itself (an option of "X or Y?") are left to
the views.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from veritype._text import ARTICLES, STOPWORDS
from veritype.answers.question import analyse
from veritype.answers.scoring import NEAR_BEST, AnswerScorer, may_answer, model_answers
from veritype.clauses import resolved_sentences, sentence_referents
from veritype.evidence import EvidencePack, Span
from veritype.views._matching import contains_run
from veritype.views._values import extract_values

# P(answers) from which the subject's best answering sentence answers otherwise, chosen on
# HaluEval-QA rows 7000–7999 (the answer scorer's calibration rows) and our own rows of
# answers taken from another entity's sentence.
OTHERWISE = 0.9
_WORD = re.compile(r"\w+")
_POLAR = frozenset({("yes",), ("no",), ("true",), ("false",)})


class Reading(StrEnum):
    STATED = "stated"
    OTHERWISE = "answered otherwise"


@dataclass(frozen=True, slots=True)
class AnswerReading:
    """How the contexts answer the question: the sentence read and its P(answers)."""

    reading: Reading
    span: Span
    probability: float


@dataclass(frozen=True, slots=True)
class _Sentence:
    span: Span
    written: str
    about: float
    probability: float


def _words(text: str) -> tuple[str, ...]:
    return tuple(word for word in _WORD.findall(text.lower()) if word not in ARTICLES)


def unstated_values(question: str, phrase: str, pack: EvidencePack) -> tuple[str, ...]:
    """The names, numbers and dates of the bare answer ``phrase`` (those the question does
    not hold itself) when no context gives any of them: "John R. Smith" for "Which Yale
    professor has written 150 articles ...?" where no context names him. A bare answer is
    its values; the question's own names, which the contexts do give, state nothing of it.
    Empty when some context gives one, or the phrase has none of its own."""
    asked = question.lower()
    values = [value for value in extract_values(phrase) if value.text.lower() not in asked]
    if not values:
        return ()
    # Found as written, word for word: a value's kind may read otherwise in a context ("21"
    # in "21 weeks"), and contexts glue sentences ("... Taemin.Lee Jin-ki (born ...").
    read = [_words(chunk.text) for chunk in pack]
    if any(contains_run(context, _words(value.text)) for context in read for value in values):
        return ()
    return tuple(value.label for value in values)


def read_answer(question: str, phrase: str, pack: EvidencePack,
                scorer: AnswerScorer) -> AnswerReading | None:
    """How ``pack`` answers ``question`` with respect to the bare answer ``phrase``, or
    ``None`` when it says nothing either way (see the module's rules)."""
    wanted = _words(phrase)
    if not wanted or wanted in _POLAR or contains_run(_words(question), wanted):
        return None
    asked = analyse(question)
    spans: list[Span] = []
    written: list[str] = []
    resolved: list[str] = []
    for chunk in pack:
        sentences = chunk.sentences()
        for span, referent in zip(sentences, sentence_referents(chunk, sentences), strict=True):
            spans.append(span)
            written.append(chunk.slice(span.start, span.end))
            resolved.append(resolved_sentences(chunk, [span], [referent]))
    if not spans:
        return None
    # Only sentences that can answer whatever their score are scored: the answer scorer
    # reads one sentence at a time, so leaving the others out changes no score.
    can = [may_answer(asked, read, scorer.calibration) for read in resolved]
    scored = iter(scorer.score_batch(question, [read for read, c in zip(resolved, can,
                                                                         strict=True) if c]))
    scores = [next(scored) if c else None for c in can]
    answering = sorted(
        (_Sentence(span, text, _about(asked.subjects, read), score)
         for span, text, read, score in zip(spans, written, resolved, scores, strict=True)
         if score is not None and model_answers(asked, read, score, scorer.calibration)),
        key=lambda s: (-s.about, -s.probability, s.span.doc_id, s.span.start))
    if not answering:
        return None
    best = answering[0]
    answers = [best, *(s for s in answering[1:2] if s.about >= best.about
                       and s.probability >= NEAR_BEST * best.probability)]
    for sentence in answers:
        if contains_run(_words(sentence.written), wanted):
            return AnswerReading(Reading.STATED, sentence.span, sentence.probability)
    stated = set(_words(best.written))
    if (best.probability >= OTHERWISE and best.about > 0
            and any(word not in stated for word in wanted if word not in STOPWORDS)):
        return AnswerReading(Reading.OTHERWISE, best.span, best.probability)
    # Unless the best answers otherwise, any other sentence that answers and holds the
    # phrase states it: a two-hop question's answer often stands in a sentence that names
    # the bridge, not the subject ("The History Boys" is Alan Bennett's; "Alan Bennett (born
    # 9 May 1934)" answers the year).
    for sentence in answering[len(answers):]:
        if contains_run(_words(sentence.written), wanted):
            return AnswerReading(Reading.STATED, sentence.span, sentence.probability)
    return None


def _about(subjects: tuple[frozenset[str], ...], text: str) -> float:
    """The largest share of one subject's words that ``text`` names."""
    words = set(_words(text))
    return max((len(subject & words) / len(subject) for subject in subjects if subject),
               default=0.0)
