"""The guard contract of truth-aware decoding: a Protocol, a registry by name, shared text rules.

A guard looks at the answer decoded so far (``prefix``) and at candidate continuations
(the text of each candidate token) and says which candidates are safe. The decoder keeps
only the candidates every enabled guard accepts: S_t is the intersection of the guards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from veritype._registry import Registry
from veritype.errors import DecodingError

# The candidate that ends generation (end-of-sequence) is passed to guards as this text, so
# that a guard can refuse to let an answer stop half-way through a number or an object.
END_OF_TEXT = "\x03"


# Where one clause of an answer ends and the next begins: a sentence or line end, ";", or a
# comma followed by a joining word. A "." inside a number ("3.5") ends nothing.
CLAUSE_BREAK = re.compile(r"[;!?\n]|\.(?!\d)|,\s+(?:and|but|while|whereas|yet)\b")


@dataclass(frozen=True, slots=True)
class Coverage:
    """Whether a guard could check one clause: ``checked`` when the clause states
    something the guard knows to be so (a knowledge-base object after its subject and
    relation, a computed result, a sentence the evidence entails), with the reason either
    way."""

    guard: str
    checked: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"guard": self.guard, "checked": self.checked, "reason": self.reason}


@runtime_checkable
class Guard(Protocol):
    """Decides which candidate continuations of a decoded prefix are safe.

    ``enabled`` switches the guard off for ablation without removing it from a
    configuration; the decoder skips disabled guards. ``exact`` says that the tokens the
    guard accepts are the truth itself (a computed result, an object the knowledge base
    holds), so steering the model into them is right however little probability the model
    gave them; a block by a guard that only knows what is wrong (the context monitor)
    makes the decoder back off. ``coverage`` says whether the guard could check a clause at
    all, so that an answer no guard could check is not presented as guarded.
    """

    name: str
    enabled: bool
    exact: bool

    def safe(self, prefix: str, candidates: Sequence[str]) -> list[bool]: ...

    def safe_batch(
        self, prefixes: Sequence[str], candidates: Sequence[Sequence[str]]
    ) -> list[list[bool]]: ...

    def coverage(self, text: str, start: int, end: int) -> Coverage:
        """Whether the guard could check the clause ``text[start:end]`` (the text before
        it is what the answer said earlier)."""
        ...


# Guards whose module loads a model (the context monitor's NLI cross-encoder on
# onnxruntime): imported only when first created.
_REGISTRY = Registry[Guard]("guard", lazy={"context": "veritype.decoding.context:context_guard"})
register_guard = _REGISTRY.register
available_guards = _REGISTRY.names
create_guard = _REGISTRY.create


def safe_one_by_one(guard: Guard, prefixes: Sequence[str], candidates: Sequence[Sequence[str]]
                    ) -> list[list[bool]]:
    """``guard.safe`` for each prefix in turn: the batched twin of a guard with nothing to
    share between prefixes."""
    check_batch(prefixes, candidates)
    return [guard.safe(p, c) for p, c in zip(prefixes, candidates, strict=True)]


@dataclass(frozen=True, slots=True)
class LiteralConstraint:
    """What the answer has written since a constraint began and the texts it may become."""

    written: str
    answers: tuple[str, ...]


class PrefixGuard:
    """``safe``/``safe_batch``/``coverage`` for guards that derive from a prefix the texts
    that may follow it (a ``LiteralConstraint``); subclasses give ``_constraint`` and say in
    ``_where`` when they constrain.

    ``_constraint`` returns None when the prefix constrains nothing (the common case), and
    the last prefixes' constraints are kept, since the decoder asks about one prefix with
    many candidates and the next prefix extends it. ``_where`` names, for coverage reasons,
    the point at which the guard constrains the text that follows.
    """

    name: str = ""
    enabled: bool = True
    exact: bool = True
    _where = "the guard constrains what follows"
    _cache_size = 256

    def __init__(self) -> None:
        self._constraints: dict[str, LiteralConstraint | None] = {}

    def _constraint(self, prefix: str) -> LiteralConstraint | None:
        raise NotImplementedError

    def constraint_for(self, prefix: str) -> LiteralConstraint | None:
        if prefix in self._constraints:
            return self._constraints[prefix]
        constraint = self._constraint(prefix)
        if len(self._constraints) >= self._cache_size:
            self._constraints.pop(next(iter(self._constraints)))
        self._constraints[prefix] = constraint
        return constraint

    def safe(self, prefix: str, candidates: Sequence[str]) -> list[bool]:
        constraint = self.constraint_for(prefix)
        if constraint is None:
            return [True] * len(candidates)
        return [continues_literal(constraint.written, candidate, constraint.answers)
                for candidate in candidates]

    def safe_batch(
        self, prefixes: Sequence[str], candidates: Sequence[Sequence[str]]
    ) -> list[list[bool]]:
        return safe_one_by_one(self, prefixes, candidates)

    def coverage(self, text: str, start: int, end: int) -> Coverage:
        """Checked when, at some point of the clause, the guard constrained what follows
        and the clause goes on to state one of the allowed texts in full."""
        constrained = False
        for position in range(start, end + 1):
            constraint = self.constraint_for(text[:position])
            if constraint is None or constraint.written.strip():
                continue
            constrained = True
            if states_literal(text[position:end], constraint.answers):
                stated = text[position:end].strip()
                return Coverage(self.name, True, f"states {stated!r} where {self._where}")
        if constrained:
            return Coverage(self.name, False, f"stops unfinished where {self._where}")
        return Coverage(self.name, False, f"no point where {self._where}")


def check_batch(prefixes: Sequence[str], candidates: Sequence[Sequence[str]]) -> None:
    """Raise if a batch does not pair each prefix with its candidates."""
    if len(prefixes) != len(candidates):
        raise DecodingError(
            f"safe_batch needs one candidate list per prefix: {len(prefixes)} prefixes, "
            f"{len(candidates)} candidate lists"
        )


_MAX_LEAD = 2


def continues_literal(written: str, candidate: str, answers: Sequence[str]) -> bool:
    """Whether ``written + candidate`` can still become one of ``answers``, or has just
    finished one at a word boundary.

    ``written`` is what the answer already holds after the point the constraint starts;
    up to two blanks (no line break) may come first, and matching is case-insensitive.
    Finishing an answer means the text goes on with something that cannot extend it: not
    a letter or digit, and not a decimal separator followed by a digit.
    """
    ended = candidate.endswith(END_OF_TEXT)
    raw = written + candidate.replace(END_OF_TEXT, "")
    text = raw.lstrip().lower()
    # A space before the answer is fine; a line break or a run of blanks only delays it.
    lead = raw[: len(raw) - len(text)]
    if len(lead) > _MAX_LEAD or "\n" in lead:
        return False
    for answer in answers:
        if answer.startswith(text):
            if not ended or text == answer:
                return True
            continue
        if text.startswith(answer) and _finishes(text[len(answer) :], answer):
            return True
    return False


def literal_open(written: str, answers: Sequence[str]) -> bool:
    """Whether ``written`` is still on its way to one of ``answers``: it can grow into one,
    or has just written one and a "." that may yet turn out to be a decimal point. A guard
    whose constraint is no longer open stops constraining."""
    text = written.lstrip().lower()
    for answer in answers:
        if answer.startswith(text):
            return True
        if text.startswith(answer) and text[len(answer) :] == ".":
            return answer[-1].isdigit()
    return False


def _finishes(rest: str, answer: str) -> bool:
    first = rest[0]
    if first.isalnum() and (answer[-1].isalnum() or first.isdigit()):
        return False
    if first in ".," and answer[-1].isdigit():
        # "88" + ".5" or "1" + ",234" would extend a number, not end it; a bare "," after
        # a number usually starts another thousands group, a bare "." usually a full stop.
        return rest != "," and not (len(rest) > 1 and rest[1].isdigit())
    return True


def clause_span(text: str, position: int) -> tuple[int, int]:
    """The clause of ``text`` that holds ``position``: from the break before it to the next
    break (or the end), without surrounding blanks."""
    start, end = 0, len(text)
    for match in CLAUSE_BREAK.finditer(text):
        if match.end() <= position:
            start = match.end()
        elif match.start() >= position:
            end = match.start()
            break
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def clause_ended(text: str, position: int) -> bool:
    """Whether the clause of ``text`` that holds ``position`` has ended: a clause break
    follows it, other than a "." right after a digit at the very end of ``text``, which may
    yet become a decimal point ("3." + "5")."""
    for match in CLAUSE_BREAK.finditer(text):
        if match.end() <= position:
            continue
        return not (match.group(0) == "." and match.end() == len(text)
                    and text[match.start() - 1 : match.start()].isdigit())
    return False


def states_literal(rest: str, answers: Sequence[str]) -> bool:
    """Whether ``rest`` begins (after at most two blanks) with one of ``answers``, complete:
    not followed by a letter or digit that would make it another word or number."""
    text = rest.lstrip().lower()
    if len(rest) - len(text) > _MAX_LEAD:
        return False
    return any(text.startswith(answer) and (len(text) == len(answer) or _finishes(
        text[len(answer):], answer)) for answer in answers)
