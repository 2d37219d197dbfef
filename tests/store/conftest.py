"""Store fixtures: every store test runs against SQLite and a real PostgreSQL server.

PostgreSQL comes from ``$VERITYPE_TEST_POSTGRES_URL`` when set, else from a server that the
``pgserver`` package starts for the session (it ships PostgreSQL with pgvector).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_support import fresh_database


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    admin_url: str = request.getfixturevalue("postgres_admin_url")
    return fresh_database(admin_url)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return tmp_path / "indexes"
