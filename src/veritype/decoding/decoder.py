"""Truth-aware decoding of a llama.cpp model: ``guarded_generate`` steps a
``llama_cpp.Llama`` under guards, choosing every token with a ``TruthAwareDecoder``.

The decoder backs off when no candidate is safe or a guard refutes a clause, a clause
the token limit cuts included (see ``veritype.decoding._decision``). Backing off asks an
optional ``retry`` callback for a better prompt (more evidence) once; otherwise the refuted
clause is cut from the answer, and an answer with nothing left abstains with the reason.
Every draft then says whether it is ``guarded`` (a guard checked its key clause),
``unverified`` (no guard could: the guards let it through without knowing) or
``abstained``; ``unchecked="abstain"`` abstains instead of returning an unverified answer.
``TruthAwareLogitsProcessor`` is the same decoder as a llama.cpp (``llama-cpp-python``)
logits processor, for ``create_completion``. Models load through ``load_llama``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from veritype._llama import evaluate_after_shared_prefix, is_end_of_generation, logits_view
from veritype.decoding._base import END_OF_TEXT, Guard
from veritype.decoding._decision import TruthAwareDecoder, answer_context
from veritype.decoding._steps import ClauseCheck, Intervention
from veritype.errors import DecodingError

if TYPE_CHECKING:
    import llama_cpp


GUARDED, UNVERIFIED, ABSTAINED = "guarded", "unverified", "abstained"
# What becomes of an answer whose key clause no guard could check.
Unchecked = Literal["unverified", "abstain"]
_UNCHECKED = ("unverified", "abstain")


@dataclass(slots=True)
class GuardedDraft:
    """An answer decoded under guards, with what the guards did on the way.

    ``status``: ``guarded`` when a guard checked the answer's key clause (``key_clause``
    says which and how), ``unverified`` when none could, ``abstained`` when the decoder
    backed off with nothing left to say or, with ``unchecked="abstain"``, when no guard
    could check the key clause. ``unverified_clause`` names the clause that could not be
    checked; ``dropped_clause`` a clause cut from the answer: one a guard refuted, or one the
    token limit cut that could not be checked.
    ``tokens_per_s`` is end to end (prompt evaluation and any retry included);
    ``decode_tokens_per_s`` counts only the steps after each attempt's first token, the
    per-token cost the guards add to.
    """

    text: str
    interventions: list[Intervention] = field(default_factory=list)
    mean_safe_mass: float = 1.0
    abstained: bool = False
    abstention_reason: str = ""
    tokens_per_s: float = 0.0
    tokens: int = 0
    retried: bool = False
    decode_tokens_per_s: float = 0.0
    status: str = UNVERIFIED
    key_clause: ClauseCheck = field(default_factory=lambda: ClauseCheck(""))
    unverified_clause: str = ""
    dropped_clause: str = ""

    @property
    def guarded(self) -> bool:
        return self.status == GUARDED

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "status": self.status,
            "key_clause": self.key_clause.to_dict(),
            "unverified_clause": self.unverified_clause,
            "dropped_clause": self.dropped_clause,
            "interventions": [step.to_dict() for step in self.interventions],
            "mean_safe_mass": self.mean_safe_mass,
            "abstained": self.abstained,
            "abstention_reason": self.abstention_reason,
            "tokens_per_s": self.tokens_per_s,
            "tokens": self.tokens,
            "retried": self.retried,
            "decode_tokens_per_s": self.decode_tokens_per_s,
        }


class TruthAwareLogitsProcessor:
    """A ``llama_cpp`` logits processor that leaves only the token the decoder chose.

    Use it with ``Llama.generate(..., temp=0.0, logits_processor=LogitsProcessorList([p]))``
    or ``create_completion``; it follows the tokens generated so far from ``input_ids`` (or
    from ``accept``), and ``should_stop`` is a stopping criterion that ends generation when
    the decoder backs off. The caller's token limit ends generation where it falls: only
    ``guarded_generate`` looks past it to check the clause it cuts.
    """

    def __init__(
        self,
        llama: llama_cpp.Llama,
        guards: Sequence[Guard],
        prompt: str,
        *,
        top_k: int = 40,
    ) -> None:
        self.end_token = llama.token_eos()
        self.decoder = llama_decoder(llama, guards, top_k=top_k)
        self.decoder.start(answer_context(prompt))
        self._prompt_tokens: int | None = None
        self._accepted = 0

    def accept(self, token_id: int) -> None:
        self._accepted += 1
        self.decoder.accept(token_id)

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        if self._prompt_tokens is None:
            self._prompt_tokens = len(input_ids)
        for token in input_ids[self._prompt_tokens + self._accepted :]:
            self.accept(int(token))
        choice = self.decoder.choose(scores)
        chosen = self.end_token if choice.token_id is None else choice.token_id
        masked = np.full(len(scores), -np.inf, dtype=np.single)
        masked[chosen] = 0.0
        return masked

    def should_stop(self, input_ids: npt.NDArray[np.intc], logits: npt.NDArray[np.single]) -> bool:
        return self.decoder.halted


def llama_decoder(
    llama: llama_cpp.Llama, guards: Sequence[Guard], *, top_k: int
) -> TruthAwareDecoder:
    """A decoder over ``llama``'s vocabulary."""
    return TruthAwareDecoder(
        guards,
        token_bytes=lambda token: llama.detokenize([token]),
        is_end=is_end_of_generation(llama),
        top_k=top_k,
    )


