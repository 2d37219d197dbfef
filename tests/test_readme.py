"""The README and the documentation pages: every code block runs and prints what the page
shows, the quick start is what CI runs, the links lead somewhere, and the reference pages
name every command, option, export and endpoint the code has."""

import contextlib
import importlib.util
import io
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


examples = _load("veritype_docs_examples", ROOT / "docs" / "examples.py")
reference = _load("veritype_docs_reference", ROOT / "docs" / "reference" / "generate.py")


def test_the_readme_is_read_in_ten_minutes() -> None:
    assert len(README.splitlines()) <= 250


def test_python_example_prints_what_its_comments_say() -> None:
    [code] = [block.code for block in examples.blocks(ROOT / "README.md")
              if block.language == "python" and "verify_answer(" in block.code]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    expected = re.findall(r"# (.+)$", code, re.M)
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


def test_only_a_few_blocks_are_left_out() -> None:
    every = examples.every_block()
    skipped = [block for block in every if block.left_out]
    assert skipped and len(skipped) < len(every) // 2
    # What a block prints is shown only where the test runs the block.
    assert not [block.where for block in skipped if block.output is not None]


def _block_params() -> list[object]:
    params: list[object] = []
    for block in examples.every_block():
        if block.left_out:
            continue
        marks = [getattr(pytest.mark, need) for need in
                 sorted({need for key, need in examples.NEEDS.items() if key in block.code})]
        marks += [pytest.mark.skipif(importlib.util.find_spec(module) is None,
                                     reason=f"the block imports {module}: pip install {module}")
                  for marker, module in examples.NEEDS_LIBRARY.items() if marker in block.code]
        params.append(pytest.param(block, marks=marks, id=block.where))
    return params


@pytest.fixture(scope="module")
def example_folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each page's blocks run, in a folder of its own (see docs/examples.py)."""
    return tmp_path_factory.mktemp("examples")


@pytest.mark.slow
@pytest.mark.parametrize("block", _block_params())
def test_block_runs_and_prints_what_the_page_shows(example_folders: Path, block: object) -> None:
    result = examples.run(block, examples.page_folder(example_folders, block.page))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    if block.output is not None:
        assert examples.output_matches(block.output, result.stdout), result.stdout


def test_output_wildcards() -> None:
    shown = "Answer: The tower [1].\n…\ntrace … · … s\n"
    assert examples.output_matches(shown, "Answer: The tower [1].\nx\ny\ntrace ab · 2.1 s\n\n")
    assert examples.output_matches(shown, "Answer: The tower [1].\ntrace ab · 2.1 s")
    assert not examples.output_matches(shown, "Answer: The tower [2].\ntrace ab · 2.1 s")


def test_a_score_matches_within_the_tolerance_and_other_numbers_exactly() -> None:
    shown = "│ c1 │ Verified │ 0.66 │ 1889 │\nmedium 0.9568\n"
    assert examples.output_matches(shown, "│ c1 │ Verified │ 0.67 │ 1889 │\nmedium 0.9559\n")
    assert not examples.output_matches(shown, "│ c1 │ Verified │ 0.74 │ 1889 │\nmedium 0.9568\n")
    assert not examples.output_matches(shown, "│ c1 │ Verified │ 0.66 │ 1890 │\nmedium 0.9568\n")
    assert not examples.output_matches(shown, "│ c1 │ Unsupported │ 0.66 │ 1889 │\nmedium 0.96\n")


def pytest_examples() -> list[tuple[str, str | None]]:
    """The pytest example (the same file wherever a page shows it), with the failure the page
    shows after it."""
    found: dict[str, str | None] = {}
    for page in examples.pages():
        raw = examples.fenced(page)
        for position, (_, info, code) in enumerate(raw):
            if info == "python" and "assert_faithful(" in code:
                after = raw[position + 1] if position + 1 < len(raw) else None
                shown = after[2] if after and after[1] == "text" else None
                found[code] = found.get(code) or shown
    assert len(found) == 1
    return list(found.items())


@pytest.mark.parametrize(("answer", "passes"), [("1937", True), ("1883", False)])
def test_the_pytest_example_passes_and_fails_as_the_page_shows(
        tmp_path: Path, answer: str, passes: bool) -> None:
    [(code, shown)] = pytest_examples()
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
        # The failure the page shows is the one pytest prints.
        assert shown is not None
        printed = " ".join(result.stdout.split())
        for line in shown.splitlines():
            if line.startswith("E "):
                assert " ".join(line.split()) in printed, line


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown page."""
    anchors = set()
    in_code = False
    for line in page.read_text().splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        heading = re.match(r"#+ (.+)", line)
        if heading and not in_code:
            text = heading.group(1).strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return anchors


def test_every_link_between_pages_leads_somewhere() -> None:
    broken = []
    for page in examples.pages():
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken


def _flags(names: str) -> set[str]:
    """The option names (or argument name) of a --help record's first column."""
    return {piece.split()[0] for part in names.split(" / ") for piece in part.split(", ")}


def _page_sections(page: Path) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", page.read_text(), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_cli_reference_names_every_command_and_option() -> None:
    sections = _page_sections(ROOT / "docs" / "reference" / "cli.md")
    commands = reference.cli_commands()
    assert set(sections) == {name for name, _ in commands}
    for name, command in commands:
        shown = {flag for row in re.findall(r"^\| `(.+?)` \|", sections[name], re.M)
                 for flag in _flags(row)}
        assert shown == {flag for names, _ in reference.cli_parameters(name, command)
                         for flag in _flags(names)}, name


def test_the_python_reference_names_every_export() -> None:
    sections = _page_sections(ROOT / "docs" / "reference" / "python.md")
    assert set(sections) == {name for name, _ in reference.python_objects()}


@pytest.mark.needs_serve
def test_the_http_reference_names_every_endpoint() -> None:
    page = (ROOT / "docs" / "reference" / "http.md").read_text()
    shown = set(re.findall(r"^\| `([A-Z]+ /\S*)` \|", page, re.M))
    assert shown == {f"{method} {path}" for method, path, _ in
                     reference.http_operations(reference.openapi())}
