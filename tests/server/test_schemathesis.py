"""Property-based API testing: schemathesis generates requests from the served OpenAPI
document (valid and invalid ones) and checks that none gets a server error."""

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


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A service of its own: the fuzzer adds and deletes documents."""
    work = tmp_path_factory.mktemp("fuzz")
    with make_engine(work / "store.sqlite") as engine:
        app = create_app(engine, ServerSettings(eval_dir=work / "eval-runs", request_timeout=30))
        with running(app) as url:
            yield url


@pytest.mark.slow
def test_no_generated_request_gets_a_server_error(fuzz_url: str, tmp_path: Path) -> None:
    executable = shutil.which("schemathesis") or shutil.which("st")
    command = [executable] if executable else [sys.executable, "-m", "schemathesis.cli"]
    result = subprocess.run(
        [
            *command, "run", f"{fuzz_url}/openapi.json",
            "--checks", "not_a_server_error,response_schema_conformance",
            "--phases", "examples,coverage,fuzzing",
            "--max-examples", "6",
            "--max-time", "35",
            "--seed", "7",
            "--workers", "1",
            "--generation-database", "none",
            "--request-timeout", "30",
            "--suppress-health-check", "all",
            "--no-color",
        ],
        capture_output=True, text=True, timeout=150, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "passed" in result.stdout.lower()
