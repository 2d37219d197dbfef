"""The llama.cpp build check: a child process loads the model and decodes one token before
veritype does, so a build that crashes on this CPU ends in an error with the way out."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from veritype import _llama
from veritype._llama import check_llama_build, default_model_path, portable_cmake_args

ROOT = Path(__file__).resolve().parents[1]

# A llama_cpp that crashes at its first decode, as a -march=native build does on a VM that
# reports AMX without granting it.
CRASHING_LLAMA_CPP = '''
import os
import signal

__version__ = "0.3.36"


class Llama:
    def __init__(self, **options):
        pass

    def tokenize(self, text, **options):
        return [1, 2, 3]

    def eval(self, tokens):
        os.kill(os.getpid(), signal.SIGSEGV)
'''


@pytest.fixture
def crashing_build(tmp_path: Path) -> dict[str, str]:
    """The environment of a veritype whose llama_cpp crashes, with its model cache in
    ``tmp_path/cache``."""
    package = tmp_path / "site" / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(CRASHING_LLAMA_CPP)
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("VERITYPE_")}
    environment.update(PYTHONPATH=str(tmp_path / "site"), COLUMNS="200",
                       VERITYPE_CACHE_DIR=str(tmp_path / "cache"))
    return environment


def veritype(environment: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "veritype", *arguments], env=environment,
                          capture_output=True, text=True, timeout=300, check=False)


def assert_crash_reported(result: subprocess.CompletedProcess[str], model: Path) -> None:
    assert result.returncode == 2, result.stderr
    error = " ".join(result.stderr.split())
    assert f"llama.cpp crashed (SIGSEGV) loading {model} and decoding one token" in error
    # The installed version is pinned where llama-cpp-python is installed (not in the core
    # lane, where only the stand-in below exists).
    assert (f'CMAKE_ARGS="{portable_cmake_args()}" {sys.executable} -m pip install '
            "--force-reinstall --no-deps --no-cache-dir llama-cpp-python") in error
    assert "Traceback" not in result.stderr


def test_generate_exits_2_with_the_rebuild_command_when_llama_cpp_crashes(
        crashing_build: dict[str, str], tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    evidence = tmp_path / "evidence.txt"
    evidence.write_text("37 + 48 = 85.")
    result = veritype(crashing_build, "generate", "What is 37 + 48?", "--generator", "local",
                      "--model-path", str(model), "--evidence", str(evidence))
    assert_crash_reported(result, model)


def test_the_judge_view_exits_2_with_the_rebuild_command_when_llama_cpp_crashes(
        crashing_build: dict[str, str], tmp_path: Path) -> None:
    model = tmp_path / "cache" / "models" / "qwen2.5-coder-1.5b-instruct-q4.gguf"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"GGUF")
    evidence = tmp_path / "evidence.txt"
    evidence.write_text("37 + 48 = 85.")
    result = veritype(crashing_build, "verify", "--evidence", str(evidence), "--answer",
                      "37 + 48 is 85.", "--views", "judge")
    assert_crash_reported(result, model)


def test_the_rebuild_builds_as_the_docs_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    guide = (ROOT / "docs" / "how-to" / "local-llm.md").read_text()
    assert f'CMAKE_ARGS="{portable_cmake_args()}" python -m pip install ".[llm]"' in guide
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert f'`CMAKE_ARGS="{portable_cmake_args()}"`' in guide


def test_the_check_can_be_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VERITYPE_SKIP_LLAMA_PROBE", "1")
    monkeypatch.setattr(subprocess, "run", pytest.fail)
    check_llama_build(tmp_path / "model.gguf")


@pytest.mark.needs_llama
def test_smollm2_passes_once_per_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VERITYPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_llama, "_CHECKED", set())
    check_llama_build(default_model_path())
    [stamp] = (tmp_path / "models" / "llama-probe").iterdir()
    assert str(default_model_path().resolve()) in stamp.read_text()

    # A new process (nothing checked yet) trusts the stamp: no child process again.
    monkeypatch.setattr(_llama, "_CHECKED", set())
    monkeypatch.setattr(subprocess, "run", pytest.fail)
    check_llama_build(default_model_path())
