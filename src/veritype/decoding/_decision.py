"""The decision of truth-aware decoding, independent of any model runtime: at every step,
the most probable top-k token all guards accept.

At step t the decoder takes the top-k tokens of the model's distribution, asks every
enabled guard which of them are safe for the answer written so far, and picks the most
probable safe one (greedy). The safe mass π_t is the probability, under the full
distribution, of the safe top-k tokens. A step where a guard blocked something is recorded
as an intervention. Exact guards (arithmetic, knowledge base) know the right continuation
and steer into it whatever its probability. The decoder backs off when no top-k token is
safe, and whenever a guard that only knows what is wrong (``exact`` False: the context
monitor) blocks the end of a clause: taking the next best token instead would only write
around the refuted clause ("Elizabeth Bennet" + ", a young, ..."), however much safe mass
that token has. A block by such a guard gives way when an exact guard checks the clause the
token ends (it states the computed result, the known object): the monitor only infers a
contradiction, the exact guard knows. At the end of an answer (a token limit included) the
unfinished last clause is checked like a finished one.

A clause the token limit cuts is also checked as the start of the clause it would become,
since a guard that judges a clause only where it ends cannot tell from "Elizabeth Benn"
that it begins a refuted clause: the decoder goes on past the limit under the same guards
(``look_past_limit``) until that clause ends. When it backs off on the way, or the clause
does not end within ``LOOKAHEAD_TOKENS``, it backs off from the cut clause as from a
refuted one; otherwise the answer keeps what the limit let through. Either way the outcome
does not depend on where the limit cut the clause. A cut clause an exact guard already
checks needs no look past the limit: a block of its end would give way to that guard.

After decoding, ``check_clause`` asks every enabled guard whether it could check the
answer's key clause (its first): an answer no guard could check is not guarded, whatever
the guards let through.
"""

from __future__ import annotations

import codecs
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.decoding._base import END_OF_TEXT, Guard, clause_ended, clause_span
from veritype.decoding._steps import BlockedToken, Choice, ClauseCheck, Intervention
from veritype.errors import DecodingError

_MAX_DECISIONS = 200_000
# How far past the token limit the decoder looks for the end of the clause the limit cut:
# answers' clauses end well within it, and a clause that runs on longer is not checked.
LOOKAHEAD_TOKENS = 32


@dataclass(slots=True)
class _Cut:
    """The answer as the token limit left it, kept while the decoder looks past the limit.

    ``last``: the position, in the guarded text, of the cut clause's last character;
    ``ended``: whether the clause has ended since."""

    text: str
    last: int
    step: int
    masses: int
    interventions: int
    utf8: tuple[bytes, int]
    pending: bytes
    ended: bool = False


