"""The 1 M vector search benchmark (benchmarks/vector_search_1m.py) on a small scale: the
in-memory graph grown to each size and measured there, saved and searched again from the
file, and pgvector's index built by the store's statement after a bulk copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_support import BENCHMARKS, benchmark_module

# The benchmarks' shared helpers import httpx, which the core install lacks.
pytestmark = pytest.mark.needs_httpx

SMALL = ["--queries", "20", "--warmup", "2", "--sweep", "16", "256", "--clusters", "20"]


@pytest.mark.slow
def test_the_in_memory_graph_is_measured_at_each_size_and_again_from_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    index_file = tmp_path / "graph.usearch"
    with benchmark_module("vector_search_1m.py") as module:
        module.main(["--store", "memory", "--sizes", "600", "1200", *SMALL,
                     "--index-file", str(index_file), "--output", str(tmp_path / "built.json")])
        module.main(["--store", "memory", "--sizes", "600", "1200", *SMALL,
                     "--index-file", str(index_file), "--output", str(tmp_path / "again.json")])
    built = json.loads((tmp_path / "built.json").read_text())
    assert built["vectors"] == "clustered" and built["largest_measured"] == 1200
    assert [row["vectors"] for row in built["sizes"]] == [600, 1200]
    for row in built["sizes"]:
        assert row["exact"]["recall_at_10"] == 1.0
        assert row["hnsw"]["connectivity"] == 16 and row["hnsw"]["build_vectors_per_second"] > 0
        narrow, wide = row["hnsw_expansion_search_sweep"]
        assert narrow["recall_at_10"] <= wide["recall_at_10"] and wide["recall_at_10"] >= 0.9
    assert built["saved_index"]["reloaded_count"] == 1200
    again = json.loads((tmp_path / "again.json").read_text())
    (row,) = again["sizes"]
    assert row["vectors"] == 1200 and "restored_from_saved_index_s" in row["hnsw"]
    assert row["hnsw"]["recall_at_10"] == built["sizes"][1]["hnsw"]["recall_at_10"]


@pytest.mark.slow
def test_pgvector_is_built_after_a_bulk_copy_and_searched_through_the_store(
    postgres_admin_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    output = tmp_path / "pg.json"
    with benchmark_module("vector_search_1m.py") as module:
        module.main(["--store", "postgres", "--vectors", "uniform", "--sizes", "1000", *SMALL,
                     "--maintenance-work-mem", "256MB", "--postgres-url", postgres_admin_url,
                     "--output", str(output)])
    report = json.loads(output.read_text())
    assert report["versions"]["pgvector"] and report["vectors"] == "uniform"
    (row,) = report["sizes"]
    pg = row["pgvector"]
    assert row["exact"]["recall_at_10"] == 1.0 and pg["build_s"] > 0 and pg["ef_search"] == 128
    assert 0 < pg["recall_at_10"] <= 1
    assert [point["ef_search"] for point in pg["ef_search_sweep"]] == [16, 256]
    assert pg["ef_search_sweep"][1]["recall_at_10"] >= 0.9