def guarded_generate(
    llama: llama_cpp.Llama,
    prompt: str,
    guards: Sequence[Guard],
    *,
    max_tokens: int,
    top_k: int = 40,
    retry: Callable[[], str] | None = None,
    stop: Sequence[str] = (),
    unchecked: Unchecked = "unverified",
) -> GuardedDraft:
    """Greedy decoding of ``prompt`` under ``guards`` (see the module doc).

    ``retry`` is called once when the decoder backs off and returns a new prompt
    (typically with more evidence); generation restarts from it. Without it, or when the
    retry backs off too, a refuted clause is cut from the answer, and an answer with
    nothing left (or with no safe token at all) abstains and says why. Generation ends at
    an end-of-generation token, after ``max_tokens`` tokens, or at the first ``stop``
    string (which is cut from the text). A clause the token limit cuts is checked as the
    start of the clause it would become, by decoding on past the limit until it ends
    (``TruthAwareDecoder.look_past_limit``): refused or not ending there, it is backed off
    from like a refuted clause. ``unchecked`` decides what an answer whose key clause no
    guard could check becomes: ``unverified`` or ``abstain``.
    """
    if max_tokens < 1:
        raise DecodingError(f"max_tokens must be >= 1, got {max_tokens}")
    if unchecked not in _UNCHECKED:
        raise DecodingError(f"unchecked must be one of {', '.join(_UNCHECKED)}, got {unchecked!r}")
    started = time.perf_counter()
    draft = GuardedDraft("")
    masses: list[float] = []
    decode_tokens, decode_seconds = 0, 0.0
    current = prompt
    # One decoder for every attempt: token texts and guard decisions carry over to a retry.
    decoder = llama_decoder(llama, guards, top_k=top_k)
    while True:
        decoder.start(answer_context(current))
        attempt = _run(llama, decoder, current, max_tokens, stop)
        draft.text = attempt.text
        draft.tokens += attempt.tokens
        decode_tokens += max(0, attempt.tokens - 1)
        decode_seconds += attempt.decode_seconds
        masses += decoder.safe_masses
        draft.interventions += decoder.interventions
        if not decoder.halted:
            break
        if retry is not None and not draft.retried:
            draft.retried = True
            draft.interventions.append(Intervention(decoder.step, "retry", masses[-1]))
            current = retry()
            continue
        if decoder.refuted_from is not None:
            draft.dropped_clause = draft.text[decoder.refuted_from :].strip()
            draft.text = draft.text[: decoder.refuted_from]
        if decoder.refuted_from is None or not draft.text.strip():
            draft.abstained = True
            draft.abstention_reason = decoder.halt_reason
        break
    _settle(draft, decoder, unchecked)
    elapsed = time.perf_counter() - started
    draft.mean_safe_mass = _mean(masses)
    draft.tokens_per_s = draft.tokens / elapsed if elapsed > 0 else 0.0
    draft.decode_tokens_per_s = decode_tokens / decode_seconds if decode_seconds > 0 else 0.0
    return draft


