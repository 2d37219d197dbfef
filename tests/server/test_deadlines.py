"""A request past its deadline gets 504 and frees the worker: the next request is served."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import make_engine, running
from server_support import DOCUMENTS

from veritype.server import ServerSettings, create_app

pytestmark = pytest.mark.needs_serve

TIMEOUT_S = 2.0
EVIDENCE = [doc["text"] for doc in DOCUMENTS]
# About 150 claims: many seconds of verification, far past the deadline.
SLOW_ANSWER = " ".join(
    f"The tower number {i} was painted {i} times by crew {i + 7} in the year {1800 + i}."
    for i in range(150)
)


@pytest.fixture(scope="module")
def short_deadline_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("deadlines")
    with make_engine(work / "store.sqlite") as engine:
        engine.verify("The Eiffel Tower is in Paris.", EVIDENCE)  # models loaded up front
        settings = ServerSettings(eval_dir=work / "eval-runs", request_timeout=TIMEOUT_S)
        with running(create_app(engine, settings)) as url:
            yield url


def assert_served_at_once(client: httpx.Client, answer: str) -> None:
    """A small request is answered at once: the timed-out work stopped at its next
    checkpoint, within a second, and the small request takes well under one more."""
    started = time.monotonic()
    small = client.post("/qa/verify", json={"answer": answer, "evidence": EVIDENCE})
    waited = time.monotonic() - started
    assert small.status_code == 200, small.text
    assert small.json()["claims"], small.text
    assert waited < TIMEOUT_S, f"the next request waited {waited:.1f} s"


def test_the_request_after_a_timed_out_one_is_served(short_deadline_url: str) -> None:
    with httpx.Client(base_url=short_deadline_url, timeout=60) as client:
        slow = client.post("/qa/verify", json={"answer": SLOW_ANSWER, "evidence": EVIDENCE})
        assert slow.status_code == 504, slow.text
        assert slow.json()["error"] == "deadline_exceeded"

        assert_served_at_once(client, "Marie Curie won the Nobel Prize in Physics in 1903.")


def test_a_streamed_request_past_its_deadline_frees_the_worker(short_deadline_url: str) -> None:
    with httpx.Client(base_url=short_deadline_url, timeout=60) as client:
        with client.stream("POST", "/qa/verify",
                           json={"answer": SLOW_ANSWER + " ", "evidence": EVIDENCE},
                           headers={"Accept": "text/event-stream"}) as events:
            body = "".join(events.iter_text())
        assert "event: error" in body and "deadline_exceeded" in body

        assert_served_at_once(client, "Penicillin was discovered by Alexander Fleming in 1928.")


def test_verification_under_no_deadline_still_completes(tmp_path: Path) -> None:
    with make_engine(tmp_path / "store.sqlite") as engine:
        answer = engine.verify(SLOW_ANSWER[:400], EVIDENCE)
    assert answer.claims
