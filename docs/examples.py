"""The code blocks of the README and the documentation pages, and how they are run.

Every fenced ``bash`` and ``python`` block of ``README.md`` and ``docs/**/*.md`` is run by
``tests/test_readme.py``, except the few ``NOT_RUN`` names with a reason. A block may be
followed by an ``output`` block: what the block prints on stdout. The test runs the block
and compares; in the expected text ``…`` stands for any characters within a line, and a line
holding only ``…`` for any number of lines (an abridged part); a score (a number with two or
more decimals) matches a printed one within ``SCORE_TOLERANCE``.

    python docs/examples.py            # run every block, report the outputs that differ
    python docs/examples.py --write    # ... and write what each block printed into its
                                       # output block (then abridge by hand with …)

Each page runs in a folder of its own that sees the repository's ``examples/`` and
``benchmarks/``; the folders share one ``.veritype/``, so the demo corpus is ingested once.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Pages written by ``veritype eval`` runs; they hold no runnable blocks.
GENERATED_REPORTS = ROOT / "docs" / "results"

# Blocks that are not run, and why (a block is left out when its code holds the key).
NOT_RUN = {
    "pip install": "installs packages: CI installs them in lanes of its own",
    "llama_cpp.server": "starts a server",
    "veritype serve": "starts a server",
    "127.0.0.1:8000": "needs a running veritype serve",
    "judge.base_url": "needs an OpenAI-compatible judge server",
    "127.0.0.1:8080": "needs an OpenAI-compatible judge server",
    "ray start": "starts a Ray cluster on several machines",
    "postgresql://": "needs a PostgreSQL server: tests/store runs the PostgreSQL store",
    "veritype train": "trains a model for hours",
    "veritype eval": "full benchmark runs, minutes each: tests/evaluation runs them on samples",
    "hub-id": "downloads a model from a hub",
    "benchmarks/ingest_ray_scifact.py": "ingests the whole SciFact corpus twice, an hour",
    "benchmarks/vector_search_1m.py": "builds search indexes over a million vectors, hours",
}
# Blocks that need an extra beyond the core install: the test marker that says so.
NEEDS = {"--generator local": "needs_llama", "--tad": "needs_llama", "load_llama": "needs_llama",
         "--engine ray": "needs_ray"}
# Blocks that import a library the reader brings (the core lane has none of them).
NEEDS_LIBRARY = {"import pandas": "pandas"}
# The terminal width the blocks run at (the rich tables and the output blocks follow it).
COLUMNS = "100"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the block's first code line, counting from 1
    language: str
    code: str
    output: str | None  # the output block that follows it, if any
    output_line: int | None = None  # of the output block's first line

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def left_out(self) -> str | None:
        """Why the block is not run, or None when it is."""
        return next((why for key, why in NOT_RUN.items() if key in self.code), None)


def pages() -> list[Path]:
    """README.md, then every documentation page in path order."""
    docs = sorted(path for path in (ROOT / "docs").rglob("*.md")
                  if GENERATED_REPORTS not in path.parents)
    return [ROOT / "README.md", *docs]


def fenced(page: Path) -> list[tuple[int, str, str]]:
    """Every fenced block of a page: (first code line, info string, dedented code)."""
    found = []
    lines = page.read_text().splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"^( *)```(\S*)\s*$", lines[index])
        index += 1
        if not opening:
            continue
        indent, start, body = len(opening.group(1)), index, []
        while not lines[index].strip().startswith("```"):
            body.append(lines[index][indent:])
            index += 1
        index += 1
        found.append((start + 1, opening.group(2), "\n".join(body)))
    return found


def blocks(page: Path) -> list[Block]:
    """The page's ``bash`` and ``python`` blocks, each with the output block after it."""
    found: list[Block] = []
    text = page.read_text().splitlines()
    previous_info = None
    for line, info, code in fenced(page):
        if info == "output":
            # An output block belongs to the code block right before it, with at most one
            # line of prose between them.
            previous = found[-1] if found and previous_info in {"bash", "python"} else None
            between = [] if previous is None else [
                row for row in text[previous.line + previous.code.count("\n") + 1:line - 2]
                if row.strip()]
            if previous is None or len(between) > 1:
                raise ValueError(f"{page.relative_to(ROOT)}:{line}: an output block must "
                                 "follow the code block whose output it shows")
            found[-1] = Block(previous.page, previous.line, previous.language, previous.code,
                              code, line)
        elif info in {"bash", "python"}:
            found.append(Block(page, line, info, code, None))
        previous_info = info
    return found


