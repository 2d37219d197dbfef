"""Ingest and retrieve through a corpus on each store, including a killed ingest."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from veritype.ingest import Corpus
from veritype.store import Chunking, IndexSpec, Store

LAYOUT = [
    IndexSpec("bm25", "bm25", Chunking(max_chars=300)),
    IndexSpec("dense", "dense", Chunking(max_chars=300), model="minilm"),
]
ROWS = 300
TOPICS = ["volcano", "glacier", "orchid", "comet", "coral", "falcon", "copper", "tundra"]


def write_corpus(folder: Path, rows: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for number in range(rows):
        topic = TOPICS[number % len(TOPICS)]
        lines.append(
            json.dumps(
                {
                    "id": f"r{number}",
                    "title": f"Note {number} on the {topic}",
                    "text": f"Record {number} describes the {topic}. The {topic} was observed in "
                    f"season {number % 7}. Measurements of item {number} were repeated.",
                }
            )
        )
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "volcanoes.md").write_text(
        "# Volcanoes\n\nMount Etna erupted in 2021. Its lava reached the sea.\n"
    )
    return folder


def snapshot(store: Store) -> dict[str, object]:
    documents = sorted(
        (r.source, r.doc_id, r.document.title, r.document.text, r.chunk_count)
        for r in store.documents(limit=10**6)
    )
    chunks = sorted(
        (item.chunk.chunk_id, item.chunk.start, item.chunk.end, item.chunk.text)
        for spec in LAYOUT
        for item in store.iter_chunks(spec.chunking)
    )
    ids, vectors = store.vectors(LAYOUT[1])
    order = np.argsort(ids)
    return {
        "documents": documents,
        "chunks": chunks,
        "vector_ids": sorted(ids),
        "vectors": vectors[order],
    }


def assert_consistent(store: Store) -> None:
    """Every stored document has all of its chunks and a vector for each dense chunk."""
    vector_ids = set(store.vectors(LAYOUT[1])[0])
    for record in store.documents(limit=10**6):
        chunks = store.document_chunks(record.doc_id)
        assert len(chunks) == record.chunk_count
        dense = [c.chunk_id for key, c in chunks if key == LAYOUT[1].chunking.key]
        assert set(dense) <= vector_ids
        for _, chunk in chunks:
            assert chunk.text == record.document.text[chunk.start : chunk.end]


def open_corpus(url: str, tmp_path: Path, name: str) -> Corpus:
    return Corpus.open(url, indexes=LAYOUT, index_dir=tmp_path / f"{name}-indexes")


def test_ingest_then_retrieve_with_each_retriever(store_url: str, tmp_path: Path) -> None:
    folder = write_corpus(tmp_path / "docs", 40)
    with open_corpus(store_url, tmp_path, "main") as corpus:
        report = corpus.ingest([folder])
        assert (report.files, report.added, report.skipped) == (2, 41, [])
        for retriever in ("bm25", "dense", "hybrid"):
            hits = corpus.retrieve("When did Mount Etna erupt?", 3, retriever=retriever)
            assert hits[0].title == "Volcanoes", retriever
            assert "Etna erupted in 2021" in hits[0].chunk.text
            assert hits[0].retriever == retriever
        batch = corpus.retrieve_batch(["orchid season", "copper measurements"], 5)
        assert all("orchid" in hit.title for hit in batch[0][:3])
        assert all("copper" in hit.title for hit in batch[1][:3])


def test_reingest_skips_unchanged_and_replaces_changed(store_url: str, tmp_path: Path) -> None:
    folder = write_corpus(tmp_path / "docs", 10)
    with open_corpus(store_url, tmp_path, "main") as corpus:
        corpus.ingest([folder])
        generation = corpus.store.generation()
        again = corpus.ingest([folder])
        assert (again.added, again.replaced, again.unchanged, again.removed) == (0, 0, 11, 0)
        assert corpus.store.generation() == generation

        (folder / "volcanoes.md").write_text("# Volcanoes\n\nVesuvius buried Pompeii in 79.\n")
        rows = (folder / "records.jsonl").read_text().splitlines()
        (folder / "records.jsonl").write_text("\n".join(rows[:-1]) + "\n")
        changed = corpus.ingest([folder])
        assert (changed.added, changed.replaced, changed.unchanged, changed.removed) == (0, 1, 9, 1)
        assert corpus.store.count_documents() == 10
        hits = corpus.retrieve("Etna", 10, retriever="bm25")
        assert not any("Etna" in hit.chunk.text for hit in hits)
        assert corpus.retrieve("Pompeii", 1, retriever="bm25")[0].title == "Volcanoes"
        assert_consistent(corpus.store)


_INGEST_SCRIPT = """
import sys
from pathlib import Path
from veritype.ingest import Corpus
from veritype.store import Chunking, IndexSpec
layout = [IndexSpec("bm25", "bm25", Chunking(max_chars=300)),
          IndexSpec("dense", "dense", Chunking(max_chars=300), model="minilm")]
