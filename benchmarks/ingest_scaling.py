"""How reading, sentence splitting and chunking scale with the size of one document.

Files of 1, 10 and 50 MB are made of real prose (HaluEval knowledge paragraphs, repeated),
of the same prose kept to ASCII, and of the prose with every sentence end and line break
removed (one unpunctuated line). CPython holds a text at 1, 2 or 4 bytes per character,
by its widest character: the prose has a few emoji, so it is held at 4 bytes per
character, and its peak memory is reported against the file and against the text held.

Each file is read and chunked (1,000-character chunks, the ingest default) in a fresh
process, which reports the wall time and its peak memory above what it held before
reading; the fastest of three processes counts. Embedding is excluded there: its cost is
per chunk. Full ingests into a SQLite store are timed for the smaller files in both layouts
a user meets: a BM25 index alone, and the default layout (BM25 plus a dense index, which
embeds every chunk), each with its chunks per second.

Targets: time and memory grow linearly (seconds per MB within 20% from 1 to 50 MB), a
10 MB prose file splits and chunks in at most 60 s, and peak memory stays within 3x the
file size.

Run: ``python benchmarks/ingest_scaling.py [--sizes 1 10 50]`` (writes
``benchmarks/results/ingest_scaling.json``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import add_data_dir, write_report

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "ingest_scaling.json"
MB = 1_000_000
CHUNK_CHARS = 1000
FULL_INGEST_MAX_MB = 10
REPEATS = 3

_MEASURE = """
import json, sys, time
from pathlib import Path

from veritype.evidence import Document
from veritype.ingest import read_file
from veritype.store import Chunking

def status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")

path = Path(sys.argv[1])
# A small file first, so modules that reading and chunking import are not counted.
warm = path.with_name("warm-up.txt")
warm.write_text("Warm up. " * 100, encoding="utf-8")
Chunking(max_chars=int(sys.argv[2])).split(Document.from_text(read_file(warm).documents[0].text))
# Reset the peak resident size (VmHWM) to the current one, so the peak is this work's.
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")
before = status_bytes("VmRSS")
started = time.perf_counter()
contents = read_file(path)
read_s = time.perf_counter() - started
source = contents.documents[0]
document = Document.from_text(source.text, title=source.title, source=source.source)
chunks = Chunking(max_chars=int(sys.argv[2])).split(document)
seconds = time.perf_counter() - started
peak = status_bytes("VmHWM")
print(json.dumps({"seconds": seconds, "read_s": read_s, "chunks": len(chunks),
                  "characters": len(document.text),
                  "text_bytes_per_char": (sys.getsizeof(document.text) - sys.getsizeof("")) /
                  max(len(document.text), 1),
                  "longest_chunk": max(c.end - c.start for c in chunks),
                  "peak_bytes_above_start": peak - before}))
"""

_INGEST = """
import json, sys, time
from dataclasses import replace
from pathlib import Path
from veritype.ingest import DEFAULT_INDEXES, Corpus
from veritype.store import Chunking, IndexSpec
chunking = Chunking(max_chars=int(sys.argv[3]))
if sys.argv[4] == "bm25":
    layout = [IndexSpec("bm25", "bm25", chunking)]
else:
    layout = [replace(spec, chunking=chunking) for spec in DEFAULT_INDEXES]
started = time.perf_counter()
with Corpus.open(sys.argv[2], indexes=layout, index_dir=Path(sys.argv[2][10:] + ".idx")) as corpus:
    report = corpus.ingest([Path(sys.argv[1])])
    corpus.retrieve("river", 3)
