"""A fresh database per test or service on the session's PostgreSQL server."""

import itertools
import os
from urllib.parse import urlsplit, urlunsplit

_database_numbers = itertools.count()


def fresh_database(admin_url: str) -> str:
    """A new, empty database on the server, so tests never see each other's rows."""
    import psycopg

    name = f"veritype_test_{os.getpid()}_{next(_database_numbers)}"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name}")
        connection.execute(f"CREATE DATABASE {name}")
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
