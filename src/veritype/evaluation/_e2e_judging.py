"""The end-to-end judge: claims scored against the reference answers, citations the ALCE way."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from veritype.claims import Claim
from veritype.evaluation._e2e_answering import Answered
from veritype.evaluation._e2e_data import Question
from veritype.evaluation.metrics import Floats
from veritype.evaluation.runner import ProgressFactory, no_progress
from veritype.evidence import EvidencePack

JUDGE_MODELS = ("nli", "align")
JUDGE_THRESHOLD = 0.5
JUDGE_BATCH = 64
JUDGE = (
    "self-consistency (veritype's own models, not an independent judge): the shipped nli and "
    "align cross-encoders; entailment score = the lower of their two "
    "entailment probabilities, or 0 where the numeric view finds a number, date or name of "
    "the claim contradicted by the premise; a claim is supported when its score from "
    f"'question + a correct answer' is ≥ {JUDGE_THRESHOLD} and greater than its score from every "
    "'question + incorrect answer' (TruthfulQA: Correct / Incorrect Answers; HaluEval-QA: "
    "right_answer / hallucinated_answer)"
)
CITATION_JUDGE = (
    "the same entailment score; a claim is entailed by its citations when the joined quotes "
    f"give a score ≥ {JUDGE_THRESHOLD}; a citation is needed when it entails the claim "
    "alone or the claim is entailed with it but not without it (ALCE)"
)

# Scores (premise, hypothesis) pairs: the judge's entailment probability of each.
EntailmentScorer = Callable[[Sequence[tuple[str, str]]], Floats]


def cross_encoder_scorer(progress: ProgressFactory = no_progress) -> EntailmentScorer:
    """The judge: the lower entailment probability of the shipped nli and align models, or
    zero where the numeric view finds a number, date or name of the claim contradicted (the
    cross-encoders barely tell "2006" from "2008")."""
    from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir
    from veritype.views import Verdict, create_view

    judges = [CrossEncoder(shipped_model_dir(name)) for name in JUDGE_MODELS]
    numeric = create_view("numeric")

    def conflicts(premise: str, claim: str) -> bool:
        result = numeric.verify(Claim("c", claim), EvidencePack.from_texts([premise]))
        return result.verdict is Verdict.CONTRADICTED

    def scores(pairs: Sequence[tuple[str, str]]) -> Floats:
        distinct = list(dict.fromkeys(pairs))
        found: dict[tuple[str, str], float] = {}
        with progress("e2e: judging", len(distinct)) as advance:
            for begin in range(0, len(distinct), JUDGE_BATCH):
                block = distinct[begin:begin + JUDGE_BATCH]
                entailment = np.min([judge.predict(block)[:, 0] for judge in judges], axis=0)
                entailment[[conflicts(*pair) for pair in block]] = 0.0
                found.update(zip(block, (float(v) for v in entailment), strict=True))
                advance(len(block))
        return np.array([found[pair] for pair in pairs], dtype=np.float64)

    return scores


def _premise(question: Question, answer: str) -> str:
    return f"{question.text} {answer}"


def judge_claims(
    scorer: EntailmentScorer, claims: Sequence[tuple[Question, str]]
) -> list[bool]:
    """The judge's verdict (supported or not) on each (question, claim)."""
    pairs: list[tuple[str, str]] = []
    for question, claim in claims:
        pairs += [(_premise(question, a), claim) for a in (*question.correct, *question.incorrect)]
    values = iter(scorer(pairs).tolist())
    verdicts = []
    for question, _ in claims:
        correct = [next(values) for _ in question.correct]
        incorrect = [next(values) for _ in question.incorrect]
        best = max(correct, default=0.0)
        verdicts.append(best >= JUDGE_THRESHOLD and best > max(incorrect, default=0.0))
    return verdicts


def judge_citations(
    scorer: EntailmentScorer, claims: Sequence[tuple[str, Sequence[str]]]
) -> tuple[list[bool], list[list[bool]]]:
    """ALCE citation recall (the joined quotes entail the claim) and, per citation, whether
    it is needed (it entails the claim alone, or the claim is entailed with it and not
    without it)."""
    together_pairs = [(" ".join(quotes), claim) for claim, quotes in claims]
    alone_pairs = [(quote, claim) for claim, quotes in claims for quote in quotes]
    without_pairs = [
        (" ".join([*quotes[:i], *quotes[i + 1:]]), claim)
        for claim, quotes in claims if len(quotes) > 1 for i in range(len(quotes))
    ]
    entailed = scorer([*together_pairs, *alone_pairs, *without_pairs]) >= JUDGE_THRESHOLD
    together = entailed[: len(together_pairs)].tolist()
    alone = iter(entailed[len(together_pairs): len(together_pairs) + len(alone_pairs)].tolist())
    without = iter(entailed[len(together_pairs) + len(alone_pairs):].tolist())
    needed: list[list[bool]] = []
    for (_, quotes), supported in zip(claims, together, strict=True):
        flags = []
        for _ in quotes:
            helps_alone = next(alone)
            rest_supports = next(without) if len(quotes) > 1 else False
            flags.append(bool(helps_alone or (supported and not rest_supports)))
        needed.append(flags)
    return [bool(v) for v in together], needed


def judge_all(scorer: EntailmentScorer, answers: Sequence[Answered]) -> None:
    """Fill in every answer's judged claims and citations, in one batch of judge calls."""
    claims = [(a.question, c) for a in answers for c in a.draft_claims]
    claims += [(a.question, c) for a in answers for c, _ in a.rendered_claims]
    cited = [(claim, quotes) for a in answers for claim, quotes in a.rendered_claims]
    verdicts = iter(judge_claims(scorer, claims))
    for answer in answers:
        answer.draft_supported = [next(verdicts) for _ in answer.draft_claims]
    for answer in answers:
        answer.rendered_supported = [next(verdicts) for _ in answer.rendered_claims]
    grounded = iter((scorer([(q.gold_evidence, c) for q, c in claims]) >= JUDGE_THRESHOLD)
                    .tolist())
    for answer in answers:
        answer.draft_grounded = [bool(next(grounded)) for _ in answer.draft_claims]
    for answer in answers:
        answer.rendered_grounded = [bool(next(grounded)) for _ in answer.rendered_claims]
    recall, needed = judge_citations(scorer, cited)
    recall_iter, needed_iter = iter(recall), iter(needed)
    for answer in answers:
        answer.citation_recall = [next(recall_iter) for _ in answer.rendered_claims]
        answer.citations_needed = [
            flag for _ in answer.rendered_claims for flag in next(needed_iter)
        ]
