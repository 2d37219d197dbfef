"""The SciFact Ray ingest benchmark (benchmarks/ingest_ray_scifact.py) on a few abstracts:
the local and the Ray ingest store the same chunks and vectors and retrieve alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_support import BENCHMARKS, benchmark_module

pytestmark = pytest.mark.needs_ray


@pytest.mark.slow
def test_ray_and_local_ingest_store_the_same_chunks_and_retrieve_alike(
    postgres_admin_url: str, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    output = tmp_path / "ingest_ray_scifact.json"
    with benchmark_module("ingest_ray_scifact.py") as module:
        module.main(["--limit", "40", "--files", "4", "--data-dir", str(data_dir),
                     "--postgres-url", postgres_admin_url, "--output", str(output)])
    report = json.loads(output.read_text())
    assert report["runs"]["local"]["documents"] == 40
    assert report["runs"]["ray_2_workers"]["chunks"] == report["runs"]["local"]["chunks"]
    assert report["same_chunk_ids_spans_and_texts"] is True
    assert report["vectors_max_abs_difference"] is not None
    assert report["vectors_max_abs_difference"] < 1e-5
    assert report["same_recall_at_10"] is True
