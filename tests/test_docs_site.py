"""The documentation site's navigation (mkdocs.yml) against the pages in docs/, without
building the site: CI's ``mkdocs build --strict`` checks the links within pages."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def nav_pages(config: str) -> list[str]:
    """The page paths the ``nav:`` of a mkdocs.yml names, in order.

    The nav is a list of ``- path.md`` and ``- Title: path.md`` lines; read as lines, the
    check needs no YAML library in the core install.
    """
    nav = config.split("\nnav:\n", 1)[1]
    nav = re.split(r"\n(?=\S)", nav, maxsplit=1)[0]  # up to the next top-level key
    return re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", nav, re.M)


def test_nav_pages_reads_both_entry_forms() -> None:
    config = "site_name: x\nnav:\n  - Home: README.md\n  - Guides:\n      - how-to/a.md\ntheme: y\n"
    assert nav_pages(config) == ["README.md", "how-to/a.md"]


def test_every_page_is_in_the_nav_once_and_the_nav_names_only_pages() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    assert re.search(r"^docs_dir: docs$", config, re.M)
    named = nav_pages(config)
    assert len(named) == len(set(named)), "a page is in the nav twice"
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert sorted(set(named) - pages) == [], "the nav names pages that do not exist"
    assert sorted(pages - set(named)) == [], "pages missing from the nav"


def test_ci_builds_the_site_strictly() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python -m pip install -q -e ".[docs]"' in ci
    assert "python -m mkdocs build --strict" in ci
