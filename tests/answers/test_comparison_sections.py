"""A comparison over a handbook whose sections name the sides: a sentence that gives one
side's value without naming it ("The cost per person may not exceed £75." under "Client
entertainment") answers for that side, and a side the handbook states no value for makes the
answer abstain."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from veritype import Engine, EngineConfig

HANDBOOK = """# Expenses

## Client entertainment

Entertaining clients must be approved in advance by a director, and the cost per person may
not exceed £75.

## Client gifts

Gifts to clients are limited to £50 per person per year.

## Conference travel

Conference tickets are booked by the events team.
"""


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder = tmp_path_factory.mktemp("handbook")
    (folder / "docs").mkdir()
    (folder / "docs" / "expenses.md").write_text(HANDBOOK)
    with Engine(EngineConfig(store=f"sqlite:///{folder / 'handbook.sqlite'}")) as engine:
        engine.ingest([folder / "docs"])
        yield engine


@pytest.mark.slow
def test_a_side_named_only_by_its_section_heading_is_answered(handbook: Engine) -> None:
    answer = handbook.ask("Which limit per person is bigger, client entertainment or gifts "
                          "to clients?")
    assert not answer.abstained, answer.abstention_reason
    assert "£75" in answer.answer and "£50" in answer.answer


@pytest.mark.slow
def test_a_side_with_no_sum_stated_abstains(handbook: Engine) -> None:
    answer = handbook.ask("Which costs more, conference tickets or client gifts?")
    assert answer.abstained, answer.answer
    assert "each side" in (answer.abstention_reason or "")