corpus = Corpus.open(sys.argv[1], indexes=layout, index_dir=Path(sys.argv[3]))
corpus.ingest([Path(sys.argv[2])], batch_size=8)
"""


@pytest.mark.slow
def test_an_ingest_killed_at_a_random_moment_completes_on_rerun(
    store_url: str, tmp_path: Path
) -> None:
    folder = write_corpus(tmp_path / "docs", ROWS)
    # The reference is a clean ingest into a separate SQLite store: ids and offsets are
    # derived from content alone, so they must match whichever store was killed.
    with open_corpus(f"sqlite:///{tmp_path / 'clean.sqlite'}", tmp_path, "clean") as clean:
        clean.ingest([folder])
        expected = snapshot(clean.store)
        clean_hits = clean.retrieve_batch(["orchid season 3", "Etna lava"], 5, retriever="bm25")

    # A random moment of the ingest: after a random number of documents was committed.
    kill_after = random.randint(1, ROWS - 100)
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _INGEST_SCRIPT,
            store_url,
            str(folder),
            str(tmp_path / "killed-indexes"),
        ],
    )
    with open_corpus(store_url, tmp_path, "killed") as watcher:
        deadline = time.monotonic() + 120
        while watcher.store.count_documents() < kill_after and process.poll() is None:
            assert time.monotonic() < deadline, "the ingest stalled"
            time.sleep(0.005)
        process.send_signal(signal.SIGKILL)
        process.wait()
        stored = watcher.store.count_documents()
        assert process.returncode == -signal.SIGKILL, f"ingest ended before the kill {kill_after=}"
        assert 0 < stored < ROWS + 1, f"{stored=} {kill_after=}"
        assert_consistent(watcher.store)

    with open_corpus(store_url, tmp_path, "killed") as rerun:
        report = rerun.ingest([folder])
        assert report.unchanged == stored and report.added == ROWS + 1 - stored
        actual = snapshot(rerun.store)
        hits = rerun.retrieve_batch(["orchid season 3", "Etna lava"], 5, retriever="bm25")
    assert actual["documents"] == expected["documents"]
    assert actual["chunks"] == expected["chunks"]
    assert actual["vector_ids"] == expected["vector_ids"]
    # Batches pad to different lengths, so floats may differ in the last bits.
    np.testing.assert_allclose(actual["vectors"], expected["vectors"], atol=1e-4)
    assert [[h.chunk.chunk_id for h in row] for row in hits] == [
        [h.chunk.chunk_id for h in row] for row in clean_hits
    ]


def test_a_row_with_nul_characters_ingests_on_every_store(store_url: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from veritype.cli import app

    folder = tmp_path / "docs"
    folder.mkdir()
    rows = [{"id": "a", "title": "Etna", "text": "Mount Etna erupted in 2021."},
            {"id": "b\0", "title": "Bad\0title", "text": "Lava\0 reached the\0sea."},
            {"id": "c", "title": "Fuji", "text": "Mount Fuji is in Japan."}]
    (folder / "rows.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    result = CliRunner().invoke(app, ["ingest", str(folder), "--store", store_url,
                                      "--chunk-chars", "300"])
    assert result.exit_code == 0, result.output
    assert "3 documents added" in result.stdout
    assert "2 control characters (such as NUL) replaced by spaces" in result.output
    with Corpus.open(store_url, create=False, index_dir=tmp_path / "reader") as corpus:
        texts = {record.document.title: record.document.text
                 for record in corpus.store.documents()}
    assert texts["Bad title"] == "Lava  reached the sea."
    assert len(texts) == 3


_CONCURRENT_SCRIPT = """
import json, sys
from pathlib import Path
from veritype.ingest import Corpus
from veritype.store import Chunking, IndexSpec
layout = [IndexSpec("bm25", "bm25", Chunking(max_chars=300))]
corpus = Corpus.open(sys.argv[1], indexes=layout, index_dir=Path(sys.argv[3]))
report = corpus.ingest([Path(sys.argv[2])], batch_size=4)
print(json.dumps({"added": report.added, "replaced": report.replaced,
                  "unchanged": report.unchanged}))
"""


def test_two_ingests_of_one_folder_at_once_count_each_document_once(
    store_url: str, tmp_path: Path
) -> None:
    folder = write_corpus(tmp_path / "docs", ROWS)
    processes = [
        subprocess.Popen([sys.executable, "-c", _CONCURRENT_SCRIPT, store_url, str(folder),
                          str(tmp_path / f"indexes-{number}")],
                         stdout=subprocess.PIPE, text=True)
        for number in range(2)
    ]
    reports = [json.loads(process.communicate(timeout=300)[0]) for process in processes]
    assert all(process.returncode == 0 for process in processes)
    assert sum(report["added"] for report in reports) == ROWS + 1, reports
    assert sum(report["replaced"] for report in reports) == 0, reports
    assert all(report["added"] + report["unchanged"] == ROWS + 1 for report in reports)
    with Corpus.open(store_url, create=False, index_dir=tmp_path / "reader") as corpus:
        assert corpus.store.count_documents() == ROWS + 1


def test_the_engine_keeps_at_most_max_traces(store_url: str, tmp_path: Path) -> None:
    from veritype.engine import Engine, EngineConfig

    config = EngineConfig(store=store_url, views=["numeric", "lexical"], max_traces=2)
    with Engine(config) as engine:
        answers = [engine.verify(f"Etna erupted in {year}.", ["Etna erupted in 2021."])
                   for year in (2019, 2020, 2021)]
        assert engine.corpus.store.count_traces() == 2
        assert engine.trace(answers[0].trace_id) is None
        assert engine.trace(answers[2].trace_id) is not None