def _settle(draft: GuardedDraft, decoder: TruthAwareDecoder, unchecked: Unchecked) -> None:
    """Set the draft's status from whether a guard could check its key clause."""
    if draft.abstained:
        draft.status = ABSTAINED
        return
    if any(guard.enabled for guard in decoder.guards):
        draft.key_clause = decoder.check_clause(draft.text)
    if draft.key_clause.checked:
        draft.status = GUARDED
        return
    draft.unverified_clause = draft.key_clause.clause
    if unchecked == "abstain":
        draft.status = ABSTAINED
        draft.abstained = True
        reasons = "; ".join(f"{c.guard}: {c.reason}" for c in draft.key_clause.coverage)
        draft.abstention_reason = (f"no guard could check the clause "
                                   f"{draft.key_clause.clause!r}: {reasons or 'no guard enabled'}")
    else:
        draft.status = UNVERIFIED


def _run(
    llama: llama_cpp.Llama,
    decoder: TruthAwareDecoder,
    prompt: str,
    max_tokens: int,
    stop: Sequence[str],
) -> _Attempt:
    """Decode greedily under ``decoder``, stepping llama.cpp directly.

    Each step reads the last logits, lets the decoder choose, and evaluates only that
    token: llama-cpp-python's sampler chain would copy the whole vocabulary through
    Python twice per token around a logits processor. The prompt keeps whatever prefix the
    model's memory already holds, so a retry that adds evidence after the original
    prompt's start re-reads only what changed. The first token's time includes the
    prompt's.
    """
    tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
    room = llama.n_ctx() - len(tokens)
    if room < 1:
        raise DecodingError(
            f"the prompt has {len(tokens)} tokens but the context holds {llama.n_ctx()}"
        )
    evaluate_after_shared_prefix(llama, llama.input_ids[: llama.n_tokens].tolist(), tokens)
    attempt = _Attempt()
    first = time.perf_counter()
    guarded = any(guard.enabled for guard in decoder.guards)
    # Whether the answer ended of itself (an end token, a stop string, a back-off) rather
    # than at the token limit or the end of the context.
    ended = False
    token: int | None = None
    for _ in range(min(max_tokens, room)):
        if token is not None:
            llama.eval([token])
        logits = logits_view(llama)
        if guarded:
            choice = decoder.choose(logits)
            if choice.token_id is None:
                ended = True
                break
            token = choice.token_id
        else:
            token = int(np.argmax(logits))
            decoder.safe_masses.append(1.0)
        if attempt.tokens == 0:
            first = time.perf_counter()
        if decoder.token_text(token) == END_OF_TEXT:
            ended = True
            break
        attempt.tokens += 1
        decoder.accept(token)
        if _stop_position(decoder.text, stop) is not None:
            ended = True
            break
    if guarded:
        decoder.finish()
        if not ended and token is not None:
            decoder.look_past_limit(lambda last: _logits_after(llama, last), token,
                                    room - attempt.tokens)
    cut = _stop_position(decoder.text, stop)
    attempt.text = decoder.text if cut is None else decoder.text[:cut]
    attempt.decode_seconds = time.perf_counter() - first
    return attempt


def _logits_after(llama: llama_cpp.Llama, token: int) -> npt.NDArray[np.floating[Any]]:
    """Evaluate ``token`` and return the logits that follow it."""
    llama.eval([token])
    return logits_view(llama)


@dataclass(slots=True)
class _Attempt:
    text: str = ""
    tokens: int = 0
    decode_seconds: float = 0.0


def _stop_position(text: str, stop: Sequence[str]) -> int | None:
    positions = [text.find(marker) for marker in stop if marker and marker in text]
    return min(positions) if positions else None


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 1.0
