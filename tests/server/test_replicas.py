"""Two ``veritype serve`` processes over one PostgreSQL store answer as one service: what is
written through either is found by the other, without a restart."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from llama_support import free_port
from pg_support import fresh_database
from serve_support import wait_until_healthy

pytestmark = [pytest.mark.needs_serve, pytest.mark.needs_pg, pytest.mark.slow]

BAIKAL = {"text": "Lake Baikal in Siberia is the deepest lake on Earth, 1,642 metres deep.",
          "title": "Lake Baikal", "source": "encyclopedia/baikal"}
QUESTION = {"query": "Which lake is the deepest on Earth?"}


def _serve(store: str, folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    folder.mkdir()
    port = free_port()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("VERITYPE_") or key == "VERITYPE_DATA_DIR"}
    with (folder / "serve.log").open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "veritype", "serve", "--port", str(port), "--store", store,
             "--timeout", "60"],
            stdout=subprocess.DEVNULL, stderr=log, env=env, cwd=folder,
        )
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture
def replicas(postgres_admin_url: str, tmp_path: Path) -> Iterator[list[str]]:
    """Two replicas over one fresh database, each in its own folder (so each keeps its own
    BM25 index, as on two machines)."""
    store = fresh_database(postgres_admin_url)
    started = [_serve(store, tmp_path / name) for name in ("a", "b")]
    try:
        for (process, url), name in zip(started, ("a", "b"), strict=True):
            wait_until_healthy(process, url, tmp_path / name / "serve.log")
        yield [url for _, url in started]
    finally:
        for process, _ in started:
            process.send_signal(signal.SIGINT)
        for process, _ in started:
            process.wait(timeout=30)


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(url, json=body, timeout=60)
    assert response.status_code in (200, 201), response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_a_document_added_through_one_replica_is_found_by_the_other(
    replicas: list[str],
) -> None:
    first, second = replicas
    # The second replica answers first, so its indexes are built before the document exists.
    assert "Baikal" not in _post(second + "/qa", QUESTION)["answer"]
    added = _post(first + "/documents", {"documents": [BAIKAL]})
    doc_id = added["documents"][0]["doc_id"]

    answers = [_post(url + "/qa", QUESTION) for url in (second, first)]
    assert "Baikal" in answers[0]["answer"]
    assert [answer["answer"] for answer in answers] == [answers[0]["answer"]] * 2
    assert [[ref["doc_id"] for ref in answer["references"]] for answer in answers] == [
        [doc_id]] * 2
    assert httpx.get(f"{second}/documents/{doc_id}").status_code == 200

    # A deletion through the second is seen by the first.
    assert httpx.delete(f"{second}/documents/{doc_id}").status_code == 204
    assert "Baikal" not in _post(first + "/qa", QUESTION)["answer"]
