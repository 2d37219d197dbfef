"""A request past its deadline gets 504, has changed nothing and frees the worker; so does a
client that leaves, even in the middle of a view: the next request is served at once. A
body that never arrives gets 408 and its connection closed. Each over both stores."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from conftest import make_engine, running
from pg_support import fresh_database
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
# 150 answer sentences (about 9,400 characters) against ten prose texts of 20,000
# characters: tens of seconds in the views, most of them inside a single view's batch.
_CITIES = ("Paris", "Lyon", "Rome", "Vienna", "Prague", "Berlin", "Madrid", "Lisbon", "Oslo")
_THINGS = ("bridge", "tower", "station", "museum", "library", "cathedral", "market", "theatre")
LARGE_ANSWER = " ".join(
    f"The {_THINGS[i % 8]} in {_CITIES[(i * 5) % 9]} was built in {1700 + (i * 37) % 250} and "
    f"is {20 + (i * 53) % 880} metres long." for i in range(150)
)
PROSE_EVIDENCE = [
    " ".join(
        f"The {_THINGS[(t + i) % 8]} near the old {_THINGS[(t * 3 + i) % 8]} of "
        f"{_CITIES[(t + i * 7) % 9]} was restored in {1700 + (t * 31 + i * 17) % 300} by "
        f"{2 + (i * 13) % 398} workers, and its hall holds {100 + (t * 7 + i * 29) % 8900} seats "
        f"across {2 + (i + t) % 38} floors." for i in range(160)
    )[:20_000]
    for t in range(10)
]
# What a small request may take after heavy work was stopped: the worker must be free.
AT_ONCE_S = 0.5
# ... and after a drop inside a view, where the work stops at the view's next claim.
WITHIN_A_SECOND_S = 1.0
BODY_TIMEOUT_S = 1.0


@contextmanager
def serving(request: pytest.FixtureRequest, work: Path, timeout: float) -> Iterator[str]:
    """A service over the store ``request.param`` names, its models loaded up front."""
    if request.param == "sqlite":
        engine = make_engine(work / "store.sqlite")
    else:
        database = fresh_database(request.getfixturevalue("postgres_admin_url"))
        engine = make_engine(database, index_dir=work / "indexes")
    with engine:
        engine.verify("The Eiffel Tower is in Paris.", EVIDENCE)
        settings = ServerSettings(eval_dir=work / "eval-runs", request_timeout=timeout,
                                  body_timeout=BODY_TIMEOUT_S)
        with running(create_app(engine, settings)) as url:
            yield url


STORES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.needs_pg)]


@pytest.fixture(scope="module", params=STORES)
def short_deadline_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with serving(request, tmp_path_factory.mktemp("deadlines"), TIMEOUT_S) as url:
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


@pytest.fixture(scope="module", params=STORES)
def patient_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A service whose deadline is far off: only the client's leaving stops its work."""
    with serving(request, tmp_path_factory.mktemp("disconnects"), 120) as url:
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


def drop_after_a_second(url: str, body: dict[str, object]) -> None:
    """Send ``body`` to /qa/verify and leave one second later, before any answer."""
    with httpx.Client(base_url=url, timeout=1.0) as leaving, pytest.raises(httpx.ReadTimeout):
        leaving.post("/qa/verify", json=body)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_large_verify_dropped_inside_a_view_frees_the_worker_within_a_second(
    patient_url: str, stream: bool
) -> None:
    drop_after_a_second(patient_url, {"answer": LARGE_ANSWER + " " * stream,
                                      "evidence": PROSE_EVIDENCE})
    with httpx.Client(base_url=patient_url, timeout=60) as client:
        assert_served_within(client, f"The Eiffel Tower was completed in {1889 + stream}.",
                             WITHIN_A_SECOND_S)


def test_after_a_drop_the_next_request_is_served_not_timed_out(short_deadline_url: str) -> None:
    drop_after_a_second(short_deadline_url, {"answer": LARGE_ANSWER, "evidence": PROSE_EVIDENCE})
    with httpx.Client(base_url=short_deadline_url, timeout=60) as client:
        assert_served_within(client, "Mount Everest is 8,849 metres high.", WITHIN_A_SECOND_S)


def test_a_large_verify_past_its_deadline_frees_the_worker(short_deadline_url: str) -> None:
    with httpx.Client(base_url=short_deadline_url, timeout=60) as client:
        started = time.monotonic()
        slow = client.post("/qa/verify", json={"answer": LARGE_ANSWER,
                                               "evidence": PROSE_EVIDENCE})
        assert slow.status_code == 504, slow.text
        assert time.monotonic() - started < TIMEOUT_S + WITHIN_A_SECOND_S
        assert_served_within(client, "Marie Curie won the Nobel Prize in Chemistry in 1911.",
                             WITHIN_A_SECOND_S)


def test_a_body_that_never_arrives_gets_408_and_its_connection_closed(
    short_deadline_url: str
) -> None:
    port = int(short_deadline_url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as stalled:
        # 100 bytes declared, 10 sent, and then nothing.
        stalled.sendall(b"POST /qa/verify HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                        b'{"answer":')
        started = time.monotonic()
        # Meanwhile other requests are served as usual.
        with httpx.Client(base_url=short_deadline_url, timeout=60) as client:
            assert client.get("/healthz").status_code == 200
            assert_served_within(client, "The Eiffel Tower is 330 metres tall.", AT_ONCE_S)
        answer = b""
        while chunk := stalled.recv(65536):  # until the server closes the connection
            answer += chunk
        closed = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer
    assert b"connection: close" in head.lower()
    assert json.loads(body)["error"] == "request_timeout"
    assert BODY_TIMEOUT_S - 0.1 < closed < BODY_TIMEOUT_S + 1.0


def test_verification_under_no_deadline_still_completes(tmp_path: Path) -> None:
    with make_engine(tmp_path / "store.sqlite") as engine:
        answer = engine.verify(SLOW_ANSWER[:400], EVIDENCE)
    assert answer.claims
