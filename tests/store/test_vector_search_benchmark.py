"""The vector search benchmark (benchmarks/vector_search.py) on a small scale: exact search
finds its own top 10, the HNSW index and pgvector are measured against it, and wider searches
of the same graph find more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_support import BENCHMARKS, benchmark_module


@pytest.mark.slow
def test_a_small_run_reports_latency_and_recall_on_both_paths(
    postgres_admin_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "vector_search.json"
    # The script imports its neighbour _common, as it does when run from benchmarks/.
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    with benchmark_module("vector_search.py") as module:
        module.main(["--sizes", "1500", "--queries", "30", "--warmup", "3", "--sweep", "16",
                     "512", "--real-docs", "0", "--postgres", "--postgres-url",
                     postgres_admin_url, "--output", str(output)])
    report = json.loads(output.read_text())
    assert report["machine"]["cpu_count"] >= 1 and report["versions"]["pgvector"]
    (row,) = report["sizes"]
    assert row["vectors"] == 1500 and row["exact"]["recall_at_10"] == 1.0
    assert 0 < row["hnsw"]["recall_at_10"] <= 1 and row["hnsw"]["p95_ms"] > 0
    narrow, wide = row["hnsw_expansion_search_sweep"]
    assert narrow["recall_at_10"] <= wide["recall_at_10"] and wide["recall_at_10"] >= 0.9
    pg = row["pgvector"]
    assert pg["write_s"] > 0 and 0 < pg["recall_at_10"] <= 1
    assert [point["ef_search"] for point in pg["ef_search_sweep"]] == [16, 512]
    assert pg["ef_search_sweep"][1]["recall_at_10"] >= 0.9
