"""Verification views backed by an NLI cross-encoder: ``nli`` and ``align``.

Evidence longer than the model's window is scored as overlapping windows of two sentences
(``window_sizes``; on long training-side documents, windows of one to three sentences read
worse: ``benchmarks/long_evidence.py``). The view keeps the window with the best entailment
and the one with the strongest contradiction, and cites whichever decided the verdict. A
claim that a window states word for word, with nothing around the copy that qualifies it, is
entailed without the model. Only the windows closest to the claim are scored
(``max_windows``), ranked by the claim words they hold, each weighted by its rarity among
the evidence's windows (BM25's idf), so any sentence of a long document can be reached by
the words it shares with the claim: a window without the claim's words can neither entail
nor contradict it, and the model is the costly part. A contradiction counts only from the
windows that hold the most of the claim's words (see ``CrossEncoderView._decide``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from veritype._denials import denials, spelled_out
from veritype._text import (
    ANAPHORIC_LEAD,
    DEFINITE_DESCRIPTION,
    as_sentence,
    content_words,
    in_evidence_writing,
    surface_canonical,
    unhedged,
)
from veritype._verbatim import qualified_in, quoted_in, shortened_in
from veritype._voice import other_voice
from veritype.claims import Claim
from veritype.clauses import owner_left_to_context, resolved_sentences, sentence_referents
from veritype.deadline import checked
from veritype.errors import ConfigurationError
from veritype.evidence import EvidencePack, Span
from veritype.models.cross_encoder import CrossEncoder, model_directory
from veritype.verdicts import Verdict, ViewResult, check_batch, check_fraction
from veritype.views._base import BatchedView, once_per_pack

_ENTAILMENT, _CONTRADICTION = 0, 2
# The detail of a view that found no evidence window to read.
NO_EVIDENCE = "no evidence to read"
# The detail of a view that found the claim only inside words that qualify it.
QUALIFIED = "the evidence states the claim only inside words that qualify it"
DENIED = "the evidence states the claim's denial"


@dataclass(frozen=True, slots=True)
class EvidenceWindow:
    """Consecutive sentences of evidence: ``written`` as they stand, ``text`` as the model
    reads them (a leading pronoun replaced by the subject it stands for in the chunk), and
    ``local``: each leading pronoun read as the subject of the sentence before it ("The
    bridge opened in 1883. Its main span is 486 metres." states "The bridge's main span is
    486 metres", where ``text`` reads "The Brooklyn Bridge's main span ..."). ``sentences``:
    each sentence's span and its text as ``text`` reads it, to tell which one decided."""

    span: Span
    text: str
    words: frozenset[str]
    written: str
    local: str
    sentences: tuple[tuple[Span, str], ...] = ()




def evidence_windows(pack: EvidencePack, sizes: Sequence[int]) -> list[EvidenceWindow]:
    """Overlapping windows of ``sizes`` consecutive sentences within each chunk (stride one
    sentence), each distinct span once.

    A window whose first sentence opens with a pronoun or a definite description also takes
    the sentence before it: "It was completed in 1889." or "The bridge opened in 1937." alone
    cannot say what "it" or "the bridge" is, and a model reads the missing name as a different
    one."""
    windows: list[EvidenceWindow] = []
    seen: set[Span] = set()
    # A long pack's windows take seconds to resolve: a cancel stops them between chunks.
    for chunk in checked(pack, "the next evidence chunk"):
        sentences = chunk.sentences()
        referents = sentence_referents(chunk, sentences)
        # Each sentence as the model reads it, resolved once for every window holding it.
        each_read = [(sentence, resolved_sentences(chunk, [sentence], [referent]))
                     for sentence, referent in zip(sentences, referents, strict=True)]
        for size in sorted(set(sizes)):
            count = max(1, len(sentences) - size + 1)
            for first in range(count):
                start, end = first, min(first + size, len(sentences))
                if start == end:
                    continue
                opening = sentences[start]
                if start > 0 and _leans_back(chunk.slice(opening.start, opening.end)):
                    start -= 1
                span = Span(chunk.doc_id, chunk.chunk_id, sentences[start].start,
                            sentences[end - 1].end)
                if span in seen:
                    continue
                seen.add(span)
                group = sentences[start:end]
                text = resolved_sentences(chunk, group, referents[start:end])
                alone = sentence_referents(chunk, group, carried=False)
                local = resolved_sentences(chunk, group, alone)
                windows.append(EvidenceWindow(span, text, frozenset(content_words(text)),
                                              chunk.slice(span.start, span.end), local,
                                              tuple(each_read[start:end])))
    return windows


class WindowedView(BatchedView):
    """A view that reads, for each claim, the ``max_windows`` evidence windows of
    ``window_sizes`` sentences closest to it (all of them when ``max_windows`` is None)."""

    def __init__(
        self, window_sizes: Sequence[int], max_windows: int | None, cost: float
    ) -> None:
        if not window_sizes or any(size < 1 for size in window_sizes):
            raise ConfigurationError(
                f"window_sizes must be one or more sizes >= 1, got {window_sizes}"
            )
        if max_windows is not None and max_windows < 1:
            raise ConfigurationError(f"max_windows must be >= 1 or None, got {max_windows}")
        self.window_sizes = tuple(window_sizes)
        self.max_windows = max_windows
        self.cost = cost

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        windows = once_per_pack(evidence, lambda pack: evidence_windows(pack, self.window_sizes))
        return self._read(claims, windows)

    def _read(
        self, claims: Sequence[Claim], windows: Sequence[list[EvidenceWindow]]
    ) -> list[ViewResult]:
        """The results for ``claims``, given all the windows of each one's evidence."""
        raise NotImplementedError

    def _closest(self, claim: Claim, windows: list[EvidenceWindow]) -> list[EvidenceWindow]:
        return closest_windows(claim, windows, self.max_windows)


def closest_windows(
    claim: Claim, windows: list[EvidenceWindow], max_windows: int | None
) -> list[EvidenceWindow]:
    """The ``max_windows`` windows holding the most of the claim's words, each word
    weighted by its idf over the windows; ties go to the shorter, then the earlier
    window. Returned in evidence order."""
    if max_windows is None or len(windows) <= max_windows:
        return windows
    overlap = claim_overlap(claim, windows)
    ranked = sorted(range(len(windows)),
                    key=lambda i: (-overlap[i], len(windows[i].text), i))
    return [windows[i] for i in sorted(ranked[:max_windows])]


def claim_overlap(claim: Claim, windows: Sequence[EvidenceWindow]) -> list[float]:
    """How much of the claim each window holds: the idf over ``windows`` of every claim
    word the window holds, summed."""
    words = frozenset(content_words(claim.text))
    frequency = Counter(word for window in windows for word in window.words & words)
    weight = {word: math.log(1.0 + (len(windows) - n + 0.5) / (n + 0.5))
              for word, n in frequency.items()}
    # Summed exactly: a set's order changes with the process's hash seed, and two windows
    # that hold the same words must tie exactly, not by the last bit of a sum in that order.
    return [math.fsum(weight[w] for w in words & window.words) for window in windows]


def _leans_back(sentence: str) -> bool:
    return bool(ANAPHORIC_LEAD.match(sentence) or DEFINITE_DESCRIPTION.match(sentence))


def _quoting(claim: Claim, windows: list[EvidenceWindow]) -> tuple[EvidenceWindow, str] | None:
    """The window that states the claim in its own words, and how: word for word (see
    :func:`veritype._text.quoted_in`), with words left out that change nothing it asserts
    (:func:`veritype._text.shortened_in`), either of them once the claim's hedges are set
    aside ("The Pixelon 8 Pro reportedly costs 799 euros", :func:`veritype._text.unhedged`),
    or only inside words that qualify it (:data:`QUALIFIED`; see
    :func:`veritype._text.qualified_in`). A copy merely extended by a qualifier is left to
    the model.

    A stated claim is entailed without asking the model, since models trained on perturbed
    copies of sentences can doubt even an exact copy (and contradicted shortened copies of
    their sentences). A qualified copy ("Very few (if any) pop records are illegal in the
    UK" for "Pop records are illegal in the UK") is not read by the model either: the models
    entail such copies (nli 0.91–0.97 on three of TruthfulQA's four known cases), so the
    view leaves it unknown."""
    if len(claim.text.split()) < 3:
        return None
    # As written or as read: "The tower is 330 metres tall." copies the evidence's words,
    # "The Eiffel Tower is 330 metres tall." the window it is read as.
    # Spacing, case, digit grouping, British spelling and a leading "The" aside: a copy
    # restated so is still a copy ("The Hoover Dam is on the Colorado River.").
    restatements = _restatements(claim.text)
    for states, how in ((quoted_in, "verbatim"), (shortened_in, "with words left out")):
        for restated in restatements:
            text = restated.text
            canonical = surface_canonical(text)
            found = next((window for window in windows
                          if restated.owner is None or _owned_there(restated, window)
                          if any(states(text, reading) or states(canonical, surface_canonical(
                              reading)) for reading in _readings(window))),
                         None)
            if found is not None:
                return found, f"the evidence states the claim {how}{restated.how}"
    denied = _denying(claim, windows)
    if denied is not None:
        return denied, DENIED
    qualified = next((window for window in windows
                      if any(qualified_in(claim.text, reading) for reading in _readings(window))),
                     None)
    return None if qualified is None else (qualified, QUALIFIED)


@dataclass(frozen=True, slots=True)
class _Restated:
    """A claim as its evidence may word it: ``how`` it was restated (for the reason), and the
    ``owner`` its subject leaves to the passage, which the window must name."""

    text: str
    how: str = ""
    owner: str | None = None
    head: str = ""


def _restatements(claim: str) -> list[_Restated]:
    """``claim`` as written, without its hedge ("The Pixelon 8 Pro reportedly costs 799
    euros"), in the other voice ("Odile Marchetti wrote the novel" for "The novel was written
    by Odile Marchetti", ``veritype._voice``), and with the owner its subject names left to
    the passage ("The cover of Salt Between Us was designed by ..." for "The cover ... was
    designed by ...", ``veritype.clauses.owner_left_to_context``)."""
    plain = unhedged(claim)
    voiced = [_Restated(text, hedge) for text, hedge in
              dict.fromkeys(((claim, ""), (plain, " without its hedge" if plain != claim
                                                  else "")))]
    voiced += [_Restated(turned, " in the other voice" + restated.how)
               for restated in list(voiced) for turned in other_voice(restated.text)]
    owned: list[_Restated] = []
    for restated in voiced:
        left = owner_left_to_context(restated.text)
        if left is not None:
            bare, possessive, owner, head = left
            owned += [_Restated(possessive, restated.how),
                      _Restated(bare, restated.how, owner=owner, head=head)]
    return list(dict.fromkeys(voiced + owned))


def _owned_there(restated: _Restated, window: EvidenceWindow) -> bool:
    """Whether ``window`` speaks of the owner a restated claim left to it: it names the
    owner, and gives the thing described to no other ("The cover of Iron Tide")."""
    assert restated.owner is not None
    text = window.text
    other = re.search(rf"\b{re.escape(restated.head)}\s+of\s+(?!{re.escape(restated.owner)})"
                      rf"(?:the\s+)?[A-Z]", text, re.IGNORECASE)
    return other is None and re.search(rf"\b{re.escape(restated.owner)}\b", text) is not None


def _denying(claim: Claim, windows: list[EvidenceWindow]) -> EvidenceWindow | None:
    """The window that states a plain denial of the claim in its own words ("The Kestrel 3
    has no obstacle sensors." for "The Kestrel 3 has obstacle sensors."): NLI models entail
    a sentence that differs from the claim only in its negation. Its span is narrowed to the
    sentence that states the denial, when one alone does, so the reason quotes that one."""
    said = denials(claim.text)
    if not said:
        return None

    def denies(text: str) -> bool:
        plain = spelled_out(text)
        return any(quoted_in(denial, plain) or shortened_in(denial, plain) for denial in said)

    for window in windows:
        if any(denies(reading) for reading in _readings(window)):
            alone = [span for span, text in window.sentences if denies(text)]
            return replace(window, span=alone[0]) if len(alone) == 1 else window
    return None


def _readings(window: EvidenceWindow) -> tuple[str, ...]:
    return tuple(dict.fromkeys((window.written, window.local, window.text)))


class CrossEncoderView(WindowedView):
    """A verification view that asks an NLI cross-encoder whether evidence entails a claim.

    Its span, when it says entailed, is the window it found to entail the claim, so answers
    cite it in preference to the model-free views' spans (``cites_entailment``)."""

    cites_entailment = True

    def __init__(
        self,
        name: str,
        encoder: CrossEncoder,
        *,
        entail_threshold: float = 0.5,
        contradiction_threshold: float = 0.6,
        window_sizes: Sequence[int] = (2,),
        max_windows: int | None = 6,
        cost: float = 5.0,
        strong: bool = True,
    ) -> None:
        check_fraction("entail_threshold", entail_threshold)
        check_fraction("contradiction_threshold", contradiction_threshold)
        super().__init__(window_sizes, max_windows, cost)
        self.name = name
        self.encoder = encoder
        self.entail_threshold = entail_threshold
        self.contradiction_threshold = contradiction_threshold
        self.strong = strong

    def _read(
        self, claims: Sequence[Claim], all_windows: Sequence[list[EvidenceWindow]]
    ) -> list[ViewResult]:
        quoted = [_quoting(claim, windows) for claim, windows in checked(
            zip(claims, all_windows, strict=True), "the next claim")]
        windows = [
            [] if quote is not None else self._closest(claim, pack_windows)
            for claim, pack_windows, quote in zip(claims, all_windows, quoted, strict=True)
        ]
        pairs: list[tuple[str, str]] = []
        offsets: list[tuple[int, int]] = []
        for claim, claim_windows in zip(claims, windows, strict=True):
            offsets.append((len(pairs), len(pairs) + len(claim_windows)))
            sentence = as_sentence(claim.text)
            pairs.extend((window.text, in_evidence_writing(sentence, window.text))
                         for window in claim_windows)
        scores = self.encoder.predict(pairs) if pairs else np.zeros((0, 3), dtype=np.float32)
        results = [
            self._decide(claim_windows, scores[start:end], claim_overlap(claim, claim_windows))
            if quote is None
            else ViewResult(self.name, Verdict.ENTAILED, 1.0, spans=(quote[0].span,),
                            detail=quote[1]) if quote[1] not in (QUALIFIED, DENIED)
            else ViewResult(self.name, Verdict.CONTRADICTED, 0.0, 1.0, (quote[0].span,), DENIED)
            if quote[1] == DENIED
            # Not stated, nor denied: an even chance either way, as a model unsure of both.
            else ViewResult(self.name, Verdict.UNKNOWN, 0.5, 0.5, (quote[0].span,), QUALIFIED)
            for claim, claim_windows, (start, end), quote in zip(claims, windows, offsets, quoted,
                                                                 strict=True)
        ]
        return self._deciding_sentences(claims, windows, results)

    def _deciding_sentences(self, claims: Sequence[Claim], windows: list[list[EvidenceWindow]],
                            results: list[ViewResult]) -> list[ViewResult]:
        """Each contradiction cited to the sentence of its window that decided, so that a
        reason quotes it, not the window's start: of the sentences that hold the most of the
        claim's words, the one the model finds most contradicting. Only the cited span
        changes: verdicts and scores are the window's."""
        narrowing: list[tuple[int, list[Span]]] = []
        pairs: list[tuple[str, str]] = []
        for index, (claim, claim_windows, result) in enumerate(
                zip(claims, windows, results, strict=True)):
            if result.verdict is not Verdict.CONTRADICTED:
                continue
            window = next((w for w in claim_windows if (w.span,) == result.spans), None)
            if window is None or len(window.sentences) < 2:
                continue
            words = frozenset(content_words(claim.text))
            held = [len(words & frozenset(content_words(text))) for _, text in window.sentences]
            most = max(held)
            closest = [pair for pair, count in zip(window.sentences, held, strict=True)
                       if count == most]
            if len(closest) == 1:
                results[index] = replace(result, spans=(closest[0][0],))
                continue
            sentence = as_sentence(claim.text)
            narrowing.append((index, [span for span, _ in closest]))
            pairs.extend((text, in_evidence_writing(sentence, text)) for _, text in closest)
        if not pairs:
            return results
        contradiction = self.encoder.predict(pairs)[:, _CONTRADICTION]
        at = 0
        for index, spans in narrowing:
            decided = spans[int(np.argmax(contradiction[at:at + len(spans)]))]
            results[index] = replace(results[index], spans=(decided,))
            at += len(spans)
        return results

    def _decide(self, windows: list[EvidenceWindow], scores: np.ndarray,
                overlap: Sequence[float]) -> ViewResult:
        """Entailment from the window that entails best; contradiction only from the windows
        that hold the most of the claim: an NLI model reads a window about another fact of
        the same topic as a contradiction (the shipped ``nli`` gave true copies and
        paraphrases a contradiction of 0.7 or more from such windows), while the window
        that states the claim's own fact is the one that can refute it."""
        if not windows:
            return ViewResult.unknown(self.name, NO_EVIDENCE)
        best = int(np.argmax(scores[:, _ENTAILMENT]))
        closest = max(overlap)
        worst = max((i for i in range(len(windows)) if overlap[i] >= closest),
                    key=lambda i: scores[i, _CONTRADICTION])
        entailment = float(scores[best, _ENTAILMENT])
        contradiction = float(scores[worst, _CONTRADICTION])
        if contradiction >= self.contradiction_threshold and contradiction > entailment:
            verdict, cited, detail = Verdict.CONTRADICTED, worst, "contradiction"
        elif entailment >= self.entail_threshold:
            verdict, cited, detail = Verdict.ENTAILED, best, "entailment"
        else:
            verdict, cited, detail = Verdict.UNKNOWN, best, "best entailment"
        score = contradiction if verdict is Verdict.CONTRADICTED else entailment
        return ViewResult(self.name, verdict, entailment, contradiction,
                          spans=(windows[cited].span,), detail=f"{detail} {score:.2f}")


def nli_view(*, model: str | None = None, threads: int = 2, **settings: Any) -> CrossEncoderView:
    """The ``nli`` view on the shipped NLI model (trained on the NLI pool), or on ``model``."""
    encoder = CrossEncoder(model_directory(model or "nli"), threads=threads)
    return CrossEncoderView("nli", encoder, **settings)


def align_view(*, model: str | None = None, threads: int = 2, **settings: Any) -> CrossEncoderView:
    """The ``align`` view on the shipped alignment model (claim-vs-evidence data), or ``model``."""
    encoder = CrossEncoder(model_directory(model or "align"), threads=threads)
    return CrossEncoderView("align", encoder, **settings)
