from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_support import llama_cpp_server


@pytest.fixture(scope="session")
def judge_server(judge_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real llama.cpp OpenAI-compatible server on loopback serving the judge model."""
    with llama_cpp_server(judge_model, tmp_path_factory.mktemp("judge_server")) as base_url:
        yield base_url