print(json.dumps({"seconds": time.perf_counter() - started, "chunks": report.chunks}))
"""
# The store layouts a full ingest is timed in: BM25 alone, and the default (BM25 + dense).
LAYOUTS = ("bm25", "default")


def prose_source(data_dir: Path) -> str:
    """About 1 MB of real prose: every few knowledge paragraphs of HaluEval QA, and every
    paragraph with a character beyond U+FFFF, so each file size, made of this block
    repeated, has the same mix of characters (and CPython holds each at the same width)."""
    path = data_dir / "halueval" / "qa_data.json"
    with path.open(encoding="utf-8") as rows:
        paragraphs = [json.loads(line)["knowledge"].strip() for line in rows if line.strip()]
    stride = max(1, sum(map(len, paragraphs)) // MB)
    chosen = [p for i, p in enumerate(paragraphs)
              if i % stride == 0 or max(map(ord, p), default=0) > 0xFFFF]
    return "\n\n".join(chosen)


KINDS = ("prose", "ascii prose", "unpunctuated")


def make_text(source: str, size: int, kind: str) -> str:
    if kind == "ascii prose":
        text = source.encode("ascii", "ignore").decode("ascii")
    elif kind == "unpunctuated":
        text = re.sub(r"[.!?\n]+", " ", source)
    else:
        text = source
    repeats = size // len(text) + 1
    return (text + (" " if kind == "unpunctuated" else "\n\n")) * repeats


def run_script(script: str, *args: str, repeats: int = 1) -> dict[str, Any]:
    """The measurement of the fastest of ``repeats`` fresh processes."""
    best: dict[str, Any] | None = None
    for _ in range(repeats):
        result = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            raise SystemExit(f"error: the measurement failed:\n{result.stderr[-3000:]}")
        measured: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
        if best is None or measured["seconds"] < best["seconds"]:
            best = measured
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 50], help="MB")
    parser.add_argument(
        "--default-layout-kinds", nargs="*", default=["prose"], choices=KINDS,
        help="texts also ingested in the default layout, which embeds every chunk (slow)")
    add_data_dir(parser)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    source = prose_source(args.data_dir)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as work:
        for kind in KINDS:
            for size_mb in args.sizes:
                text = make_text(source, size_mb * MB, kind)[: size_mb * MB]
                path = Path(work) / f"{kind}-{size_mb}mb.txt"
                path.write_text(text, encoding="utf-8")
                file_bytes = path.stat().st_size
                measured = run_script(_MEASURE, str(path), str(CHUNK_CHARS), repeats=REPEATS)
                row: dict[str, Any] = {
                    "kind": kind, "mb": size_mb, "file_bytes": file_bytes, **measured,
                    "seconds_per_mb": measured["seconds"] / size_mb,
                    "memory_x_file": measured["peak_bytes_above_start"] / file_bytes,
                    "memory_x_text": measured["peak_bytes_above_start"]
                    / (measured["text_bytes_per_char"] * measured["characters"]),
                }
                timed = []
                for layout in LAYOUTS:
                    if size_mb > FULL_INGEST_MAX_MB or (
                            layout == "default" and kind not in args.default_layout_kinds):
                        continue
                    store = f"sqlite:///{Path(work) / f'{kind}-{size_mb}-{layout}.sqlite'}"
                    ingest = run_script(_INGEST, str(path), store, str(CHUNK_CHARS), layout)
                    row[f"full_ingest_{layout}_s"] = ingest["seconds"]
                    row[f"full_ingest_{layout}_chunks_per_s"] = ingest["chunks"] / ingest["seconds"]
                    timed.append(f"{layout} ingest {ingest['seconds']:.1f} s "
                                 f"({row[f'full_ingest_{layout}_chunks_per_s']:,.0f} chunks/s)")
                runs.append(row)
                print(f"{kind:>12} {size_mb:>3} MB: {measured['seconds']:7.2f} s "
                      f"({row['seconds_per_mb']:.3f} s/MB), peak {row['memory_x_file']:.2f}x "
                      f"the file ({row['memory_x_text']:.2f}x the text held), "
                      f"{measured['chunks']} chunks, longest "
                      f"{measured['longest_chunk']}"
                      + "".join(f", {part}" for part in timed), flush=True)
                path.unlink()
    linearity = {}
    for kind in KINDS:
        rows = sorted((r for r in runs if r["kind"] == kind), key=lambda r: r["mb"])
        smallest, largest = rows[0], rows[-1]
        linearity[kind] = {
            "seconds_per_mb_ratio_largest_to_smallest":
                largest["seconds_per_mb"] / smallest["seconds_per_mb"],
            "memory_x_file_ratio_largest_to_smallest":
                largest["memory_x_file"] / smallest["memory_x_file"],
        }
    ten = next((r for r in runs if r["kind"] == "prose" and r["mb"] == 10), None)
    write_report(
        args.output, "ingest_scaling",
        chunk_chars=CHUNK_CHARS,
        runs=runs,
        linearity=linearity,
        targets={
            "linear_within_20_percent": all(
                abs(v["seconds_per_mb_ratio_largest_to_smallest"] - 1) <= 0.2
                for v in linearity.values()),
            "prose_10mb_at_most_60s": None if ten is None else ten["seconds"] <= 60,
            "memory_at_most_3x_file": {
                kind: all(r["memory_x_file"] <= 3 for r in runs if r["kind"] == kind)
                for kind in KINDS},
            "every_chunk_within_bound": all(r["longest_chunk"] <= CHUNK_CHARS for r in runs),
        },
    )


if __name__ == "__main__":
    main()
