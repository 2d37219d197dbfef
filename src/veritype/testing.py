"""Faithfulness as an assertion in a test suite (pytest or any runner that reports
``AssertionError``).

``assert_faithful(question, answer, contexts)`` types every claim of the answer against the
contexts, as ``veritype check`` does, and fails listing each claim that is not Verified with
its reason. The views are built once per process and settings, so a suite of many
assertions loads the models once.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritype.checking import BadRow, CheckSettings, Columns, RowChecker, RowResult
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
) -> RowResult:
    """Fail unless at least ``min_faithfulness`` of the answer's claims are Verified against
    ``contexts`` (the default: every claim). An answer with no claim to check ("I don't
    know") passes. The ``AssertionError`` lists every claim that is not Verified, with its
    type, its characters in the answer and why. Returns the checked row."""
    __tracebackhide__ = True  # pytest shows the failing test's line, not this function
    if not 0.0 <= min_faithfulness <= 1.0:
        raise InputError(f"min_faithfulness must lie in [0, 1], got {min_faithfulness}")
    if isinstance(contexts, str):
        raise InputError("contexts must be a list of texts, not one text")
    parsed = parse_row(1, {"question": question, "answer": answer, "contexts": list(contexts)},
                       Columns())
    if isinstance(parsed, BadRow):
        raise InputError(parsed.problem)
    result = _checker(settings or CheckSettings()).check(parsed)
    if result.faithfulness is None or result.faithfulness >= min_faithfulness:
        return result
    failing = [claim for claim in result.claims if claim.type is not EvidenceType.VERIFIED]
    lines = [f"faithfulness {result.faithfulness:.2f} is below {min_faithfulness:g} "
             f"({len(failing)} of {len(result.claims)} claims not Verified):"]
    lines += [f"  {claim.type.value} [{claim.start}:{claim.end}] {claim.written!r}: "
              f"{claim.reason}" for claim in failing]
    raise AssertionError("\n".join(lines))


__all__ = ["assert_faithful"]
