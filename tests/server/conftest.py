"""A real service on a loopback port: uvicorn in a thread, a real engine over a temporary
SQLite store (or a PostgreSQL database, for the tests that run against both stores) holding
a few small documents, the shipped verifier models and the extractive generator."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")

from fastapi import FastAPI  # noqa: E402
from pg_support import fresh_database  # noqa: E402
from server_support import DOCUMENTS, EVAL_RUN, png_bytes  # noqa: E402

from veritype.engine import Engine, EngineConfig  # noqa: E402
from veritype.ingest import Corpus  # noqa: E402
from veritype.server import ServerSettings, create_app  # noqa: E402


@contextmanager
def running(app: FastAPI) -> Iterator[str]:
    """Serve ``app`` on a free loopback port in a thread; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False,
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def make_engine(store: Path | str, index_dir: Path | None = None) -> Engine:
    """An engine over ``store`` (a SQLite file, or a URL) holding the test documents."""
    url = store if isinstance(store, str) else f"sqlite:///{store}"
    engine = Engine(EngineConfig(store=url))
    if index_dir is not None:
        # A PostgreSQL store keeps its BM25 index under the working directory by default.
        engine.corpus.close()
        engine.corpus = Corpus.open(url, index_dir=index_dir)
    engine.ingest_texts(
        [doc["text"] for doc in DOCUMENTS],
        titles=[doc["title"] for doc in DOCUMENTS],
        sources=[doc["source"] for doc in DOCUMENTS],
    )
    return engine


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with make_engine(tmp_path_factory.mktemp("store") / "store.sqlite") as shared:
        yield shared


@pytest.fixture(scope="session")
def eval_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An eval folder with one complete run, one broken run and an unrelated folder."""
    root = tmp_path_factory.mktemp("eval-runs")
    run = root / EVAL_RUN
    run.mkdir()
    (run / "report.json").write_text(json.dumps({
        "benchmark": "truthfulqa",
        "created_at": "2026-11-20T10:15:00Z",
        "config": {"views": ["numeric", "lexical", "nli", "align"], "tau": 0.8},
        "headline": {"precision": 0.9712, "recall": 0.5521, "claims": 4106},
    }))
    (run / "report.md").write_text("# TruthfulQA\n\nprecision 0.9712\n")
    (run / "table.tex").write_text("\\begin{tabular}{lr}precision & 0.9712\\end{tabular}\n")
    (run / "precision_recall.png").write_bytes(png_bytes())
    (root / "secret.png").write_bytes(png_bytes())
    (run / "outside.png").symlink_to(root / "secret.png")
    broken = root / "halueval-20261121-090000"
    broken.mkdir()
    (broken / "report.json").write_text("{not json")
    (root / "notes").mkdir()
    return root


@pytest.fixture(scope="session")
def base_url(engine: Engine, eval_dir: Path) -> Iterator[str]:
    """The open (loopback, no keys) service used by most tests."""
    app = create_app(engine, ServerSettings(eval_dir=eval_dir))
    with running(app) as url:
        yield url


@pytest.fixture(scope="session")
def pg_base_url(
    postgres_admin_url: str, eval_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The open service over a PostgreSQL store."""
    indexes = tmp_path_factory.mktemp("pg-indexes")
    engine = make_engine(fresh_database(postgres_admin_url), index_dir=indexes)
    with engine, running(create_app(engine, ServerSettings(eval_dir=eval_dir))) as url:
        yield url
