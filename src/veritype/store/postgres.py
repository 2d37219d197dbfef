"""The scale-out store: PostgreSQL with pgvector (``pip install "veritype[pg]"``).

Same contract as the SQLite store: every write batch is one transaction, a document's
chunks and vectors go with it (``ON DELETE CASCADE``), and a generation counter tells
derived indexes when to refresh. Dense search runs in the database on an HNSW index.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from veritype.errors import ConfigurationError, StoreError
from veritype.store._base import (
    ChunkVectors,
    DocumentWrite,
    IndexSpec,
    StoreNotFoundError,
    Vectors,
    local_cache_dir,
    normalise_rows,
    register_store,
)
from veritype.store._sql import SCHEMA_VERSION, Dialect, SQLStore

if TYPE_CHECKING:
    import psycopg

# pgvector's HNSW search keeps ef_search candidates and returns at most that many rows; it
# cannot go above 1000. pgvector's own default, 40, finds 0.89 of the exact top 10 among 1 M
# clustered vectors; 128 finds 0.97 there, for about 1.5 times the latency
# (benchmarks/vector_search_1m.py).
DEFAULT_EF_SEARCH = 128
_MAX_EF_SEARCH = 1000


def _redacted(url: str) -> str:
    """The URL without its password, for messages and cache folder names."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresDialect(Dialect):
    """PostgreSQL's spelling: ``veritype_`` tables, ``%s``, ``ON CONFLICT``, arrays."""

    table_prefix = "veritype_"
    placeholder = "%s"
    serial_key = "BIGSERIAL PRIMARY KEY"
    real_type = "DOUBLE PRECISION"
    json_type = "JSONB"
    document_reference = " REFERENCES veritype_documents (doc_id) ON DELETE CASCADE"
    keeps_nul = False
    source_lock = "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))"

    def matching(self, column: str, values: list[str]) -> Iterator[tuple[str, Sequence[Any]]]:
        if values:
            yield f"{column} = ANY(?)", (values,)

    def upsert(self, table: str, columns: Sequence[str]) -> str:
        key, *others = columns
        updates = ", ".join(f"{column} = EXCLUDED.{column}" for column in others)
        return (
            f"INSERT INTO {{{table}}} VALUES ({', '.join('?' * len(columns))}) "
            f"ON CONFLICT ({key}) DO UPDATE SET {updates}"
        )

    def insert_new(self, table: str, key: str, rows: str) -> str:
        return f"INSERT INTO {{{table}}} VALUES {rows} ON CONFLICT ({key}) DO NOTHING"


