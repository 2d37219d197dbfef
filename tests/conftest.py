"""What every test shares: the datasets fixture and the markers that say what a test needs.

A test marked ``needs_*`` (or using a fixture that implies one) is skipped, with the reason
and the install command, when its requirement is missing. In CI (``CI=true``) a missing
requirement fails instead, so a broken install cannot pass as skipped tests. Tests that need
nothing beyond the core install are marked ``core``: ``pytest -m core`` runs them in an
environment with no extras.
"""

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from veritype.models.wheels import available

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() == "true"

# What each marker needs: the importable modules and where they come from.
NEEDS: dict[str, tuple[tuple[str, ...], str]] = {
    "needs_torch": (("torch", "transformers"), 'pip install -e ".[train]"'),
    "needs_llama": (("llama_cpp",), 'pip install -e ".[llm]"'),
    "needs_judge": (("llama_cpp",), 'pip install -e ".[judge]"'),
    "needs_mpnet": (("torch", "transformers"),
                    'pip install -e ".[train]" && veritype models fetch mpnet'),
    "needs_httpx": (("httpx",), 'pip install -e ".[llm]"'),
    "needs_serve": (("fastapi", "uvicorn", "httpx"), 'pip install -e ".[serve]" httpx'),
    "needs_pg": (("psycopg", "pgvector", "pgserver"), 'pip install -e ".[pg]" pgserver'),
    "needs_ray": (("ray",), 'pip install -e ".[ray]"'),
    "needs_parquet": (("pyarrow",), 'pip install -e ".[parquet]"'),
    "needs_eval": (("matplotlib",), 'pip install -e ".[eval]"'),
    "needs_browser": (("playwright",), 'pip install playwright; apt-get install chromium'),
    "needs_data": ((), "set VERITYPE_DATA_DIR or put the datasets at ../shared/data"),
}
# Fixtures that bring a requirement with them.
FIXTURE_NEEDS = {
    "data_dir": ("needs_data",),
    "tiny_run": ("needs_torch", "needs_data"),
    "smollm2_path": ("needs_llama",),
    "llama_server": ("needs_llama", "needs_serve"),
    "judge_model": ("needs_judge",),
    "judge_server": ("needs_judge", "needs_serve"),
    "postgres_admin_url": ("needs_pg",),
    "browser": ("needs_browser",),
    "page": ("needs_browser",),
}
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
BROWSER_TIMEOUT_MS = 60_000


def data_path() -> Path:
    return Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data"))


def unmet(need: str) -> str | None:
    """Why ``need`` is not met here, or ``None`` when it is."""
    modules, remedy = NEEDS[need]
    if need == "needs_data":
        path = data_path()
        return None if (path / "nli").is_dir() else f"datasets not found at {path}: {remedy}"
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if need == "needs_browser" and not CHROMIUM.is_file() and shutil.which("chromium") is None:
        missing.append("chromium")
    # Models that come as wheels of pieces: fetched into the model cache, or installed.
    split_model = {"needs_mpnet": "mpnet", "needs_judge": "judge"}.get(need)
    if split_model and not available(split_model):
        missing.append(f"the {split_model} model")
    return f"{', '.join(missing)} missing: {remedy}" if missing else None


def missing_requirement(reason: str) -> None:
    """Skip the current test for ``reason``; in CI, fail it."""
    if IN_CI:
        pytest.fail(f"CI lacks a test requirement: {reason}")
    pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "core: needs nothing beyond the core install (automatic)")
    for need, (_, remedy) in NEEDS.items():
        config.addinivalue_line("markers", f"{need}: skipped without it ({remedy})")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        implied = [need for fixture, needs in FIXTURE_NEEDS.items()
                   if fixture in getattr(item, "fixturenames", ()) for need in needs]
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "postgresql" in callspec.params.values():
            implied.append("needs_pg")
        for need in implied:
            item.add_marker(need)
        needs = sorted({mark.name for mark in item.iter_markers() if mark.name in NEEDS})
        if not needs:
            item.add_marker("core")
            continue
        reasons = [reason for reason in map(unmet, needs) if reason]
        if reasons and not IN_CI:
            item.add_marker(pytest.mark.skip(reason="; ".join(reasons)))


_collection_skips: list[str] = []


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _collection_skips.append(f"{report.nodeid}: {report.longrepr}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # A module that skips itself at import (pytest.importorskip) hides a missing install;
    # in CI's full run that is a failure. The core lane (-m core) expects such skips.
    if IN_CI and _collection_skips and session.config.option.markexpr != "core":
        print("\nCI lacks a test requirement; modules skipped at collection:", file=sys.stderr)
        for line in _collection_skips:
            print(f"  {line}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared datasets: ``VERITYPE_DATA_DIR`` or ``../shared/data`` beside the repo."""
    reason = unmet("needs_data")
    if reason:
        missing_requirement(reason)
    return data_path()


TINY_CONFIG = """
name = "tiny"
description = "A tiny training run."
seed = 3
max_length = 64
batch_size = 8
learning_rate = 5e-5
epochs = 1.0
checkpoint_every = 2
eval_sets = ["rte_dev_2way", "snli_test_2k"]
eval_limit = 40

[data]
nli_files = ["fracas_dev", "rte_train_2way", "snli_dev"]
max_pairs = 240
"""


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """A real training run killed with SIGKILL mid-way, then resumed to the end and exported.

    Returns the run directory (``final/`` checkpoint, ``onnx/`` int8 model, ``train.log``).
    """
    work = tmp_path_factory.mktemp("train")
    config = work / "tiny.toml"
    config.write_text(TINY_CONFIG)
    command = [
        sys.executable,
        "-m",
        "veritype",
        "train",
        "verifier",
        "--config",
        str(config),
        "--data-dir",
        str(data_dir),
        "--output-dir",
        str(work / "runs"),
    ]
    run_dir = work / "runs" / "tiny"
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not (run_dir / "checkpoint.pt").exists():
        if first.poll() is not None or time.monotonic() > deadline:
            _, err = first.communicate()
            pytest.fail(f"training never wrote a checkpoint: {err.decode()[-2000:]}")
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait()
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    return run_dir


@pytest.fixture(scope="session")
def postgres_admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL server for the session: ``$VERITYPE_TEST_POSTGRES_URL`` when set, else one
    the ``pgserver`` package starts (it ships PostgreSQL with pgvector)."""
    given = os.environ.get("VERITYPE_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    import pgserver

    server = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()



@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium, driven by Playwright."""
    reason = unmet("needs_browser")
    if reason:
        missing_requirement(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM if CHROMIUM.is_file() else shutil.which("chromium")),
            args=CHROMIUM_ARGS,
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser page, 1280 by 900."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(BROWSER_TIMEOUT_MS)
    yield opened
    context.close()


@pytest.fixture(scope="session")
def judge_model() -> Path:
    """The default judge's GGUF, assembled from the judge extra's wheels."""
    from veritype.judges.local import default_judge_model

    return default_judge_model()
