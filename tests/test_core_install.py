"""The core install: every command that needs no extra runs without torch, FastAPI,
transformers, llama.cpp, PostgreSQL's driver or Ray, and every command that needs one exits
with code 2 and one line naming it.

Each command runs in a fresh process in which those packages cannot be imported (as on a
``pip install .`` without extras), with an empty model cache, so the fused embedder is derived
from scratch as on a new machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import veritype

ROOT = Path(__file__).resolve().parents[1]
EXTRAS_ONLY = ("torch", "fastapi", "starlette", "uvicorn", "transformers", "llama_cpp",
               "psycopg", "pgvector", "ray", "matplotlib", "httpx")
# A module set to None in sys.modules cannot be imported, and find_spec reports it absent.
RUN_WITHOUT_EXTRAS = (
    "import sys\n"
    f"for name in {EXTRAS_ONLY!r}:\n"
    "    sys.modules[name] = None\n"
    "from veritype.cli import main\n"
    "sys.argv = ['veritype', *sys.argv[1:]]\n"
    "main()\n"
)


def core_cli(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("VERITYPE_")}
    env.update(VERITYPE_CACHE_DIR=str(cache), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT_EXTRAS, *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=600,
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("core")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


def test_help_and_version_need_no_extra(workdir: Path, cache: Path) -> None:
    shown = core_cli("--help", cwd=workdir, cache=cache)
    assert shown.returncode == 0, shown.stderr
    assert "ask" in shown.stdout and "serve" in shown.stdout
    version = core_cli("--version", cwd=workdir, cache=cache)
    assert version.returncode == 0 and version.stdout.strip() == f"veritype {veritype.__version__}"
    help_text = " ".join(core_cli("ask", "--help", cwd=workdir, cache=cache).stdout.split())
    for default in ("extractive", "the default aggregator's", "[default: (numeric,nli)]"):
        assert default in help_text


@pytest.mark.slow
def test_ingest_ask_search_and_verify_run_on_the_core_install(workdir: Path, cache: Path) -> None:
    store = f"sqlite:///{workdir / 'store.sqlite'}"
    evidence = str(ROOT / "examples" / "eiffel" / "evidence.txt")
    ingested = core_cli("ingest", evidence, "--store", store, cwd=workdir, cache=cache)
    assert ingested.returncode == 0, ingested.stderr
    # The fused int8 embedder was derived without torch.
    assert list((cache / "models").glob("*-fused-int8-v1.onnx"))

    asked = core_cli("ask", "When did the Eiffel Tower open?", "--store", store,
                     cwd=workdir, cache=cache)
    assert asked.returncode == 0, asked.stderr
    answer = next(line for line in asked.stdout.splitlines() if line.startswith("Answer:"))
    assert "31 March 1889" in answer and "[1]" in answer
    assert "[1] evidence.txt" in asked.stdout

    found = core_cli("search", "Eiffel Tower height", "--store", store, cwd=workdir, cache=cache)
    assert found.returncode == 0 and "evidence.txt" in found.stdout
    listed = core_cli("documents", "list", "--store", store, cwd=workdir, cache=cache)
    assert listed.returncode == 0 and "evidence.txt" in listed.stdout
    checked = core_cli("verify", "--evidence", evidence, "--answer",
                       "The Eiffel Tower opened on 31 March 1889.", cwd=workdir, cache=cache)
    assert checked.returncode == 0 and "Verified" in checked.stdout


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["serve"], "serve"),
        (["generate", "When did the tower open?", "--generator", "local", "--evidence",
          str(ROOT / "examples" / "eiffel" / "evidence.txt")], "llm"),
        (["train", "verifier", "--config", str(ROOT / "configs" / "nli.toml"), "--data-dir",
          str(ROOT)], "train"),
        (["eval", "truthfulqa", "--engine", "ray", "--data-dir", str(ROOT)], "ray"),
        (["ask", "When did the tower open?", "--store", "postgresql://localhost/veritype"], "pg"),
        (["documents", "list", "--store", "postgresql://localhost/veritype"], "pg"),
    ],
)
def test_a_command_that_needs_an_extra_names_it_in_one_line(
    args: list[str], extra: str, workdir: Path, cache: Path
) -> None:
    result = core_cli(*args, cwd=workdir, cache=cache)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert f'"veritype[{extra}]"' in lines[0] or f'".[{extra}]"' in lines[0]