class PostgresStore(SQLStore):
    """PostgreSQL + pgvector; tables are prefixed ``veritype_`` in the connection's schema."""

    dialect = PostgresDialect()
    _db: psycopg.Connection[Any]

    def __init__(
        self,
        url: str,
        *,
        index_dir: Path | str | None = None,
        create: bool = True,
        ef_search: int = DEFAULT_EF_SEARCH,
    ) -> None:
        if not 1 <= ef_search <= _MAX_EF_SEARCH:
            raise ConfigurationError(f"ef_search must be 1 to {_MAX_EF_SEARCH}, got {ef_search}")
        self.ef_search = ef_search
        try:
            import psycopg
            from pgvector.psycopg import register_vector
        except ImportError as error:
            raise StoreError(
                'the PostgreSQL store needs the pg extra: python -m pip install "veritype[pg]"'
            ) from error
        self._driver_error = psycopg.Error
        self.url = self._where = _redacted(url)
        self._index_dir = Path(index_dir) if index_dir else local_cache_dir(self.url)
        try:
            self._db = psycopg.connect(url, autocommit=True)
            if not create and not self._has_table("veritype_meta"):
                self._db.close()
                raise StoreNotFoundError(self.url)
            with self._transaction():
                # Serialise first-time setup between processes opening a new database.
                self._db.execute("SELECT pg_advisory_xact_lock(4242424242)")
                self._db.execute("CREATE EXTENSION IF NOT EXISTS vector")
                self._db.execute(self.dialect.schema())
                self._add_meta_defaults()
            register_vector(self._db)
        except psycopg.Error as error:
            raise StoreError(f"cannot open PostgreSQL store {self.url}: {error}") from error
        schema = self._meta("schema")
        if schema != SCHEMA_VERSION:
            raise StoreError(
                f"{self.url} has store schema {schema}, this veritype reads {SCHEMA_VERSION}"
            )

    def _transaction(self) -> AbstractContextManager[object]:
        return self._db.transaction()

    def _executemany(self, template: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._db.cursor() as cursor:
            cursor.executemany(self.dialect.sql(template), rows)

    def _delete_documents(self, where: str, params: Sequence[Any]) -> int:
        # Chunks and vectors go with their document: ON DELETE CASCADE.
        return self._execute(f"DELETE FROM {{documents}} WHERE {where}", params).rowcount

    @staticmethod
    def _vector_table(index_name: str) -> str:
        return "veritype_vectors_" + index_name.replace("-", "_").lower()

    def _has_table(self, table: str) -> bool:
        row = self._db.execute("SELECT to_regclass(%s)", (table,)).fetchone()
        return row is not None and row[0] is not None

    def _prepare_write(self, writes: Sequence[DocumentWrite]) -> None:
        # A vector column has a fixed size, so an index's table is made on its first vectors.
        for item in writes:
            for index_name, rows in item.vectors.items():
                if len(rows.chunk_ids):
                    self._ensure_vector_table(index_name, int(rows.vectors.shape[1]))

    def _ensure_vector_table(self, index_name: str, dimensions: int) -> None:
        from psycopg import sql

        table = self._vector_table(index_name)
        self._db.execute(
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {table} ("
                " seq BIGSERIAL PRIMARY KEY,"
                " chunk_id TEXT NOT NULL UNIQUE,"
                " doc_id TEXT NOT NULL REFERENCES veritype_documents (doc_id) ON DELETE CASCADE,"
                " embedding vector({dims}) NOT NULL)"
            ).format(table=sql.Identifier(table), dims=sql.Literal(dimensions))
        )
        self._db.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {name} ON {table} "
                "USING hnsw (embedding vector_cosine_ops)"
            ).format(name=sql.Identifier(f"{table}_hnsw"), table=sql.Identifier(table))
        )
        self._db.execute(
            sql.SQL("CREATE INDEX IF NOT EXISTS {name} ON {table} (doc_id)").format(
                name=sql.Identifier(f"{table}_by_doc"), table=sql.Identifier(table)
            )
        )

    def _insert_vectors(self, doc_id: str, vectors: Mapping[str, ChunkVectors]) -> None:
        from psycopg import sql

        with self._db.cursor() as cursor:
            for index_name, rows in vectors.items():
                if not len(rows.chunk_ids):
                    continue
                cursor.executemany(
                    sql.SQL(
                        "INSERT INTO {table} (chunk_id, doc_id, embedding) VALUES (%s, %s, %s)"
                    ).format(table=sql.Identifier(self._vector_table(index_name))),
                    [
                        (chunk_id, doc_id, np.asarray(row, dtype=np.float32))
                        for chunk_id, row in zip(rows.chunk_ids, rows.vectors, strict=True)
                    ],
                )

    def vectors(self, index: IndexSpec) -> tuple[list[str], Vectors]:
        from psycopg import sql

        table = self._vector_table(index.name)
        if not self._has_table(table):
            return [], np.zeros((0, 0), dtype=np.float32)
        rows = self._db.execute(
            sql.SQL("SELECT chunk_id, embedding FROM {table} ORDER BY seq").format(
                table=sql.Identifier(table)
            )
        ).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.vstack([_as_array(row[1]) for row in rows])
        return [str(row[0]) for row in rows], matrix

    def search_vectors(
        self, index: IndexSpec, queries: Vectors, k: int
    ) -> list[list[tuple[str, float]]]:
        from psycopg import sql

        table = self._vector_table(index.name)
        if k < 1 or not self._has_table(table):
            return [[] for _ in range(len(queries))]
        statement = sql.SQL(
            "SELECT chunk_id, 1 - (embedding <=> %s) FROM {table} "
            "ORDER BY embedding <=> %s LIMIT %s"
        ).format(table=sql.Identifier(table))
        results: list[list[tuple[str, float]]] = []
        with self._transaction():
            # HNSW returns at most ef_search rows; widen it to the k asked for.
            self._db.execute(
                sql.SQL("SET LOCAL hnsw.ef_search = {}").format(
                    sql.Literal(min(max(self.ef_search, k), _MAX_EF_SEARCH))
                )
            )
            for query in normalise_rows(np.atleast_2d(np.asarray(queries, dtype=np.float32))):
                rows = self._db.execute(statement, (query, query, k)).fetchall()
                results.append([(str(chunk_id), float(score)) for chunk_id, score in rows])
        return results


def _as_array(value: Any) -> Vectors:
    """pgvector hands back numpy arrays or its own ``Vector``, depending on its version."""
    as_numpy = getattr(value, "to_numpy", None)
    return np.asarray(as_numpy() if as_numpy else value, dtype=np.float32)


@register_store("postgresql")
def open_postgres_store(url: str, **options: Any) -> PostgresStore:
    return PostgresStore(url, **options)
