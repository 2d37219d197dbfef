"""Property-based API testing: schemathesis generates requests from the served OpenAPI
document (valid and invalid ones) and runs every check it has, so a request the document
allows must be accepted, one it forbids refused, and every answer must be as documented."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_engine, running

from veritype.server import ServerSettings, create_app

pytestmark = pytest.mark.needs_serve

pytest.importorskip("schemathesis")

KEY = "fuzz-key"
# The statuses that answer what a schema cannot state, each with its reason.
CONFIG = Path(__file__).with_name("schemathesis.toml")


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory: pytest.TempPathFactory, eval_dir: Path) -> Iterator[str]:
    """A keyed service of its own (the fuzzer adds and deletes documents), so that the
    checks of ignored keys run too."""
    work = tmp_path_factory.mktemp("fuzz")
    with make_engine(work / "store.sqlite") as engine:
        settings = ServerSettings(eval_dir=eval_dir, request_timeout=30, api_keys=(KEY,))
        with running(create_app(engine, settings)) as url:
            yield url


@pytest.mark.slow
def test_every_check_passes_on_generated_requests(fuzz_url: str, tmp_path: Path) -> None:
    executable = shutil.which("schemathesis") or shutil.which("st")
    command = [executable] if executable else [sys.executable, "-m", "schemathesis.cli"]
    result = subprocess.run(
        [
            *command, "--config-file", str(CONFIG), "run", f"{fuzz_url}/openapi.json",
            "--checks", "all",
            "--header", f"Authorization: Bearer {KEY}",
            "--phases", "examples,coverage,fuzzing,stateful",
            "--max-examples", "15",
            "--max-time", "45",
            "--seed", "7",
            "--workers", "1",
            "--generation-database", "none",
            "--request-timeout", "30",
            "--suppress-health-check", "all",
            "--no-color",
        ],
        capture_output=True, text=True, timeout=150, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    assert "passed" in result.stdout.lower()
