"""The Ray ingest engine on a real local cluster of two workers, into SQLite and a real
PostgreSQL server: what a local ingest stores (ids, texts, offsets, vectors), the same skips
and warnings, nothing twice on a rerun, and every document once after the driver is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pg_support import fresh_database
from typer.testing import CliRunner

from veritype.cli import app
from veritype.ingest import Corpus, IngestEngine, IngestReport, create_ingest_engine
from veritype.store import Chunking, IndexSpec, Store

pytestmark = pytest.mark.needs_ray

LAYOUT = [
    IndexSpec("bm25", "bm25", Chunking(max_chars=300)),
    IndexSpec("dense", "dense", Chunking(max_chars=300), model="minilm"),
]
TOPICS = ["volcano", "glacier", "orchid", "comet", "coral", "falcon"]


def write_folder(folder: Path, files: int, rows: int) -> Path:
    """JSON Lines files of short records, a Markdown page, a text with a NUL character, a
    JSON Lines file with a bad row and a file that is not the PDF it claims to be."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        lines = [json.dumps({"id": f"f{number}r{row}", "title": f"Note {row} of part {number}",
                             "text": f"Record {row} of part {number} describes the "
                                     f"{TOPICS[row % len(TOPICS)]}. It was seen in season "
                                     f"{row % 7}. Item {row} was measured twice."})
                 for row in range(rows)]
        (folder / f"part{number}.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "etna.md").write_text("# Volcanoes\n\nMount Etna erupted in 2021. Its lava "
                                    "reached the sea.\n")
    (folder / "control.txt").write_text("A NUL\0 sits in this sentence. Another follows.")
    (folder / "rows.jsonl").write_text('{"id": "a", "text": "Fuji is in Japan."}\n{bad\n')
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a PDF")
    return folder


def snapshot(store: Store) -> dict[str, Any]:
    """What a store holds, in an order that does not depend on the order of the writes."""
    documents = sorted(
        (r.source, r.doc_id, r.origin, r.media_type, r.document.title, r.document.text,
         r.fingerprint, r.chunk_count)
        for r in store.documents(limit=10**6)
    )
    chunks = sorted(
        (key, item.chunk.chunk_id, item.chunk.start, item.chunk.end, item.chunk.text)
        for key in {spec.chunking.key: spec.chunking for spec in LAYOUT}.items()
        for item in store.iter_chunks(key[1])
    )
    ids, vectors = store.vectors(LAYOUT[1])
    order = np.argsort(ids)
    return {"documents": documents, "chunks": [c[1:] for c in chunks],
            "vector_ids": [ids[i] for i in order], "vectors": vectors[order]}


