import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from veritype.evidence import Chunk, Document, chunk_document

EIFFEL = (
    "The Eiffel Tower in Paris was opened on 31 March 1889. It is 330 metres tall. "
    "The tower was built by the company of Gustave Eiffel for the World's Fair."
)


@pytest.fixture(scope="session")
def eiffel() -> list[Chunk]:
    return chunk_document(Document.from_text(EIFFEL, title="eiffel"))


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    # Located, not imported: the generator sets llama.cpp's threading up before it loads.
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail("llama-cpp-python (the llm extra) is not installed")
    from veritype.generation.local import default_model_path

    return default_model_path()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    return free_port()


@pytest.fixture(scope="session")
def llama_server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real llama.cpp OpenAI-compatible server on loopback, serving SmolLM2; its base URL."""
    missing = [name for name in ("fastapi", "uvicorn", "sse_starlette", "starlette_context")
               if importlib.util.find_spec(name) is None]
    if missing:
        pytest.fail(f"the llama.cpp server needs {', '.join(missing)}")
    import httpx

    port = free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2",
    ]
    environment = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    # The server logs a lot while loading; a file, unlike a pipe, never fills up and blocks it.
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT,
                                  env=environment)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 90
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
                pytest.fail("the llama.cpp server did not start within 90 s")
            time.sleep(0.3)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
