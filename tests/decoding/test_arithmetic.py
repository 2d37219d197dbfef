from fractions import Fraction

import pytest

from veritype.decoding import END_OF_TEXT, ArithmeticGuard, Guard, create_guard, evaluate
from veritype.decoding.arithmetic import arithmetic_constraint, result_spellings

PROMPT = "What is 37 × 24? Answer: 37 × 24 ="


@pytest.fixture
def guard() -> ArithmeticGuard:
    return ArithmeticGuard()


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("37 × 24", Fraction(888)),
        ("37 x 24", Fraction(888)),
        ("1,250 + 3,475", Fraction(4725)),
        ("12.5 km + 7.25 km", Fraction("19.75")),
        ("$1,200 ÷ 8", Fraction(150)),
        ("45% − 12.5%", Fraction("32.5")),
        ("2 + 3 * 4", Fraction(14)),
        ("5 × -3", Fraction(-15)),
        ("10 / 4", Fraction(5, 2)),
    ],
)
def test_evaluate_with_units_separators_and_precedence(expression: str, value: Fraction) -> None:
    assert evaluate(expression) == value


def test_division_by_zero_constrains_nothing() -> None:
    assert evaluate("5 / 0") is None
    assert arithmetic_constraint("So 5 / 0 =") is None


def test_result_spellings() -> None:
    assert result_spellings(Fraction(4725)) == ("4725", "4,725")
    assert result_spellings(Fraction(10, 3))[:3] == ("3.3", "3.33", "3.333")
    assert "$150" in result_spellings(Fraction(150), "$")
    assert {"-15", "−15"} <= set(result_spellings(Fraction(-15)))


def test_only_the_correct_digits_continue(guard: ArithmeticGuard) -> None:
    assert isinstance(guard, Guard) and guard.exact
    assert guard.safe(PROMPT, [" 8", " 9", "8", " The", END_OF_TEXT, " ", " 88"]) == [
        True, False, True, False, False, True, True,
    ]


def test_a_line_break_or_blank_run_cannot_postpone_the_result(guard: ArithmeticGuard) -> None:
    assert guard.safe(PROMPT, ["\n", " ", "  "]) == [False, True, True]
    assert guard.safe(PROMPT + "  ", [" ", "8"]) == [False, True]


def test_ending_the_number_early_is_unsafe(guard: ArithmeticGuard) -> None:
    written = PROMPT + " 88"
    assert guard.safe(written, ["8", END_OF_TEXT, ".", " apples", "9"]) == [
        True, False, False, False, False,
    ]
    done = PROMPT + " 888"
    assert guard.safe(done, [".", END_OF_TEXT, " apples", "0", ".5", ","]) == [
        True, True, True, False, False, False,
    ]
    # "888." could still become "888.5": the guard stays on until the number is over.
    assert guard.safe(done + ".", ["5", " The"]) == [False, True]
    assert guard.constraint_for(done + ". The") is None


def test_decimals_and_units(guard: ArithmeticGuard) -> None:
    prefix = "Total distance: 12.5 km + 7.25 km ="
    assert guard.safe(prefix, [" 19", " 20", " 19.75"]) == [True, False, True]
    assert guard.safe(prefix + " 19", [".", ".7", " km", "75"]) == [True, True, False, False]
    assert guard.safe(prefix + " 19.75", [" km", "5"]) == [True, False]


def test_thousands_separators_and_currency(guard: ArithmeticGuard) -> None:
    assert guard.safe("1,250 + 3,475 =", [" 4,725", " 4725", " 4,7", " 4,8"]) == [
        True, True, True, False,
    ]
    assert guard.safe("$1,200 ÷ 8 =", [" $150", " 150", " $160"]) == [True, True, False]
    assert guard.safe("So 45% − 12.5% is", [" 32.5%", " 32.50", " 57.5"]) == [True, True, False]


def test_no_expression_no_constraint(guard: ArithmeticGuard) -> None:
    assert guard.safe("In 2020 the city had 5 parks and", [" 7", " many"]) == [True, True]


def test_batch_matches_single_and_registry() -> None:
    guard = create_guard("arithmetic")
    prefixes = [PROMPT, "2 + 2 ="]
    candidates = [[" 888", " 999"], [" 4", " 5"]]
    assert guard.safe_batch(prefixes, candidates) == [[True, False], [True, False]]
    with pytest.raises(ValueError, match="one candidate list per prefix"):
        guard.safe_batch(prefixes, candidates[:1])
