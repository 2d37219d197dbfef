"""The Benchmarks page is written by ``docs/benchmarks_page.py`` from the result files: the
committed page must be what the script writes now, so no figure on it can go stale or be
typed by hand."""

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _module(name: str) -> ModuleType:
    if str(DOCS) not in sys.path:
        sys.path.insert(0, str(DOCS))
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return _module("benchmarks_page")


def test_the_committed_pages_are_what_the_generator_writes(generator: ModuleType,
                                                          tmp_path: Path) -> None:
    benchmarks, results = tmp_path / "benchmarks.md", tmp_path / "results.md"
    assert generator.main(["--page", str(benchmarks), "--results-page", str(results),
                           "--no-plots"]) == 0
    for written in (benchmarks, results):
        committed = (DOCS / written.name).read_bytes()
        assert written.read_bytes() == committed, (
            f"docs/{written.name} differs from what its generator writes: "
            "run python docs/benchmarks_page.py and commit the page")


def test_every_result_file_the_page_names_exists(generator: ModuleType) -> None:
    results = ROOT / "benchmarks" / "results"
    missing = [name for name in generator.FILES if not (results / name).is_file()]
    assert missing == []
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    for name in generator.FILES:
        assert f"`{name}`" in text
    results_page = _module("results_page")
    assert set(results_page.FILES) <= set(generator.FILES)
    text = (DOCS / "results.md").read_text(encoding="utf-8")
    for name in results_page.FILES:
        assert f"`benchmarks/results/{name}`" in text


def test_a_missing_result_file_fails_the_page(generator: ModuleType, tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(ROOT / "benchmarks" / "results", results)
    (results / "vector_search.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"vector_search\.json"):
        generator.render(results)


def test_every_plot_the_page_shows_is_committed(generator: ModuleType) -> None:
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    shown = sorted(set(re.findall(r"\]\((img/benchmarks/[^)]+\.png)\)", text)))
    assert shown, "the page shows no plots"
    assert [path for path in shown if not (DOCS / path).is_file()] == []


def test_prose_holds_no_number(generator: ModuleType) -> None:
    page = generator.Page(ROOT / "benchmarks" / "results")
    page.prose("The `nli` view, MiniLM and BM25 are names, not figures.")
    with pytest.raises(ValueError, match="figure typed in prose"):
        page.prose("The check reaches 0.8 balanced accuracy.")


@pytest.mark.needs_eval
def test_the_plots_are_drawn_from_the_result_files(tmp_path: Path) -> None:
    plots = _module("benchmarks_plots")
    written = plots.write_plots(ROOT / "benchmarks" / "results", tmp_path)
    assert sorted(path.name for path in written) == sorted(
        path.name for path in (DOCS / "img" / "benchmarks").glob("*.png"))
    assert all(path.stat().st_size > 0 for path in written)
