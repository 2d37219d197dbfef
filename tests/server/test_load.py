"""The load benchmark on a small scale: concurrent requests against the real service."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.needs_serve

LOAD_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "load.py"


def load_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("veritype_load_benchmark", LOAD_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # The script imports its neighbour _common, as it does when run from benchmarks/.
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(LOAD_SCRIPT.parent))
        spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_concurrent_verify_requests_all_succeed(base_url: str, data_dir: Path) -> None:
    load = load_module()
    bodies = load.verify_requests(data_dir, 48)
    assert len({body["answer"] for body in bodies}) > 40  # distinct requests
    result = load.run_load(base_url, bodies, concurrency=8)
    assert result["errors"] == 0, result["error_samples"]
    assert result["status_counts"] == {"200": 48}
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["max_ms"]
    assert sum(result["claims_by_type"].values()) >= 40  # a few answers hold no claim


@pytest.mark.slow
def test_a_disconnect_storm_leaves_the_service_fast(base_url: str, data_dir: Path) -> None:
    load = load_module()
    bodies = load.verify_requests(data_dir, 50)
    heavy = load.heavy_requests(bodies[:40], 6)
    storm = load.run_disconnect_storm(base_url, heavy, bodies[40:], concurrency=3,
                                      leave_after=0.5)
    assert storm["outcomes"].get("left", 0) >= 4, storm
    behind = storm["small_behind"]
    assert behind["status_counts"] == {"200": 5}, storm
    # Six abandoned requests hold about 20 s of work; none of it may run on.
    assert behind["p95_ms"] < 1000, storm


@pytest.mark.slow
def test_requests_spread_over_replicas_evenly(
    base_url: str, pg_base_url: str, data_dir: Path
) -> None:
    load = load_module()
    bodies = load.verify_requests(data_dir, 24)
    result = load.run_load([base_url, pg_base_url], bodies, concurrency=4)
    assert result["errors"] == 0, result["error_samples"]
    by_url = result["requests_by_url"]
    assert set(by_url) == {base_url, pg_base_url} and sum(by_url.values()) == 24
    assert min(by_url.values()) >= 6  # two workers each; neither replica is left idle
