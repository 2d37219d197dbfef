"""The arithmetic guard: a result the answer states must be the computed one.

When the answer so far ends with an expression and "=" / "is" / "equals" ("37 × 24 =",
"12.5 km + 7.25 km is", "$1,200 ÷ 8 ="), only tokens that continue the digits of the
correct result are safe, and so is a token that ends the number only once it is complete.
Operators: + - − × * x / ÷ with the usual precedence; operands may carry thousands
separators, decimals, a currency sign before or a unit after.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from veritype.decoding._base import (
    LiteralConstraint,
    PrefixGuard,
    literal_open,
    register_guard,
)

_UNITS = (
    "%|km/h|mph|kph|km|cm|mm|m|kg|mg|g|lbs|lb|ml|l|h|hours|hrs|min|minutes|ms|s|seconds|"
    "days|weeks|months|years|usd|eur|gbp|dollars|euros|pounds|°c|°f|degrees"
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_OPERATOR = r"[+\-−×*/÷·]|(?<=\s)x(?=\s)"
_TOKEN = re.compile(
    rf"\s*(?:(?P<operator>{_OPERATOR})|(?P<operand>(?:[$€£]\s?)?(?:{_NUMBER})"
    rf"(?:\s?(?:{_UNITS})(?![a-z]))?))",
    re.IGNORECASE,
)
_EXPRESSION = re.compile(
    rf"(?<![\w.,])(?P<expression>[-−]?(?:[$€£]\s?)?(?:{_NUMBER})(?:\s?(?:{_UNITS})(?![a-z]))?"
    rf"(?:\s*(?:{_OPERATOR})\s*[-−]?(?:[$€£]\s?)?(?:{_NUMBER})(?:\s?(?:{_UNITS})(?![a-z]))?)+)"
    r"\s*(?:=|\bis\b|\bequals\b|\bmakes\b)",
    re.IGNORECASE,
)
_NUMBER_IN = re.compile(_NUMBER)
_MULTIPLY = {"×", "*", "x", "X", "·"}
_DIVIDE = {"/", "÷"}
_MINUS = {"-", "−"}
# How much of the prefix is searched for the expression: long enough for any expression a
# prompt states on one line.
_TAIL = 240
_MAX_DECIMALS = 6


def evaluate(expression: str) -> Fraction | None:
    """The exact value of an expression such as "1,200 ÷ 8 + 2.5 km", or None when it
    divides by zero or is not an expression this guard reads."""
    operands: list[Fraction] = []
    operators: list[str] = []
    negate = False
    for match in _TOKEN.finditer(expression):
        if match.group("operator"):
            operator = match.group("operator")
            if len(operators) == len(operands):  # a sign in front of an operand
                if operator not in _MINUS:
                    return None
                negate = not negate
                continue
            operators.append(operator)
        else:
            number = _NUMBER_IN.search(match.group("operand"))
            if number is None or len(operators) != len(operands):
                return None
            value = Fraction(number.group(0).replace(",", ""))
            operands.append(-value if negate else value)
            negate = False
    if not operands or len(operators) != len(operands) - 1:
        return None
    return _combine(operands, operators)


def _combine(operands: list[Fraction], operators: list[str]) -> Fraction | None:
    # Multiplication and division first, then addition and subtraction, left to right.
    terms = [operands[0]]
    signs: list[str] = []
    for operator, operand in zip(operators, operands[1:], strict=True):
        if operator in _MULTIPLY:
            terms[-1] *= operand
        elif operator in _DIVIDE:
            if operand == 0:
                return None
            terms[-1] /= operand
        else:
            signs.append(operator)
            terms.append(operand)
    total = terms[0]
    for sign, term in zip(signs, terms[1:], strict=True):
        total = total - term if sign in _MINUS else total + term
    return total


def result_spellings(value: Fraction, currency: str = "") -> tuple[str, ...]:
    """Every way this guard accepts the result to be written (lower-case).

    Integers with and without thousands separators; exact decimals, also padded to two
    places ("2.50"); a non-terminating decimal rounded to 1..6 places; each also after
    a minus sign "-"/"−" when negative and after the operands' currency sign.
    """
    magnitude = abs(value)
    numbers: list[str] = []
    if magnitude.denominator == 1:
        whole = int(magnitude)
        numbers += [str(whole), f"{whole:,}"]
    else:
        exact = _exact_decimal(magnitude)
        if exact is not None:
            numbers.append(exact)
            if len(exact.split(".")[1]) == 1:
                numbers.append(exact + "0")
        else:
            numbers += [_rounded(magnitude, places) for places in range(1, _MAX_DECIMALS + 1)]
        numbers += [_with_separators(number) for number in numbers]
    spellings = [f"{sign}{number}" for number in dict.fromkeys(numbers)
                 for sign in (("-", "−") if value < 0 else ("",))]
    if currency:
        spellings += [currency + spelling for spelling in spellings] + [
            f"{spelling[0]}{currency}{spelling[1:]}" for spelling in spellings if value < 0
        ]
    return tuple(dict.fromkeys(spellings))


def _exact_decimal(value: Fraction) -> str | None:
    for places in range(1, _MAX_DECIMALS + 1):
        scaled = value * 10**places
        if scaled.denominator == 1:
            return _rounded(value, places)
    return None


def _rounded(value: Fraction, places: int) -> str:
    scaled = round(value * 10**places)
    whole, fraction = divmod(scaled, 10**places)
    return f"{whole}.{fraction:0{places}d}"


def _with_separators(number: str) -> str:
    whole, _, fraction = number.partition(".")
    grouped = f"{int(whole):,}"
    return f"{grouped}.{fraction}" if fraction else grouped


def arithmetic_constraint(prefix: str) -> LiteralConstraint | None:
    """The constraint the last stated expression of ``prefix`` puts on what follows it,
    or None when no expression awaits its result."""
    tail = prefix[-_TAIL:]
    last = None
    for last in _EXPRESSION.finditer(tail):  # noqa: B007 - the last match is the one that counts
        pass
    if last is None:
        return None
    expression = last.group("expression")
    value = evaluate(expression)
    if value is None:
        return None
    currencies = {c for c in "$€£" if c in expression}
    answers = result_spellings(value, currencies.pop() if len(currencies) == 1 else "")
    written = tail[last.end() :]
    if not literal_open(written, answers):
        return None
    return LiteralConstraint(written, answers)


class ArithmeticGuard(PrefixGuard):
    """Only the digits of the correct result may follow "a op b =" (see the module doc)."""

    name = "arithmetic"
    _where = "an expression awaits its result"

    def __init__(self, *, enabled: bool = True) -> None:
        super().__init__()
        self.enabled = enabled

    def _constraint(self, prefix: str) -> LiteralConstraint | None:
        return arithmetic_constraint(prefix)


@register_guard("arithmetic")
def arithmetic_guard(**options: Any) -> ArithmeticGuard:
    """The ``arithmetic`` guard (options: ``enabled``)."""
    return ArithmeticGuard(**options)
