"""``veritype serve`` as a real process: it starts, logs JSON lines, answers, and stops."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from llama_support import free_port
from serve_support import wait_until_healthy

pytestmark = pytest.mark.needs_serve


@pytest.mark.slow
def test_serve_starts_answers_and_logs_json_lines(tmp_path: Path) -> None:
    port = free_port()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("VERITYPE_") or key == "VERITYPE_DATA_DIR"}
    env["VERITYPE_EVAL_DIR"] = str(tmp_path / "runs")
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "veritype", "serve", "--port", str(port),
             "--store", str(tmp_path / "store.sqlite"), "--timeout", "60", "--max-traces", "1",
             "--body-timeout", "1",
             "--allowed-host", "veritype.test", "--allowed-host", "Docs.Veritype.test:8080"],
            stdout=subprocess.DEVNULL, stderr=log, env=env, cwd=tmp_path,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(process, url, log_path)
        for host, status in (("veritype.test", 200), ("docs.veritype.test", 200),
                             (f"localhost:{port}", 200), ("attacker.example", 400)):
            assert httpx.get(url + "/healthz", headers={"Host": host}).status_code == status
        added = httpx.post(url + "/documents", timeout=60, json={"documents": [{
            "text": "Lake Baikal is the deepest lake on Earth.", "title": "Baikal"}]})
        assert added.status_code == 201
        answer = httpx.post(url + "/qa", timeout=60,
                            json={"query": "Which lake is the deepest on Earth?"}).json()
        assert "Baikal" in answer["answer"]
        assert httpx.get(url + "/evals").json() == []
        later = httpx.post(url + "/qa", timeout=60, json={"query": "How deep is Lake Baikal?"})
        # --max-traces 1: the later answer's trace is kept, the first one's is gone.
        assert httpx.get(url + f"/traces/{later.json()['trace_id']}").status_code == 200
        assert httpx.get(url + f"/traces/{answer['trace_id']}").status_code == 404
        # --body-timeout 1: a body that stops coming is answered 408 and its connection closed.
        with socket.create_connection(("127.0.0.1", port), timeout=30) as stalled:
            stalled.sendall(b"POST /qa HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            started = time.monotonic()
            answered = b""
            while chunk := stalled.recv(65536):
                answered += chunk
            assert answered.startswith(b"HTTP/1.1 408")
            assert time.monotonic() - started < 2.5
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    assert any(line["level"] == "warning" and "no API keys" in line["message"]
               for line in lines)
    asked = next(line for line in lines if line.get("path") == "/qa")
    assert asked["query_id"] == answer["trace_id"] and asked["status"] == 200
    assert asked["claims"]["verified"] >= 1 and asked["latency_ms"] > 0


@pytest.mark.parametrize(("option", "value"), [("--trace-ttl", "0"), ("--max-traces", "-1")])
def test_serve_refuses_a_retention_it_cannot_keep(tmp_path: Path, option: str, value: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "veritype", "serve", "--port", "0", option, value,
         "--store", str(tmp_path / "store.sqlite")],
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )
    assert result.returncode == 2
    assert option.removeprefix("--").replace("-", "_") in result.stderr
    assert not (tmp_path / "store.sqlite").exists()


def test_serve_refuses_a_model_path_that_is_no_file(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "veritype", "serve", "--port", "0", "--model-path",
         str(tmp_path / "absent.gguf"), "--store", str(tmp_path / "store.sqlite")],
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )
    assert result.returncode == 2
    assert f"--model-path {tmp_path / 'absent.gguf'}: no such model file" in result.stderr