def every_block() -> list[Block]:
    return [block for page in pages() for block in blocks(page)]


def environment() -> dict[str, str]:
    """The environment blocks run in: no VERITYPE_ settings of the caller, the veritype
    command of the Python running this, a fixed terminal width."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("VERITYPE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = COLUMNS
    return env


def page_folder(base: Path, page: Path) -> Path:
    """The working folder of ``page`` under ``base`` (made on first use)."""
    name = "-".join(page.relative_to(ROOT).with_suffix("").parts)
    folder = base / name
    if not folder.exists():
        folder.mkdir(parents=True)
        for linked in ("examples", "benchmarks"):
            (folder / linked).symlink_to(ROOT / linked)
        shared = base / "shared-veritype"
        shared.mkdir(exist_ok=True)
        (folder / ".veritype").symlink_to(shared)
    return folder


def run(block: Block, folder: Path) -> subprocess.CompletedProcess[str]:
    command = (["bash", "-euo", "pipefail", "-c", block.code] if block.language == "bash"
               else [sys.executable, "-c", block.code])
    return subprocess.run(command, cwd=folder, env=environment(), capture_output=True,
                          text=True, timeout=600)


# A score printed with two or more decimals matches within this much: the shipped int8 models
# round differently on CPUs with VNNI (exact int8 dot products) and without (AVX2's pairwise
# sums saturate), by up to about 0.03 on the pages' examples.
SCORE_TOLERANCE = 0.05
_SCORE = re.compile(r"\d+\.\d{2,}")


def _escaped(piece: str, scores: list[float]) -> str:
    """``piece`` as a pattern, each score in it a group whose printed value is checked."""
    parts, start = [], 0
    for score in _SCORE.finditer(piece):
        parts += [re.escape(piece[start:score.start()]), r"(\d+\.\d+)"]
        scores.append(float(score.group(0)))
        start = score.end()
    return "".join(parts) + re.escape(piece[start:])


def _pattern(expected: str) -> tuple[re.Pattern[str], list[float]]:
    parts: list[str] = []
    scores: list[float] = []
    for line in expected.rstrip("\n").splitlines():
        line = line.rstrip()
        if line == "…":
            parts.append("(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(_escaped(piece, scores) for piece in line.split("…")) + "\n")
    return re.compile("".join(parts)), scores


def output_matches(expected: str, printed: str) -> bool:
    """Whether ``printed`` is what ``expected`` shows (``…`` as described above; a score,
    a number with two or more decimals, within ``SCORE_TOLERANCE``)."""
    lines = [line.rstrip() for line in printed.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    pattern, scores = _pattern(expected)
    found = pattern.fullmatch("".join(f"{line}\n" for line in lines))
    return found is not None and all(
        abs(float(printed_score) - score) <= SCORE_TOLERANCE
        for printed_score, score in zip(found.groups(), scores, strict=True))


def _write_output(block: Block, printed: str) -> None:
    assert block.output_line is not None
    lines = block.page.read_text().splitlines()
    start = block.output_line - 1
    end = start + (block.output or "").count("\n") + (1 if block.output else 0)
    shown = [line.rstrip() for line in printed.rstrip("\n").splitlines()]
    lines[start:end] = shown
    block.page.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="write what each block printed into its output block")
    parser.add_argument("--page", action="append", default=[],
                        help="only the pages whose path holds this (repeatable)")
    args = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for page in pages():
            if args.page and not any(part in str(page) for part in args.page):
                continue
            # Later blocks of a page move lines when an output is written: read afresh.
            count = len(blocks(page))
            for position in range(count):
                block = blocks(page)[position]
                if block.left_out:
                    print(f"{block.where}: not run ({block.left_out})")
                    continue
                result = run(block, page_folder(Path(scratch), page))
                status = "ok" if result.returncode == 0 else f"exit {result.returncode}"
                if block.output is not None and not output_matches(block.output, result.stdout):
                    status += ", output differs"
                    if args.write:
                        _write_output(block, result.stdout)
                        status += " (written)"
                failed += status != "ok"
                print(f"{block.where}: {status}")
                if result.returncode != 0:
                    print(result.stderr[-3000:])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
