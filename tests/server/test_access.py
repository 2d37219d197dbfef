"""API keys, the refusal to serve an open API beyond loopback, and the service's limits:
a per-request deadline (504) and a cap on queued work (429 with Retry-After)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from conftest import running
from server_support import DOCUMENTS

from veritype.engine import Engine
from veritype.server import ServerSettings, create_app
from veritype.server.settings import ExposureError, check_exposure, is_loopback

pytestmark = pytest.mark.needs_serve

KEYS = ("first-key", "second-key")


@pytest.fixture(scope="module")
def keyed_url(engine: Engine, eval_dir: Path) -> Iterator[str]:
    app = create_app(engine, ServerSettings(api_keys=KEYS, eval_dir=eval_dir))
    with running(app) as url:
        yield url


@pytest.mark.parametrize("path", ["/documents", "/evals", "/metrics", "/v1/models",
                                  "/traces/anything"])
def test_without_a_key_the_api_answers_401(keyed_url: str, path: str) -> None:
    response = httpx.get(keyed_url + path)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    error = body["error"] if path.startswith("/v1/") else body  # OpenAI's error shape
    assert "API key" in error["message"]


def test_a_wrong_key_is_refused(keyed_url: str) -> None:
    for headers in ({"Authorization": "Bearer nope"}, {"X-API-Key": "first-key-but-longer"}):
        response = httpx.get(keyed_url + "/documents", headers=headers)
        assert response.status_code == 401
        assert response.json()["message"] == "the API key is not valid"


def test_either_key_works_as_bearer_or_header(keyed_url: str) -> None:
    for headers in ({"Authorization": "Bearer first-key"}, {"X-API-Key": "second-key"}):
        response = httpx.get(keyed_url + "/documents", headers=headers)
        assert response.status_code == 200
        assert response.json()["total"] == len(DOCUMENTS)


def test_health_and_the_viewer_page_need_no_key(keyed_url: str) -> None:
    assert httpx.get(keyed_url + "/healthz").status_code == 200
    assert httpx.get(keyed_url + "/").status_code == 200


def test_the_openapi_document_declares_both_key_schemes(keyed_url: str) -> None:
    spec = httpx.get(keyed_url + "/openapi.json").json()
    schemes = spec["components"]["securitySchemes"]
    assert {scheme["type"] for scheme in schemes.values()} == {"http", "apiKey"}
    assert spec["paths"]["/documents"]["get"]["security"]
    assert "security" not in spec["paths"]["/healthz"]["get"]


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("localhost", True), ("::1", True),
     ("[::1]", True), ("0.0.0.0", False), ("192.168.1.4", False), ("example.org", False)],
)
def test_loopback_addresses_are_recognised(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_an_open_service_may_only_bind_loopback() -> None:
    check_exposure(ServerSettings(host="127.0.0.1"))
    check_exposure(ServerSettings(host="0.0.0.0", api_keys=("k",)))
    with pytest.raises(ExposureError, match="VERITYPE_API_KEYS"):
        check_exposure(ServerSettings(host="0.0.0.0"))


def test_keys_come_from_the_environment() -> None:
    assert ServerSettings.load(env={"VERITYPE_API_KEYS": " a, ,b ,"}).api_keys == ("a", "b")
    settings = ServerSettings.load(env={"VERITYPE_API_KEYS": "x,y", "VERITYPE_EVAL_DIR": "runs"})
    assert settings.api_keys == ("x", "y") and settings.eval_dir == Path("runs")


def test_serve_refuses_a_public_host_without_keys(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "veritype", "serve", "--host", "0.0.0.0", "--port", "0",
         "--store", str(tmp_path / "store.sqlite")],
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "error:" in result.stderr and "VERITYPE_API_KEYS" in result.stderr
    assert not (tmp_path / "store.sqlite").exists()


@pytest.fixture(scope="module")
def strict_url(engine: Engine, eval_dir: Path) -> Iterator[str]:
    """A service with a tiny deadline and room for one queued request."""
    app = create_app(engine, ServerSettings(eval_dir=eval_dir, request_timeout=0.02,
                                            max_pending=1))
    with running(app) as url:
        yield url


def slow_verify_body() -> dict[str, object]:
    """Work that takes far longer than the deadline; unique, since results are cached."""
    seed = random.randrange(10**6)
    facts = [f"The tower on level {n} was painted in {seed + n} by {n * 3} workers."
             for n in range(1, 60)]
    return {"answer": " ".join(facts), "evidence": [DOCUMENTS[0]["text"], f"Note {seed}."]}


def wait_idle(url: str) -> None:
    deadline = time.monotonic() + 120
    while httpx.get(url + "/healthz").json()["pending"]:
        assert time.monotonic() < deadline, "engine work never finished"
        time.sleep(0.05)


def test_a_request_past_its_deadline_is_a_504(strict_url: str) -> None:
    late = httpx.post(strict_url + "/qa/verify", json=slow_verify_body(), timeout=60)
    assert late.status_code == 504
    assert late.json()["error"] == "deadline_exceeded"
    wait_idle(strict_url)


@pytest.fixture(scope="module")
def one_slot_url(engine: Engine, eval_dir: Path) -> Iterator[str]:
    """A service with room for one queued request and time enough to see it queued."""
    app = create_app(engine, ServerSettings(eval_dir=eval_dir, request_timeout=3,
                                            max_pending=1))
    with running(app) as url:
        yield url


def test_a_full_queue_is_a_429_with_retry_after(one_slot_url: str) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        slow = pool.submit(httpx.post, one_slot_url + "/qa/verify", json=slow_verify_body(),
                           timeout=60)
        deadline = time.monotonic() + 30
        while not httpx.get(one_slot_url + "/healthz").json()["pending"]:
            assert time.monotonic() < deadline and not slow.done(), "the slow request never ran"
            time.sleep(0.005)
        busy = httpx.post(one_slot_url + "/qa", json={"query": "How tall is it?"}, timeout=60)
        assert slow.result().status_code in (200, 504)
    assert busy.status_code == 429
    assert int(busy.headers["retry-after"]) >= 1
    assert busy.json()["error"] == "too_many_requests"
    wait_idle(one_slot_url)


def test_a_stream_past_its_deadline_ends_with_an_error_event(strict_url: str) -> None:
    wait_idle(strict_url)
    response = httpx.post(strict_url + "/qa/verify", json=slow_verify_body(), timeout=60,
                          headers={"Accept": "text/event-stream"})
    assert response.status_code == 200
    last = response.text.strip().split("\n\n")[-1].splitlines()
    assert last[0] == "event: error"
    assert json.loads(last[1].removeprefix("data: "))["error"] == "deadline_exceeded"
    wait_idle(strict_url)
