"""A real llama.cpp OpenAI-compatible server for the tests that need one, and free ports."""

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def llama_cpp_server(model_path: Path, log_dir: Path) -> Iterator[str]:
    """A real llama.cpp OpenAI-compatible server on loopback serving ``model_path``; yields
    its base URL (``http://127.0.0.1:PORT/v1``)."""
    missing = [name for name in ("fastapi", "uvicorn", "sse_starlette", "starlette_context")
               if importlib.util.find_spec(name) is None]
    if missing:
        pytest.fail(f"the llama.cpp server needs {', '.join(missing)}")
    import httpx

    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model_path),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2",
    ]
    environment = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    # The server logs a lot while loading; a file, unlike a pipe, never fills up and blocks it.
    log = log_dir / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT,
                                  env=environment)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            if server.poll() is not None:
                pytest.fail(f"the llama.cpp server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).is_success:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("the llama.cpp server did not start within 120 s")
            time.sleep(0.3)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