def assert_same_store(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert actual["documents"] == expected["documents"]
    assert actual["chunks"] == expected["chunks"]
    assert actual["vector_ids"] == expected["vector_ids"]
    np.testing.assert_allclose(actual["vectors"], expected["vectors"], atol=1e-4)


def ingest(url: str, paths: list[Path], index_dir: Path, engine: IngestEngine | None = None,
           batch_size: int = 64) -> tuple[IngestReport, dict[str, Any]]:
    with Corpus.open(url, indexes=LAYOUT, index_dir=index_dir) as corpus:
        report = corpus.ingest(paths, engine=engine, batch_size=batch_size)
        return report, snapshot(corpus.store)


def outcome(report: IngestReport) -> tuple[Any, ...]:
    return (report.files, report.added, report.replaced, report.unchanged, report.removed,
            report.chunks, report.skipped, report.warnings)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """One local Ray cluster of two CPUs for the module: each engine joins it."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ray.sqlite'}"
    return fresh_database(request.getfixturevalue("postgres_admin_url"))


@pytest.mark.slow
def test_a_ray_ingest_stores_what_a_local_ingest_stores_and_a_rerun_adds_nothing(
    ray_cluster: None, store_url: str, tmp_path: Path
) -> None:
    folder = write_folder(tmp_path / "docs", files=3, rows=12)
    paths = [folder, tmp_path / "missing.txt"]
    local, expected = ingest(f"sqlite:///{tmp_path / 'local.sqlite'}", paths, tmp_path / "l")
    engine = create_ingest_engine("ray", workers=2)
    assert (engine.name, engine.workers) == ("ray", 2)
    distributed, actual = ingest(store_url, paths, tmp_path / "r", engine, batch_size=5)
    # The same files read, skipped (same reasons, in file order) and warned about.
    assert outcome(distributed) == outcome(local)
    assert [s.path for s in distributed.skipped] == [str(tmp_path / "missing.txt"),
                                                     str(folder / "broken.pdf")]
    assert distributed.added == 3 * 12 + 3 and distributed.files == 6
    assert_same_store(actual, expected)

    rerun, again = ingest(store_url, paths, tmp_path / "r", engine, batch_size=5)
    assert (rerun.added, rerun.replaced, rerun.chunks) == (0, 0, 0)
    assert rerun.unchanged == distributed.added
    assert_same_store(again, expected)


def test_the_cli_ingests_on_ray_workers(ray_cluster: None, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs", files=1, rows=4)
    store = tmp_path / "cli.sqlite"
    result = CliRunner().invoke(app, ["ingest", str(folder), "--store", str(store),
                                      "--engine", "ray", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "4 files: 7 documents added" in result.stdout
    assert "on 2 ray workers). The store holds 7 documents." in " ".join(result.stdout.split())
    assert f"skipped {folder / 'broken.pdf'}: not a readable PDF" in result.stderr
    assert "1 control character (such as NUL) replaced by spaces" in result.stderr


def test_an_unreachable_address_fails_before_the_store_is_touched(
    ray_cluster: None, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("Mount Etna erupted in 2021.")
    store = tmp_path / "store.sqlite"
    result = CliRunner().invoke(app, ["ingest", str(tmp_path / "a.txt"), "--store", str(store),
                                      "--engine", "ray", "--address", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "cannot reach the Ray cluster at '127.0.0.1:1'" in result.stderr
    assert not store.exists()


_KILLED_SCRIPT = """
import sys
from pathlib import Path
from veritype.ingest import Corpus, create_ingest_engine
from veritype.store import Chunking, IndexSpec
layout = [IndexSpec("bm25", "bm25", Chunking(max_chars=300)),
          IndexSpec("dense", "dense", Chunking(max_chars=300), model="minilm")]
engine = create_ingest_engine("ray", workers=2)
with Corpus.open(sys.argv[1], indexes=layout, index_dir=Path(sys.argv[3])) as corpus:
    corpus.ingest([Path(sys.argv[2])], batch_size=4, engine=engine)
"""


@pytest.mark.slow
def test_a_ray_ingest_whose_driver_is_killed_completes_on_rerun(
    ray_cluster: None, postgres_admin_url: str, tmp_path: Path
) -> None:
    folder = write_folder(tmp_path / "docs", files=6, rows=20)
    total = 6 * 20 + 3
    _, expected = ingest(f"sqlite:///{tmp_path / 'clean.sqlite'}", [folder], tmp_path / "c")
    url = fresh_database(postgres_admin_url)
    # A session of its own, so that what is left of its Ray cluster can be ended after.
    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SCRIPT, url, str(folder), str(tmp_path / "k")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        with Corpus.open(url, index_dir=tmp_path / "w") as watcher:
            deadline = time.monotonic() + 120
            while process.poll() is None:
                assert time.monotonic() < deadline, "the ingest stalled"
                if watcher.store.count_documents() >= 12:
                    break
                time.sleep(0.01)
            process.send_signal(signal.SIGKILL)
            process.wait()
            assert process.returncode == -signal.SIGKILL, "the ingest ended before the kill"
            time.sleep(0.5)
            stored = watcher.store.count_documents()
    finally:
        os.killpg(process.pid, signal.SIGKILL)
    assert 12 <= stored < total

    rerun, actual = ingest(url, [folder], tmp_path / "k", create_ingest_engine("ray", workers=2))
    assert (rerun.unchanged, rerun.added, rerun.replaced) == (stored, total - stored, 0)
    assert len(actual["documents"]) == total
    assert_same_store(actual, expected)
