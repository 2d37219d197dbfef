"""A request past its deadline gets 504, has changed nothing and frees the worker; so does a
client that leaves: the next request is served at once."""

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
# About 485,000 characters in 820 paragraphs: an ingest that embeds for many seconds.
_WORDS = ("river", "valley", "station", "harbour", "council", "bridge", "tower", "museum",
          "garden", "railway", "market")
LARGE_DOCUMENT = "\n\n".join(
    f"Paragraph {p}. " + " ".join(_WORDS[(p * 7 + i * 3) % len(_WORDS)] for i in range(80)) + "."
    for p in range(820)
)
# What a small request may take after heavy work was stopped: the worker must be free.
AT_ONCE_S = 0.5


@pytest.fixture(scope="module")
def short_deadline_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("deadlines")
    with make_engine(work / "store.sqlite") as engine:
        engine.verify("The Eiffel Tower is in Paris.", EVIDENCE)  # models loaded up front
        settings = ServerSettings(eval_dir=work / "eval-runs", request_timeout=TIMEOUT_S)
        with running(create_app(engine, settings)) as url:
            yield url


def assert_served_within(client: httpx.Client, answer: str, seconds: float) -> None:
    """A small request is answered within ``seconds``: the stopped work gave the worker up
    at its next checkpoint."""
    started = time.monotonic()
    small = client.post("/qa/verify", json={"answer": answer, "evidence": EVIDENCE})
    waited = time.monotonic() - started
    assert small.status_code == 200, small.text
    assert small.json()["claims"], small.text
    assert waited < seconds, f"the next request waited {waited:.2f} s"


def assert_served_at_once(client: httpx.Client, answer: str) -> None:
    """After a request that timed out: its work stopped within a second, and the small
    request takes well under one more."""
    assert_served_within(client, answer, TIMEOUT_S)


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


def test_an_ingest_past_its_deadline_stores_nothing(short_deadline_url: str) -> None:
    with httpx.Client(base_url=short_deadline_url, timeout=60) as client:
        before = client.get("/documents").json()["total"]
        started = time.monotonic()
        posted = client.post("/documents", json={"documents": [
            {"text": LARGE_DOCUMENT, "title": "Large", "source": "large"}]})
        assert posted.status_code == 504, posted.text
        assert time.monotonic() - started < TIMEOUT_S + 1
        assert_served_within(client, "Penicillin was discovered by Alexander Fleming in 1928.",
                             AT_ONCE_S)
        assert client.get("/documents").json()["total"] == before
        listed = client.get("/documents", params={"limit": 500}).json()["items"]
        assert "large" not in {item["source"] for item in listed}


@pytest.fixture(scope="module")
def patient_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A service whose deadline is far off: only the client's leaving stops its work."""
    work = tmp_path_factory.mktemp("disconnects")
    with make_engine(work / "store.sqlite") as engine:
        engine.verify("The Eiffel Tower is in Paris.", EVIDENCE)
        settings = ServerSettings(eval_dir=work / "eval-runs", request_timeout=120)
        with running(create_app(engine, settings)) as url:
            yield url


@pytest.mark.parametrize("route", ["/qa/verify", "/documents"])
def test_a_client_that_leaves_frees_the_worker(patient_url: str, route: str) -> None:
    body: dict[str, object] = (
        {"answer": SLOW_ANSWER, "evidence": EVIDENCE} if route == "/qa/verify" else
        {"documents": [{"text": LARGE_DOCUMENT, "title": "Large", "source": "large"}]}
    )
    with httpx.Client(base_url=patient_url, timeout=1.0) as leaving, \
            pytest.raises(httpx.ReadTimeout):
        leaving.post(route, json=body)
    with httpx.Client(base_url=patient_url, timeout=60) as client:
        assert_served_within(client, "Marie Curie won the Nobel Prize in Physics in 1903.",
                             AT_ONCE_S)
        listed = client.get("/documents", params={"limit": 500}).json()["items"]
        assert "large" not in {item["source"] for item in listed}


def test_verification_under_no_deadline_still_completes(tmp_path: Path) -> None:
    with make_engine(tmp_path / "store.sqlite") as engine:
        answer = engine.verify(SLOW_ANSWER[:400], EVIDENCE)
    assert answer.claims