class TruthAwareDecoder:
    """Chooses tokens from top-k logits under guards, for any backend.

    ``token_bytes`` gives a token's bytes (byte-level vocabularies split characters
    across tokens, so text is assembled from bytes); ``is_end`` says whether a token ends
    generation (guards see it as ``END_OF_TEXT``). ``start`` begins an answer after
    ``context``: the text guards see before the answer (the prompt's last line, so that an
    answer the prompt began, "37 × 24 =", is guarded); ``choose`` picks the next token from
    the logits; ``accept`` appends the token actually decoded.
    """

    def __init__(
        self,
        guards: Sequence[Guard],
        *,
        token_bytes: Callable[[int], bytes],
        is_end: Callable[[int], bool],
        top_k: int = 40,
    ) -> None:
        if top_k < 1:
            raise DecodingError(f"top_k must be >= 1, got {top_k}")
        names = [guard.name for guard in guards]
        if len(set(names)) != len(names):
            raise DecodingError(f"guard names must be unique, got {names}")
        self.guards = list(guards)
        self._exact = {guard.name: guard.exact for guard in guards}
        self.top_k = top_k
        self._token_bytes = token_bytes
        self._is_end = is_end
        self._bytes: dict[int, bytes] = {}
        self._texts: dict[int, str] = {}
        self._ends: dict[int, bool] = {}
        self._decisions: dict[tuple[str, str, int], bool] = {}
        self.start("")

    def start(self, context: str) -> None:
        self.context = context
        self.text = ""
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = b""
        self.step = 0
        self.safe_masses: list[float] = []
        self.interventions: list[Intervention] = []
        self.halted = False
        self.halt_reason = ""
        # Where, in the answer, the clause a guard refuted begins (None: nothing refuted).
        self.refuted_from: int | None = None
        self._cut: _Cut | None = None

    @property
    def guarded_text(self) -> str:
        """What guards see: the context followed by the answer so far."""
        return self.context + self.text

    def token_text(self, token_id: int) -> str:
        """The text a token adds to the answer (the end marker for an ending token)."""
        if self._ending(token_id):
            return END_OF_TEXT
        raw = self._bytes.get(token_id)
        if raw is None:
            raw = self._bytes[token_id] = self._token_bytes(token_id)
        # A token holding part of a character shows as U+FFFD, which no constrained
        # continuation (a digit, a known object) accepts.
        if self._pending:
            return (self._pending + raw).decode("utf-8", "replace")
        text = self._texts.get(token_id)
        if text is None:
            text = self._texts[token_id] = raw.decode("utf-8", "replace")
        return text

    def _ending(self, token_id: int) -> bool:
        ending = self._ends.get(token_id)
        if ending is None:
            ending = self._ends[token_id] = self._is_end(token_id)
        return ending

    def choose(self, logits: npt.NDArray[np.floating[Any]]) -> Choice:
        """The most probable top-k token every enabled guard accepts, or a back-off."""
        scores = np.asarray(logits, dtype=np.float32)
        k = min(self.top_k, scores.shape[0])
        top = np.argpartition(scores, -k)[-k:]
        order = top[np.argsort(-scores[top], kind="stable")]
        peak = float(scores[order[0]])
        log_total = peak + math.log(float(np.exp(scores - peak).sum()))
        probabilities = np.exp(scores[order] - log_total)
        ids = [int(token) for token in order]
        texts = [self.token_text(token) for token in ids]
        blocker = self._blockers(ids, texts)
        safe = [name is None for name in blocker]
        safe_mass = min(1.0, float(probabilities[safe].sum()))
        self.safe_masses.append(safe_mass)
        chosen = next((index for index, ok in enumerate(safe) if ok), None)
        blocked = tuple(
            BlockedToken(ids[i], texts[i], float(probabilities[i]), name)
            for i, name in enumerate(blocker)
            if name is not None
        )
        guards = tuple(dict.fromkeys(token.guard for token in blocked))
        refuting = [name for name in guards if not self._exact[name]]
        if chosen is None or refuting:
            self.halted = True
            if refuting:
                self._refute(", ".join(refuting), "blocked the end of")
            else:
                self.halt_reason = (
                    f"no top-{self.top_k} token is safe at step {self.step} after "
                    f"{self.text!r} (safe mass {safe_mass:.3f}): {', '.join(guards)} blocked "
                    f"{', '.join(repr(token.text) for token in blocked[:5])}"
                )
            self.interventions.append(
                Intervention(self.step, "abstain", safe_mass, blocked, guards=guards)
            )
            return Choice(None, safe_mass)
        assert chosen is not None
        if blocked:
            self.interventions.append(
                Intervention(
                    self.step,
                    "steer" if chosen > 0 else "filter",
                    safe_mass,
                    blocked,
                    ids[chosen],
                    texts[chosen],
                    guards,
                )
            )
        return Choice(ids[chosen], safe_mass)

    def finish(self) -> None:
        """Check the answer's last clause as if it ended here (it may have stopped at a
        token limit before closing it); a guard that refutes it makes the decoder back off."""
        if self.halted:
            return
        refuting = [guard.name for guard in self.guards if guard.enabled and not guard.exact
                    and not guard.safe(self.guarded_text, [END_OF_TEXT])[0]]
        if refuting and not self._checked_exactly(self.guarded_text, END_OF_TEXT):
            self.halted = True
            self._refute(", ".join(refuting), "refuted the unfinished")
            self.interventions.append(
                Intervention(self.step, "abstain", 0.0, guards=tuple(refuting)))

    def look_past_limit(
        self,
        logits_after: Callable[[int], npt.NDArray[np.floating[Any]]],
        last_token: int,
        room: int,
    ) -> None:
        """At the token limit, check the clause the answer stops in as the start of the
        clause it would become (see the module doc): decode on from ``last_token`` (the
        answer's last token) under the same guards until that clause ends, the decoder backs
        off, ``LOOKAHEAD_TOKENS`` pass or ``room`` (what the model's context still holds)
        runs out. ``logits_after(token)`` feeds the model a token and returns the logits
        that follow it. The answer keeps what the limit let through, or the decoder backs
        off from its last clause as from a refuted one."""
        cut = self._begin_lookahead()
        if cut is None:
            return
        token = last_token
        for _ in range(min(LOOKAHEAD_TOKENS, room)):
            choice = self.choose(logits_after(token))
            if choice.token_id is None:
                break
            token = choice.token_id
            self.accept(token)
            if cut.ended:
                break
        self._end_lookahead(cut)

    def _begin_lookahead(self) -> _Cut | None:
        """The answer as cut, when it stops inside a clause that an enabled guard judges
        only where it ends; None when there is nothing such a guard has yet to judge, or
        when an exact guard checks the clause as it stands (a block of its end would give
        way to that guard, see ``_checked_exactly``)."""
        if self.halted or not any(guard.enabled and not guard.exact for guard in self.guards):
            return None
        text = self.guarded_text
        last = len(text.rstrip()) - 1
        if last < 0 or clause_ended(text, last) or self._checked_exactly(text, END_OF_TEXT):
            return None
        self._cut = _Cut(self.text, last, self.step, len(self.safe_masses),
                         len(self.interventions), self._utf8.getstate(), self._pending)
        return self._cut

    def _end_lookahead(self, cut: _Cut) -> None:
        """Return to the answer as the limit cut it. It stands when the clause it stops in
        ended with every guard's consent; otherwise the decoder backs off from that clause:
        a guard refused the way it goes on, or it could not be checked, not ending within
        the look past the limit."""
        self._cut = None
        # The look past the limit wrote nothing of the answer: its steps leave no trace but
        # the back-off they may lead to.
        back_off = self.interventions[-1:] if self.halted else []
        del self.safe_masses[cut.masses :]
        del self.interventions[cut.interventions :]
        self.text, self.step, self._pending = cut.text, cut.step, cut.pending
        self._utf8.setstate(cut.utf8)
        if not self.halted and cut.ended:
            return
        start, _ = clause_span(self.guarded_text, cut.last)
        clause = self.guarded_text[start:].strip()
        if self.halted:
            why = f"looking past the limit, {self.halt_reason}"
            self.interventions += back_off
        else:
            self.halted = True
            guards = tuple(guard.name for guard in self.guards
                           if guard.enabled and not guard.exact)
            why = (f"it does not end within the {LOOKAHEAD_TOKENS} tokens (fewer where the "
                   f"context is full) the decoder looks past the limit, so {', '.join(guards)} "
                   f"could not check it: the decoder backs off from it")
            self.interventions.append(Intervention(self.step, "abstain", 0.0, guards=guards))
        self.refuted_from = max(0, start - len(self.context))
        self.halt_reason = f"the token limit cut clause {clause!r} at step {self.step}; {why}"

    def _refute(self, guards: str, what: str) -> None:
        start, _ = clause_span(self.guarded_text, len(self.guarded_text))
        self.refuted_from = max(0, start - len(self.context))
        clause = self.guarded_text[start:].strip()
        self.halt_reason = (f"{guards} {what} clause {clause!r} at step {self.step}: the "
                            f"decoder backs off rather than write around it")

    def check_clause(self, answer: str) -> ClauseCheck:
        """Which enabled guards could check the key clause of ``answer`` (decoded after
        this decoder's context): the clause that holds the answer's first word."""
        if not answer.strip():
            return ClauseCheck("")
        text = self.context + answer
        first = len(self.context) + len(answer) - len(answer.lstrip())
        start, end = clause_span(text, first)
        return ClauseCheck(text[start:end], tuple(
            guard.coverage(text, start, end) for guard in self.guards if guard.enabled))

    def accept(self, token_id: int) -> None:
        """Append a decoded token to the answer."""
        self.step += 1
        if self._ending(token_id):
            if self._cut is not None:
                self._cut.ended = True
            return
        raw = self._bytes.get(token_id)
        if raw is None:
            raw = self._bytes[token_id] = self._token_bytes(token_id)
        # The incremental decoder keeps an unfinished multi-byte character for the next token.
        self.text += self._utf8.decode(raw)
        self._pending = self._utf8.getstate()[0]
        if self._cut is not None and clause_ended(self.guarded_text, self._cut.last):
            self._cut.ended = True

    def _blockers(self, ids: list[int], texts: list[str]) -> list[str | None]:
        """For each candidate (in probability order), the first enabled guard that refuses
        it, None when safe or not asked.

        Exact guards judge every candidate. The others (the context monitor, which runs a
        model) are asked lazily, most probable candidate first, until one passes: they act
        only where the decoder is about to emit a token, and a candidate they were not
        asked about counts as safe in π_t.
        """
        prefix = self.guarded_text
        blocker: list[str | None] = [None] * len(ids)
        if len(self._decisions) > _MAX_DECISIONS:
            self._decisions.clear()
        enabled = [guard for guard in self.guards if guard.enabled]
        for guard in enabled:
            if guard.exact:
                self._judge(guard, prefix, ids, texts, blocker,
                            [i for i, name in enumerate(blocker) if name is None])
        lazy = [guard for guard in enabled if not guard.exact]
        for index in range(len(ids)):
            if blocker[index] is not None:
                continue
            for guard in lazy:
                self._judge(guard, prefix, ids, texts, blocker, [index])
                if blocker[index] is not None:
                    break
            if blocker[index] is not None and self._checked_exactly(prefix, texts[index]):
                blocker[index] = None
            if blocker[index] is None:
                break
        return blocker

    def _checked_exactly(self, prefix: str, candidate: str) -> bool:
        """Whether an enabled exact guard checks the clause ``candidate`` ends after
        ``prefix``: then a block of that clause by a guard that only infers what is wrong
        gives way (a computed result stands against an NLI verdict over unrelated text)."""
        exact = [guard for guard in self.guards if guard.enabled and guard.exact]
        if not exact:
            return False
        text = prefix + candidate.replace(END_OF_TEXT, "")
        start, end = clause_span(text, len(prefix))
        return any(guard.coverage(text, start, end).checked for guard in exact)

    def _judge(
        self,
        guard: Guard,
        prefix: str,
        ids: list[int],
        texts: list[str],
        blocker: list[str | None],
        positions: list[int],
    ) -> None:
        """Ask ``guard`` about the candidates at ``positions`` (cached per prefix and token)
        and mark the ones it refuses."""
        unknown = [i for i in positions if (guard.name, prefix, ids[i]) not in self._decisions]
        if unknown:
            verdicts = guard.safe(prefix, [texts[i] for i in unknown])
            for i, verdict in zip(unknown, verdicts, strict=True):
                self._decisions[(guard.name, prefix, ids[i])] = verdict
        for i in positions:
            if not self._decisions[(guard.name, prefix, ids[i])]:
                blocker[i] = guard.name


def answer_context(prompt: str) -> str:
    """The text guards see before the answer: the prompt's last line."""
    return prompt.rsplit("\n", 1)[-1]
