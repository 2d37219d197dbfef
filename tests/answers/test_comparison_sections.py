"""A comparison over a handbook whose sections name the sides: a sentence that gives one
side's value without naming it ("The cost per person may not exceed £75." under "Client
entertainment") answers for that side, and a side the handbook states no value for makes the
answer abstain."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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


def _engine_over(folder: Path, documents: dict[str, str]) -> Iterator[Engine]:
    """An engine over a store of ``documents`` (file name → text) ingested from ``folder``."""
    (folder / "docs").mkdir()
    for name, text in documents.items():
        (folder / "docs" / name).write_text(text)
    with Engine(EngineConfig(store=f"sqlite:///{folder / 'store.sqlite'}")) as engine:
        engine.ingest([folder / "docs"])
        yield engine


def _shown(engine: Engine, question: str, *values: str) -> str:
    """The answer to ``question``, which must be shown and hold each of ``values``."""
    answer = engine.ask(question)
    assert not answer.abstained, answer.abstention_reason
    assert all(value in answer.answer for value in values), answer.answer
    return answer.answer


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    yield from _engine_over(tmp_path_factory.mktemp("handbook"), {"expenses.md": HANDBOOK})


@pytest.mark.slow
def test_a_side_named_only_by_its_section_heading_is_answered(handbook: Engine) -> None:
    _shown(handbook, "Which limit per person is bigger, client entertainment or gifts to "
           "clients?", "£75", "£50")


@pytest.mark.slow
def test_a_side_with_no_sum_stated_abstains(handbook: Engine) -> None:
    answer = handbook.ask("Which costs more, conference tickets or client gifts?")
    assert answer.abstained, answer.answer
    assert "each side" in (answer.abstention_reason or "")


# A side's value in a sentence that names the side with its heading, or in a clause that reads
# as comparative ("older events ...").
GUIDE = {
    "expenses.md": """# Travel and expenses

## General rules

Claims are made in PeopleDesk with a photo of each receipt, and must be submitted within 60 days
of the expense.

## Company cards

Company cards are issued to staff who travel often. They must upload receipts for every
payment within 30 days, and the card is suspended if they do not.
""",
    "events.md": """# Events

## Filtering

The events endpoint only returns events from the last 30 days; older events are available in
the monthly exports in the dashboard.
""",
    "labels.md": """# Labels

## Label formats

Label files remain downloadable for 90 days after creation.
""",
}


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    yield from _engine_over(tmp_path_factory.mktemp("guide"), GUIDE)


@pytest.mark.slow
def test_a_pronoun_led_clause_under_the_sides_heading_gives_its_value(guide: Engine) -> None:
    # "They must upload receipts ..." names two of "uploading company card receipts" and its
    # heading the third: it is on the question, not off it.
    _shown(guide, "Which deadline is shorter, submitting an expense claim or uploading company "
           "card receipts?", "60 days", "30 days")


@pytest.mark.slow
def test_a_sides_value_in_a_comparative_sentence_is_shown(guide: Engine) -> None:
    _shown(guide, "Which are kept longer, label files or events on the events endpoint?",
           "90 days", "30 days")


HARBOUR = {
    "boats.md": """# Boats

## Harbour cruise

The best way to see the harbour is the Harbour Cruise. It leaves the quay at 11:00 and lasts
two hours. Tickets cost 300 kroner for adults.

## Island ferry

The quickest way to the island is the Lindø Ferry. It leaves every hour and takes 25 minutes.
A return ticket costs 120 kroner for adults and 60 kroner for children.
""",
    "arrival.md": """# Arriving

## From the airport

The fastest way to the centre is the Metro Link train. It leaves every 10 minutes and reaches
the centre in 12 minutes.

The cheaper choice is tram 7, which stops at the market and the cathedral. It runs every 15
minutes and reaches the centre in 35 minutes.
""",
}


@pytest.fixture(scope="module")
def harbour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    yield from _engine_over(tmp_path_factory.mktemp("harbour"), HARBOUR)


@pytest.mark.slow
def test_a_sides_value_for_a_sibling_is_no_value_for_the_asked_one(harbour: Engine) -> None:
    answer = harbour.ask("Which is cheaper for a child, the harbour cruise or the Lindø ferry?")
    assert answer.abstained
    assert "speaks of adults, not of child" in (answer.abstention_reason or "")


@pytest.mark.slow
def test_a_side_named_with_its_number_is_given_by_what_it_stands_for(harbour: Engine) -> None:
    _shown(harbour, "Which gets you to the centre faster, the Metro Link or tram 7?",
           "12 minutes", "35 minutes")


@pytest.mark.slow
def test_a_value_said_of_its_paragraph_s_opening_names_its_side(harbour: Engine) -> None:
    shown = _shown(harbour, "Which ticket is cheaper, the harbour cruise or the Lindø ferry?",
                   "300 kroner", "120 kroner")
    # Each value says whose it is, as the question names the side.
    assert "The Lindø ferry: A return ticket costs 120 kroner" in shown
