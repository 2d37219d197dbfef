"""Store fixtures: every store test runs against SQLite and a real PostgreSQL server.

PostgreSQL comes from ``$VERITYPE_TEST_POSTGRES_URL`` when set, else from a server that the
``pgserver`` package starts for the session (it ships PostgreSQL with pgvector).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

_database_numbers = itertools.count()


@pytest.fixture(scope="session")
def postgres_admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("VERITYPE_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    import pgserver

    server = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()


def _fresh_database(admin_url: str) -> str:
    """A new, empty database on the server, so tests never see each other's rows."""
    import psycopg

    name = f"veritype_test_{os.getpid()}_{next(_database_numbers)}"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(admin_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    admin_url: str = request.getfixturevalue("postgres_admin_url")
    return _fresh_database(admin_url)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return tmp_path / "indexes"
