"""Which of the claims a renderer may show answer the question, and how likely that answer is
right: the rules of ``veritype.answers.question``, an answer scorer's P(answers) at its
calibrated threshold (``veritype.answers.scoring``), and an answer reader's P
(``veritype.answers.reader``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from veritype.answer import Confidence
from veritype.answers.question import AnswerKind, Question
from veritype.answers.reader import RightCalibration
from veritype.answers.relevance import names_any
from veritype.answers.scoring import (
    AnswerCalibration,
    answering_claims,
    claim_answers,
    model_answers,
)
from veritype.answers.siblings import Sibling, sibling_in_place, sibling_instead
from veritype.clauses import names_its_subject
from veritype.evidence import EvidencePack
from veritype.graph import Node


class AnswerSelection:
    """Which shown claims answer the question: by the rules of ``veritype.answers.question``,
    or by an answer scorer's P(answers) at its calibrated threshold; and how likely the
    answer they make is right."""

    def __init__(self, question: Question | None, scores: Mapping[str, float],
                 calibration: AnswerCalibration | None, read: Mapping[str, float],
                 right_calibration: RightCalibration | None,
                 side_scores: Sequence[Mapping[str, float]] = (),
                 coverage: Callable[[Collection[str]], float] | None = None) -> None:
        self.question = question
        self.scores = scores if calibration is not None else {}
        self.side_scores = side_scores if calibration is not None else ()
        self.calibration = calibration
        self.read = read if right_calibration is not None else {}
        self.right_calibration = right_calibration
        # The share of what the question asks about that claims (by id) speak of.
        self.coverage = coverage
        # Claims that give a sibling's value (claim id → the sibling, the claim's text).
        self.siblings: dict[str, tuple[Sibling, str]] = {}
        self._evidence_sentences: list[str] | None = None
        # For a comparison, the sides each claim gives the value of (claim id → side
        # indices), as :meth:`answering` read them.
        self._sides_given: dict[str, list[int]] = {}

    def answers(self, node: Node) -> bool:
        if self.question is None:
            return False
        return claim_answers(self.question, node.claim.text,
                             self.scores.get(node.claim.claim_id), self.calibration
                             ) or self.read_as_answer(node.claim.claim_id)

    def gives_a_value(self, node: Node, evidence: EvidencePack) -> bool:
        """Whether the claim answers the question or, for a comparison, gives a side's
        value."""
        if self.question is None or not self.question.comparative:
            return self.answers(node)
        passage = _passage(node, evidence)
        return any(self._answers_side(index, node, passage, evidence)
                   for index in range(len(self.question.sides)))

    def read_as_answer(self, claim_id: str) -> bool:
        """Whether the reader's P of a claim answers by itself
        (:meth:`~veritype.answers.reader.RightCalibration.reads_as_answer`)."""
        return (self.right_calibration is not None and self.question is not None
                and claim_id in self.read
                and self.right_calibration.reads_as_answer(self.question, self.read[claim_id]))

    def answering(self, shown: list[Node], evidence: EvidencePack) -> tuple[set[str], list[str]]:
        """The ids of the shown claims that answer the question, and, for a comparison, the
        sides no shown claim gives a value for (as words); the sides each claim gives are
        kept for :meth:`side_labels`."""
        question = self.question
        assert question is not None
        if not question.comparative:
            ids = [node.claim.claim_id for node in shown]
            chosen = answering_claims(question, [node.claim.text for node in shown],
                                      [self.scores.get(claim_id) for claim_id in ids],
                                      self.calibration,
                                      [_about(node, evidence) for node in shown])
            chosen += [i for i, claim_id in enumerate(ids)
                       if i not in chosen and self.read_as_answer(claim_id)]
            chosen = [i for i in chosen if not self._of_a_sibling(shown[i], evidence)]
            if question.kind is AnswerKind.YES_NO and chosen:
                # A yes or no is read from every verified claim on the question, once one
                # states the asked property: "surgery was associated with decreases in
                # depression" bears on "Does bariatric surgery improve mental health?" though
                # it names neither.
                return set(ids), []
            return {ids[i] for i in chosen}, []
        answering: set[str] = set()
        missing: list[str] = []
        passages = {node.claim.claim_id: _passage(node, evidence) for node in shown}
        for index, side in enumerate(question.sides):
            found = {node.claim.claim_id for node in shown
                     if self._answers_side(index, node, passages[node.claim.claim_id],
                                           evidence)}
            for claim_id in found:
                self._sides_given.setdefault(claim_id, []).append(index)
            answering |= found
            if not found:
                missing.append(" ".join(sorted(side)))
        return (answering, missing) if len(missing) < len(question.sides) else (set(), missing)

    def side_labels(self, shown: Sequence[Node]) -> dict[str, str]:
        """For a comparison, the side each shown claim gives the value of (as
        :meth:`answering` read it), as the question writes it and ready to open the claim
        ("The Airport Express: "), where the claim gives one side's value without naming it
        ("A single ticket costs 140 kroner.")."""
        question = self.question
        if question is None or not question.comparative or len(question.side_texts) != len(
                question.sides):
            return {}
        labels: dict[str, str] = {}
        for node in shown:
            given = self._sides_given.get(node.claim.claim_id, [])
            if len(given) == 1 and not names_any(node.claim.text, [question.sides[given[0]]]):
                side = question.side_texts[given[0]]
                labels[node.claim.claim_id] = f"{side[:1].upper()}{side[1:]}: "
        return labels

    def _sentences(self, evidence: EvidencePack) -> list[str]:
        """The evidence's sentences, where siblings are read side by side; split once, as a
        selection reads one pack."""
        if self._evidence_sentences is None:
            self._evidence_sentences = [chunk.slice(span.start, span.end) for chunk in evidence
                                        for span in chunk.sentences()]
        return self._evidence_sentences

    def _of_a_sibling(self, node: Node, evidence: EvidencePack) -> bool:
        """Whether the claim gives the asked value of a sibling of what the question names
        (``veritype.answers.siblings``): "overdue books" for "an overdue film"."""
        assert self.question is not None
        sibling = sibling_in_place(self.question.text, self.question.focus, node.claim.text,
                                   _about(node, evidence), self._sentences(evidence))
        if sibling is not None:
            self.siblings[node.claim.claim_id] = (sibling, node.claim.text)
        return sibling is not None

    def _answers_side(self, index: int, node: Node, passage: tuple[str, str],
                      evidence: EvidencePack) -> bool:
        """Whether a claim gives the value of side ``index``: by the rules, read with the
        headings and titles of its passages (``passage``, from :func:`_passage`), or by the
        answer model when it names the side, reading the whole question or the side's own
        (:meth:`~veritype.answers.question.Question.side_question`); never when it gives a
        sibling's value instead of the asked one (a fare for adults, asked for a child:
        ``veritype.answers.siblings.sibling_instead``)."""
        question = self.question
        assert question is not None
        text, claim_id = node.claim.text, node.claim.claim_id
        about, title = passage
        side = question.sides[index]
        scores = [self.scores.get(claim_id)]
        if index < len(self.side_scores):
            scores.append(self.side_scores[index].get(claim_id))
        best = max((score for score in scores if score is not None), default=None)
        answers = question.side_answered(side, text, about, title) or (
            question.names_side(side, text, about, title)
            and model_answers(question, text, best, self.calibration))
        if not answers:
            return False
        sibling = sibling_instead(question.text, question.focus, text, f"{about} {title}",
                                  self._sentences(evidence))
        if sibling is not None:
            self.siblings[claim_id] = (sibling, text)
        return sibling is None

    def right(self, answer_ids: set[str]) -> float | None:
        """P(the shown answer is right): with a reader, its calibration read at the best
        reader P and the best P(answers) of the claims that answer and their coverage of the
        question (all of it, when no coverage was given); else the scorer's
        calibration read at the best P(answers) and the question's kind; None without a
        scorer."""
        if self.calibration is None:
            return None
        best = max((self.scores.get(claim_id, 0.0) for claim_id in answer_ids), default=0.0)
        if self.right_calibration is not None and self.read:
            read = max((self.read.get(claim_id, 0.0) for claim_id in answer_ids), default=0.0)
            covered = self.coverage(answer_ids) if self.coverage is not None else 1.0
            return self.right_calibration.right(read, best, covered)
        return self.calibration.right(best, self.question.kind if self.question else None)

    def closest_statement(self, nodes: Sequence[Node], evidence: EvidencePack) -> str:
        """What the evidence closest to an answer states and the question's words it does not
        speak of, as a sentence for an abstention ("The closest the evidence states is “The
        library has four study rooms”, which does not speak of: smallest."): a claim that gives
        a sibling's value says whose ("..., which speaks of books, not of film."); empty when
        no claim was scored or the closest speaks of every asked word."""
        if self.siblings:
            best = max(self.siblings, key=lambda claim_id: (self.read.get(claim_id, 0.0),
                                                            self.scores.get(claim_id, 0.0)))
            sibling, text = self.siblings[best]
            return (f" The closest the evidence states is \u201c{text}\u201d, which speaks of "
                    f"{sibling.named}, not of {sibling.asked}.")
        scored = [node for node in nodes
                  if node.claim.claim_id in self.read or node.claim.claim_id in self.scores]
        if self.question is None or not scored:
            return ""
        closest = max(scored, key=lambda node: (self.read.get(node.claim.claim_id, 0.0),
                                                self.scores.get(node.claim.claim_id, 0.0)))
        missing = self.question.unstated(closest.claim.text, _about(closest, evidence))
        if not missing:
            return ""
        return (f" The closest the evidence states is \u201c{closest.claim.text}\u201d, which "
                f"does not speak of: {', '.join(missing)}.")

    def label(self, right: float) -> Confidence:
        """The label of P(right) under the calibration that gave it."""
        if self.right_calibration is not None and self.read:
            return self.right_calibration.label(right)
        assert self.calibration is not None  # right() gave a probability
        return self.calibration.label(right)


def _about(node: Node, evidence: EvidencePack) -> str:
    """What a claim's passages are about: their documents' titles and the headings of the
    sections they stand in."""
    titles, headings = _titles_and_headings(node, evidence)
    return " ".join(dict.fromkeys(titles + headings))


def _passage(node: Node, evidence: EvidencePack) -> tuple[str, str]:
    """The headings of the sections a claim's cited spans stand in, and the titles of their
    documents with the sentences that open their paragraphs, each joined: a comparison's
    side is read from the two apart ("A single ticket costs 140 kroner." in a paragraph that
    opens "The quickest way into town is the Airport Express train.")."""
    titles, headings = _titles_and_headings(node, evidence)
    openings = [opening for span in node.evidence if evidence.resolves(span)
                for opening in [evidence.paragraph_opening(span)] if names_its_subject(opening)]
    return (" ".join(dict.fromkeys(headings)),
            " ".join(dict.fromkeys(part for part in titles + openings if part)))


def _titles_and_headings(node: Node, evidence: EvidencePack) -> tuple[list[str], list[str]]:
    spans = [span for span in node.evidence if evidence.resolves(span)]
    return ([evidence.title(span.doc_id) for span in spans],
            [evidence.heading(span) for span in spans])
