"""The embedded store: one SQLite file in WAL mode, one transaction per write batch.

WAL keeps readers unblocked while an ingest writes; every batch of documents is a single
``BEGIN IMMEDIATE … COMMIT``, so a process killed at any moment leaves exactly the documents
of the committed batches, each complete, and a rerun of the ingest fills in the rest.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from veritype.errors import StoreError
from veritype.store._base import (
    ChunkVectors,
    IndexSpec,
    StoreNotFoundError,
    Vectors,
    register_store,
)
from veritype.store._sql import SCHEMA_VERSION, Dialect, SQLStore
from veritype.store._vectors import DEFAULT_ANN_THRESHOLD, VectorIndex, build_vector_index

# Vectors of every dense index, as float32 bytes: searched in memory (see ``_vectors``).
_VECTORS_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    index_name TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (index_name, chunk_id)
);
CREATE INDEX IF NOT EXISTS vectors_by_doc ON vectors (doc_id);
"""


def _path_from_url(url: str) -> Path:
    """``sqlite:///relative/path`` or ``sqlite:////absolute/path`` → a file path."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise StoreError(
            f"a SQLite store URL looks like sqlite:///path/to/store.sqlite, got {url!r}"
        )
    return Path(url[len(prefix) :])


# How long a connection waits for another one's lock before giving up.
_BUSY_SECONDS = 30.0


def _switch_to_wal(db: sqlite3.Connection) -> None:
    """Put the database in WAL mode. While another process writes to a store that is not yet
    in WAL mode (a new store's first ingest), SQLite refuses the switch at once, without
    waiting, so it is retried until the writer is done."""
    deadline = time.monotonic() + _BUSY_SECONDS
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SQLiteDialect(Dialect):
    """SQLite's spelling: bare table names, ``?``, ``INSERT OR REPLACE``."""

    table_prefix = ""
    placeholder = "?"
    serial_key = "INTEGER PRIMARY KEY AUTOINCREMENT"
    real_type = "REAL"
    json_type = "TEXT"
    keeps_nul = True

    def matching(self, column: str, values: list[str]) -> Iterator[tuple[str, Sequence[Any]]]:
        # In batches: SQLite limits how many parameters one statement takes.
        for start in range(0, len(values), 500):
            batch = values[start : start + 500]
            yield f"{column} IN ({','.join('?' * len(batch))})", batch

    def upsert(self, table: str, columns: Sequence[str]) -> str:
        return f"INSERT OR REPLACE INTO {{{table}}} VALUES ({', '.join('?' * len(columns))})"

    def insert_new(self, table: str, key: str, rows: str) -> str:
        return f"INSERT OR IGNORE INTO {{{table}}} VALUES {rows}"


class SQLiteStore(SQLStore):
    """The embedded default store (see the module docstring for its guarantees)."""

    dialect = SQLiteDialect()
    _db: sqlite3.Connection
    _driver_error = sqlite3.Error

    def __init__(
        self,
        path: Path | str,
        *,
        ann_threshold: int = DEFAULT_ANN_THRESHOLD,
        index_dir: Path | str | None = None,
        create: bool = True,
    ) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StoreNotFoundError(str(self.path))
        self._index_dir = (
            Path(index_dir) if index_dir else self.path.with_name(self.path.name + ".indexes")
        )
        self.url = f"sqlite:///{self.path}"
        self._where = str(self.path)
        self.ann_threshold = ann_threshold
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=_BUSY_SECONDS)
            _switch_to_wal(self._db)
            # NORMAL in WAL mode survives a killed process; only power loss can drop the
            # last commits, never corrupt the file.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(self.dialect.schema() + _VECTORS_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open SQLite store {self.path}: {error}") from error
        self._check_schema()
        self._vector_indexes: dict[str, tuple[int, VectorIndex]] = {}

    def _check_schema(self) -> None:
        schema = self._meta("schema")
        if schema is None:
            # Only a new store is written to: opening an existing one takes no write lock.
            with self._transaction():
                self._add_meta_defaults()
        elif schema != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has store schema {schema}, this veritype reads schema "
                f"{SCHEMA_VERSION}"
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _executemany(self, template: str, rows: Sequence[Sequence[Any]]) -> None:
        self._db.executemany(self.dialect.sql(template), rows)

    def _delete_documents(self, where: str, params: Sequence[Any]) -> int:
        # No foreign keys in this schema: a document's chunks and vectors go by its id.
        doc_ids = [
            (row[0],)
            for row in self._execute(f"SELECT doc_id FROM {{documents}} WHERE {where}", params)
        ]
        for table in ("vectors", "chunks", "documents"):
            self._executemany(f"DELETE FROM {{{table}}} WHERE doc_id = ?", doc_ids)
        return len(doc_ids)

    def _insert_vectors(self, doc_id: str, vectors: Mapping[str, ChunkVectors]) -> None:
        for index_name, rows in vectors.items():
            self._executemany(
                "INSERT INTO {vectors} (index_name, chunk_id, doc_id, vector) VALUES (?, ?, ?, ?)",
                [
                    (index_name, chunk_id, doc_id, np.asarray(row, np.float32).tobytes())
                    for chunk_id, row in zip(rows.chunk_ids, rows.vectors, strict=True)
                ],
            )

    def vectors(self, index: IndexSpec) -> tuple[list[str], Vectors]:
        rows = self._execute(
            "SELECT chunk_id, vector FROM {vectors} WHERE index_name = ? ORDER BY seq",
            (index.name,),
        ).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
        return [row[0] for row in rows], matrix.reshape(len(rows), -1).copy()

    def search_vectors(
        self, index: IndexSpec, queries: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        generation = self.generation()
        cached = self._vector_indexes.get(index.name)
        if cached is None or cached[0] != generation:
            ids, vectors = self.vectors(index)
            built = build_vector_index(
                ids,
                vectors,
                ann_threshold=self.ann_threshold,
                path=self.index_dir() / f"{index.name}.usearch",
                generation=generation,
            )
            cached = (generation, built)
            self._vector_indexes[index.name] = cached
        return cached[1].search(np.asarray(queries, dtype=np.float32), k)


@register_store("sqlite")
def open_sqlite_store(url: str, **options: Any) -> SQLiteStore:
    return SQLiteStore(_path_from_url(url), **options)
