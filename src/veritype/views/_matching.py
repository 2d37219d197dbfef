"""When a claim's value and an evidence value agree, and when they conflict: canonical forms
compared by kind (dates by their known parts, names by runs of words)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from veritype.views._values import Value, ValueKind, extract_values, text_words


def contains_run(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` as a run of consecutive words."""
    size = len(needle)
    return size > 0 and any(
        haystack[i : i + size] == needle for i in range(len(haystack) - size + 1)
    )


def _date_matches(claim: str, evidence: str) -> bool:
    if claim.startswith("--"):  # no year: any date on that month and day
        return len(evidence) == len("1889-01-01") and evidence.endswith(claim[1:])
    if evidence.startswith("--"):  # "began on August 2" states "2 August 1777" but its year
        return len(claim) == len("1889-01-01") and claim.endswith(evidence[1:])
    # ISO forms nest, so a year or month matches every finer date inside it.
    return evidence.startswith(claim)


def _date_parts(iso: str) -> tuple[str | None, str | None, str | None]:
    if iso.startswith("--"):
        return None, iso[2:4], iso[5:7]
    parts: list[str | None] = [*iso.split("-"), None, None]
    return parts[0], parts[1], parts[2]


def matches(claim: Value, evidence: Value) -> bool:
    """Whether the evidence value states the claim value.

    Numbers must be equal after normalisation, within 1% when the claim hedges, and lengths
    of time in units of fixed ratio equal ("12 months" and "one year", "14 days" and "two
    weeks"); a claim
    that states a limit ("more than 70%") is met by any value within it ("80 %"). A year
    or month matches any finer date inside it; a bare year also matches the same plain
    number ("1665 steps" vs "1,665 steps"). A name matches a name containing its words
    in order ("Eiffel" matches "Gustave Eiffel").
    """
    if claim.kind is ValueKind.ENTITY or evidence.kind is ValueKind.ENTITY:
        return claim.kind is evidence.kind and contains_run(evidence.words, claim.words)
    if claim.kind is ValueKind.DATE and evidence.kind is ValueKind.DATE:
        return _date_matches(str(claim.value), str(evidence.value))
    if ValueKind.DATE in (claim.kind, evidence.kind):
        date, other = (claim, evidence) if claim.kind is ValueKind.DATE else (evidence, claim)
        return (date.granularity == "year" and other.kind is ValueKind.NUMBER
                and float(date.value) == other.value)
    if claim.kind is not evidence.kind:
        return False
    if _durations(claim, evidence):
        return (not claim.bound and not evidence.bound and _exactly_convertible(claim, evidence)
                and math.isclose(_in_days(claim), _in_days(evidence), rel_tol=1e-9))
    if not _same_measure(claim, evidence):
        return False
    tolerance = 0.01 if claim.hedged else 1e-9
    return (math.isclose(float(claim.value), float(evidence.value), rel_tol=tolerance)
            or _within(float(evidence.value), claim))


def _within(amount: float, limit: Value) -> bool:
    """Whether ``amount`` lies within the limit ``limit`` states, if it states one."""
    if limit.bound == "lower":
        return amount >= float(limit.value)
    return limit.bound == "upper" and amount <= float(limit.value)


def conflicts(claim: Value, evidence: Value, *, durations: bool = False) -> bool:
    """Whether the evidence value states something else in the claim value's place.

    Only values of the same kind (and unit or currency) conflict; with ``durations``, also
    lengths of time in different units when one is clearly longer (read only in sentences
    about the claim's own fact: a subject's "25 days" of leave does not set its "six months"
    of service aside). Dates conflict when
    they disagree on a part both state: "31 March 1889" and "1889" do not conflict,
    "1890" and "31 March 1889" do. Names never conflict, nor a value within a limit the
    evidence states ("80%" and "more than 70%").
    """
    if claim.kind is ValueKind.ENTITY or claim.kind is not evidence.kind:
        return False
    if claim.kind is ValueKind.DATE:
        if str(evidence.value).startswith("--") and not str(claim.value).startswith("--"):
            return False  # "12 January" may be of any year, so its month proves nothing
        pairs = zip(_date_parts(str(claim.value)), _date_parts(str(evidence.value)), strict=True)
        return any(a is not None and b is not None and a != b for a, b in pairs)
    if _durations(claim, evidence):
        if not durations:
            return False
        # Written in other units, only a clear difference conflicts: "two years" and "eight
        # months" do, "one month" and "four weeks" are too close to tell.
        shorter, longer = sorted((_in_days(claim), _in_days(evidence)))
        return not claim.bound and not evidence.bound and longer > shorter * _OTHER_DURATION
    return (_same_measure(claim, evidence) and not matches(claim, evidence)
            and not _within(float(claim.value), evidence))


# Each unit of time in days, so that "12 months" states "one year".
_DAYS = {"second": 1 / 86400, "minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "week": 7.0,
         "month": 365.25 / 12, "year": 365.25}
_OTHER_DURATION = 1.25
# Units whose lengths are fixed multiples of one another: a month is no whole number of
# weeks, so "26 weeks" does not state "six months".
_CALENDAR = frozenset({"month", "year"})


def _durations(claim: Value, evidence: Value) -> bool:
    """Whether both values are lengths of time written in different units."""
    return (claim.unit != evidence.unit and claim.unit in _DAYS and evidence.unit in _DAYS
            and claim.kind is ValueKind.QUANTITY)


def _exactly_convertible(claim: Value, evidence: Value) -> bool:
    return (claim.unit in _CALENDAR) == (evidence.unit in _CALENDAR)


def _in_days(value: Value) -> float:
    return float(value.value) * _DAYS[value.unit]


def _same_measure(claim: Value, evidence: Value) -> bool:
    """Same unit, and no word beside them says they measure different dimensions."""
    return claim.unit == evidence.unit and (
        not claim.dimension or not evidence.dimension or claim.dimension == evidence.dimension)


@dataclass(frozen=True, slots=True)
class TextValues:
    """The values and words of one evidence text, extracted once for many look-ups."""

    values: tuple[Value, ...]
    words: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> TextValues:
        return cls(tuple(extract_values(text)), text_words(text))

    def contains(self, claim_value: Value) -> bool:
        """Whether the text states ``claim_value``; a name may appear anywhere in the text."""
        if claim_value.kind is ValueKind.ENTITY:
            return contains_run(self.words, claim_value.words)
        return any(matches(claim_value, value) for value in self.values)

    def conflict(self, claim_value: Value, claimed: Sequence[Value] = (), *,
                 durations: bool = False) -> Value | None:
        """A value that contradicts ``claim_value``, unless the text also states it. A value
        that one of ``claimed`` (the claim's other values) states is the claim's own, not a
        rival: "born in 1978? October 18, 1928" does not set 1928 against 1978."""
        if self.contains(claim_value):
            return None
        rivals = [value for value in self.values
                  if conflicts(claim_value, value, durations=durations)
                  and not any(matches(other, value) for other in claimed)]
        # A rival said to measure the same dimension before one whose dimension is unsaid.
        return min(rivals, key=lambda value: value.dimension != claim_value.dimension,
                   default=None)
