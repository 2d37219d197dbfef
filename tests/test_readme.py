import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_example_prints_what_its_comments_say() -> None:
    code = re.search(r"```python\n(.*?)```", README, re.S)
    assert code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.group(1), {})
    expected = re.findall(r"# (.+)$", code.group(1), re.M)
    assert out.getvalue().splitlines() == expected


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quick_start, re.S)
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)
    ci = (ROOT / ".ci" / "run").read_text()
    # CI runs the README's test command as printed, with no build settings of its own.
    assert 'tests="$(quick_start_command 1)"' in ci and "CMAKE_ARGS" not in ci
    assert f"{commands[1]}   # tests" in README.split("## Development", 1)[1].splitlines()


# README blocks that are not run here, and why.
NOT_RUN = {
    "pip install": "installs packages: CI runs the quick start's commands in their own lanes",
    "llama_cpp.server": "starts a server",
    "veritype train": "trains a model for hours",
    "veritype eval": "full benchmark runs, minutes each: tests/evaluation runs them on samples",
    "hub-id": "downloads a model from a hub",
}
NEEDS_LLAMA = ("--generator local", "--tad", "load_llama")
# Blocks that import a library the reader brings (the core lane has none of them).
NEEDS_LIBRARY = {"import pandas": "pandas"}


def readme_blocks() -> list[tuple[int, str, str]]:
    """Every fenced ``bash`` or ``python`` block: (line, language, dedented code)."""
    blocks = []
    lines = README.splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"^( *)```(bash|python)\s*$", lines[index])
        index += 1
        if not opening:
            continue
        indent, start, body = len(opening.group(1)), index, []
        while not lines[index].strip().startswith("```"):
            body.append(lines[index][indent:])
            index += 1
        index += 1
        blocks.append((start, opening.group(2), "\n".join(body)))
    return blocks


def _block_params() -> list[object]:
    params: list[object] = []
    for line, language, code in readme_blocks():
        if any(marker in code for marker in NOT_RUN):
            continue
        marks = [pytest.mark.needs_llama] if any(m in code for m in NEEDS_LLAMA) else []
        marks += [pytest.mark.skipif(importlib.util.find_spec(module) is None,
                                     reason=f"the block imports {module}: pip install {module}")
                  for marker, module in NEEDS_LIBRARY.items() if marker in code]
        params.append(pytest.param(language, code, marks=marks, id=f"line-{line}"))
    return params


@pytest.fixture(scope="module")
def readme_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh working folder that sees the repository's examples and benchmark data."""
    folder = tmp_path_factory.mktemp("readme")
    for name in ("examples", "benchmarks"):
        (folder / name).symlink_to(ROOT / name)
    return folder


def test_only_a_few_readme_blocks_are_left_out() -> None:
    skipped = [code for _, _, code in readme_blocks() if any(m in code for m in NOT_RUN)]
    assert skipped and len(skipped) < len(readme_blocks()) // 2


@pytest.mark.slow
@pytest.mark.parametrize(("language", "code"), _block_params())
def test_readme_block_runs(readme_dir: Path, language: str, code: str) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("VERITYPE_")}
    # The veritype command of the Python running the tests, whichever environment that is.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "120"
    command = (["bash", "-euo", "pipefail", "-c", code] if language == "bash"
               else [sys.executable, "-c", code])
    result = subprocess.run(command, cwd=readme_dir, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr


def readme_test_file() -> str:
    """The README's pytest example."""
    found = [code for _, language, code in readme_blocks()
             if language == "python" and "assert_faithful(" in code]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize(("answer", "passes"), [("1937", True), ("1883", False)])
def test_the_readme_pytest_example_passes_and_fails_as_it_should(
        tmp_path: Path, answer: str, passes: bool) -> None:
    code = readme_test_file()
    assert "opened in 1937." in code
    (tmp_path / "test_answers.py").write_text(code.replace("opened in 1937.",
                                                           f"opened in {answer}."))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "test_answers.py"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600)
    if passes:
        assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout[-2000:]
    else:
        assert result.returncode == 1 and "1 failed" in result.stdout, result.stdout[-2000:]
        assert "claim says 1883, evidence says 1937" in result.stdout
