"""Faithfulness as an assertion in a test suite (pytest or any runner that reports
``AssertionError``).

``assert_faithful(question, answer, contexts)`` types every claim of the answer against the
contexts, as ``veritype check`` does, and fails listing each claim that is not Verified with
its reason: Unsupported ones, and Uncertain ones as needing review (``uncertain_as="pass"``
lets Uncertain claims through). The views are built once per process and settings, so a
suite of many assertions loads the models once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veritype.checking import (
    BadRow,
    CheckSettings,
    ClaimResult,
    Columns,
    RowChecker,
    RowResult,
    UncertainAs,
)
from veritype.checking._row_result import NEEDS_REVIEW
from veritype.checking._rows import parse_row
from veritype.errors import InputError
from veritype.graph import EvidenceType

_checkers: dict[str, RowChecker] = {}


def _checker(settings: CheckSettings) -> RowChecker:
    key = settings.model_dump_json()
    if key not in _checkers:
        _checkers[key] = RowChecker(settings)
    return _checkers[key]


def assert_faithful(
    question: str | None,
    answer: str,
    contexts: Sequence[str],
    *,
    min_faithfulness: float = 1.0,
    settings: CheckSettings | None = None,
    uncertain_as: UncertainAs | Literal["pass", "fail"] = UncertainAs.FAIL,
) -> RowResult:
    """Fail unless at least ``min_faithfulness`` of the answer's claims are faithful to
    ``contexts`` (the default: every claim). A claim is faithful when it is Verified; with
    ``uncertain_as="pass"`` an Uncertain claim (one the views cannot tell) is too. An answer
    with no claim to check ("I don't know") passes. The ``AssertionError`` lists every
    claim that failed, with its type, its characters in the answer and why: the Unsupported
    ones, and the Uncertain ones as needing review. Returns the checked row."""
    __tracebackhide__ = True  # pytest shows the failing test's line, not this function
    counting = UncertainAs.of(uncertain_as)
    if not 0.0 <= min_faithfulness <= 1.0:
        raise InputError(f"min_faithfulness must lie in [0, 1], got {min_faithfulness}")
    if isinstance(contexts, str):
        raise InputError("contexts must be a list of texts, not one text")
    parsed = parse_row(1, {"question": question, "answer": answer, "contexts": list(contexts)},
                       Columns())
    if isinstance(parsed, BadRow):
        raise InputError(parsed.problem)
    result = _checker(settings or CheckSettings()).check(parsed)
    faithfulness = result.faithfulness_as(counting)
    if faithfulness is None or faithfulness >= min_faithfulness:
        return result
    unsupported = result.claims_of(EvidenceType.UNSUPPORTED)
    uncertain = (result.claims_of(EvidenceType.UNCERTAIN) if counting is UncertainAs.FAIL
                 else [])
    failed = (f"{len(unsupported)} Unsupported, {len(uncertain)} Uncertain"
              if counting is UncertainAs.FAIL else
              f"{len(unsupported)} Unsupported; Uncertain ones pass")
    lines = [f"faithfulness {faithfulness:.2f} is below {min_faithfulness:g} "
             f"({len(result.claims)} claims: {failed}):"]
    lines += [_failed_line(claim, claim.type.value) for claim in unsupported]
    lines += [_failed_line(claim, f"{claim.type.value}, {NEEDS_REVIEW}") for claim in uncertain]
    raise AssertionError("\n".join(lines))


def _failed_line(claim: ClaimResult, label: str) -> str:
    return f"  {label} [{claim.start}:{claim.end}] {claim.written!r}: {claim.reason}"


__all__ = ["assert_faithful"]
