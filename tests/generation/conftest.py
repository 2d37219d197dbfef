import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_support import free_port, llama_cpp_server

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


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    return free_port()


@pytest.fixture(scope="session")
def llama_server(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real llama.cpp OpenAI-compatible server on loopback, serving SmolLM2; its base URL."""
    with llama_cpp_server(smollm2_path, tmp_path_factory.mktemp("llama_server")) as base_url:
        yield base_url
