"""The scale-out store: PostgreSQL with pgvector (``pip install "veritype[pg]"``).

Same contract as the SQLite store: every write batch is one transaction, a document's
chunks and vectors go with it (``ON DELETE CASCADE``), and a generation counter tells
derived indexes when to refresh. Dense search runs in the database on an HNSW index.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from veritype.evidence import Chunk, Document
from veritype.store._base import (
    Chunking,
    DocumentRecord,
    DocumentWrite,
    IndexSpec,
    StoreError,
    StoreNotFoundError,
    TitledChunk,
    Vectors,
    WriteOutcome,
    check_storable,
    has_nul,
    local_cache_dir,
    normalise_rows,
    register_store,
    storable_trace,
)

if TYPE_CHECKING:
    import psycopg

_SCHEMA_VERSION = "1"
_MAX_EF_SEARCH = 1000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS veritype_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS veritype_documents (
    seq BIGSERIAL PRIMARY KEY,
    doc_id TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    media_type TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    added_at DOUBLE PRECISION NOT NULL,
    chunk_count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS veritype_documents_by_origin ON veritype_documents (origin);
CREATE TABLE IF NOT EXISTS veritype_chunks (
    seq BIGSERIAL PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES veritype_documents (doc_id) ON DELETE CASCADE,
    chunking TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS veritype_chunks_by_doc ON veritype_chunks (doc_id);
CREATE INDEX IF NOT EXISTS veritype_chunks_by_chunking ON veritype_chunks (chunking, seq);
CREATE TABLE IF NOT EXISTS veritype_traces (
    trace_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    data JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS veritype_traces_by_time ON veritype_traces (created_at);
"""

_DOCUMENT_COLUMNS = (
    "doc_id, source, origin, title, text, media_type, fingerprint, added_at, chunk_count"
)


def _redacted(url: str) -> str:
    """The URL without its password, for messages and cache folder names."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresStore:
    """PostgreSQL + pgvector; tables are prefixed ``veritype_`` in the connection's schema."""

    def __init__(
        self, url: str, *, index_dir: Path | str | None = None, create: bool = True
    ) -> None:
        try:
            import psycopg
            from pgvector.psycopg import register_vector
        except ImportError as error:
            raise StoreError(
                'the PostgreSQL store needs the pg extra: python -m pip install "veritype[pg]"'
            ) from error
        self.url = _redacted(url)
        self._index_dir = Path(index_dir) if index_dir else local_cache_dir(self.url)
        try:
            self._db: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True)
            exists = self._db.execute("SELECT to_regclass('veritype_meta')").fetchone()
            if not create and (exists is None or exists[0] is None):
                self._db.close()
                raise StoreNotFoundError(self.url)
            with self._db.transaction():
                # Serialise first-time setup between processes opening a new database.
                self._db.execute("SELECT pg_advisory_xact_lock(4242424242)")
                self._db.execute("CREATE EXTENSION IF NOT EXISTS vector")
                self._db.execute(_SCHEMA)
                self._db.execute(
                    "INSERT INTO veritype_meta VALUES ('schema', %s), ('generation', '0') "
                    "ON CONFLICT (key) DO NOTHING",
                    (_SCHEMA_VERSION,),
                )
            register_vector(self._db)
        except psycopg.Error as error:
            raise StoreError(f"cannot open PostgreSQL store {self.url}: {error}") from error
        schema = self._meta("schema")
        if schema != _SCHEMA_VERSION:
            raise StoreError(
                f"{self.url} has store schema {schema}, this veritype reads {_SCHEMA_VERSION}"
            )

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM veritype_meta WHERE key = %s", (key,)).fetchone()
        return str(row[0]) if row else None

    def _bump_generation(self) -> None:
        self._db.execute(
            "UPDATE veritype_meta SET value = (value::bigint + 1)::text WHERE key = 'generation'"
        )

    @staticmethod
    def _vector_table(index_name: str) -> str:
        return "veritype_vectors_" + index_name.replace("-", "_").lower()

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

    def _has_table(self, table: str) -> bool:
        row = self._db.execute("SELECT to_regclass(%s)", (table,)).fetchone()
        return row is not None and row[0] is not None

    def index_dir(self) -> Path:
        return self._index_dir

    def generation(self) -> int:
        return int(self._meta("generation") or 0)

    def save_layout(self, indexes: Sequence[IndexSpec]) -> None:
        payload = json.dumps([spec.to_dict() for spec in indexes], sort_keys=True)
        self._db.execute(
            "INSERT INTO veritype_meta VALUES ('layout', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (payload,),
        )

    def layout(self) -> list[IndexSpec]:
        value = self._meta("layout")
        return [IndexSpec.from_dict(item) for item in json.loads(value)] if value else []

    def write(self, writes: Sequence[DocumentWrite]) -> list[WriteOutcome]:
        if not writes:
            return []
        check_storable(writes)
        import psycopg

        try:
            for item in writes:
                for index_name, rows in item.vectors.items():
                    if len(rows.chunk_ids):
                        self._ensure_vector_table(index_name, int(rows.vectors.shape[1]))
            with self._db.transaction():
                outcomes = [self._write_one(item) for item in writes]
                self._bump_generation()
        except psycopg.Error as error:
            raise StoreError(f"{self.url}: write failed, nothing was stored: {error}") from error
        return outcomes

    def _write_one(self, item: DocumentWrite) -> WriteOutcome:
        from psycopg import sql

        record, document = item.record, item.record.document
        # Writers of the same source wait for each other, so each sees what the other did.
        self._db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                         (document.source,))
        stored = self._db.execute(
            "SELECT fingerprint FROM veritype_documents WHERE source = %s", (document.source,)
        ).fetchone()
        if stored is not None and stored[0] == record.fingerprint:
            return "unchanged"
        self._db.execute(
            "DELETE FROM veritype_documents WHERE source = %s OR doc_id = %s",
            (document.source, document.doc_id),
        )
        self._db.execute(
            f"INSERT INTO veritype_documents ({_DOCUMENT_COLUMNS}) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                document.doc_id,
                document.source,
                record.origin,
                document.title,
                document.text,
                record.media_type,
                record.fingerprint,
                record.added_at,
                record.chunk_count,
            ),
        )
        with self._db.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO veritype_chunks "
                "(chunk_id, doc_id, chunking, start_offset, end_offset, text) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [
                    (chunk.chunk_id, chunk.doc_id, key, chunk.start, chunk.end, chunk.text)
                    for key, chunks in item.chunks.items()
                    for chunk in chunks
                ],
            )
            for index_name, rows in item.vectors.items():
                if not len(rows.chunk_ids):
                    continue
                cursor.executemany(
                    sql.SQL(
                        "INSERT INTO {table} (chunk_id, doc_id, embedding) VALUES (%s, %s, %s)"
                    ).format(table=sql.Identifier(self._vector_table(index_name))),
                    [
                        (chunk_id, document.doc_id, np.asarray(row, dtype=np.float32))
                        for chunk_id, row in zip(rows.chunk_ids, rows.vectors, strict=True)
                    ],
                )
        return "added" if stored is None else "replaced"

    def fingerprints(self, sources: Sequence[str]) -> dict[str, str]:
        rows = self._db.execute(
            "SELECT source, fingerprint FROM veritype_documents WHERE source = ANY(%s)",
            (_storable(sources),),
        )
        return {str(source): str(stamp) for source, stamp in rows}

    def sources_from(self, origin: str) -> list[str]:
        if has_nul(origin):
            return []
        rows = self._db.execute(
            "SELECT source FROM veritype_documents WHERE origin = %s ORDER BY seq", (origin,)
        )
        return [str(row[0]) for row in rows]

    def delete(self, doc_ids: Sequence[str]) -> int:
        with self._db.transaction():
            deleted = self._db.execute(
                "DELETE FROM veritype_documents WHERE doc_id = ANY(%s)", (_storable(doc_ids),)
            ).rowcount
            if deleted:
                self._bump_generation()
        return int(deleted)

    def delete_sources(self, sources: Sequence[str]) -> int:
        with self._db.transaction():
            deleted = self._db.execute(
                "DELETE FROM veritype_documents WHERE source = ANY(%s)", (_storable(sources),)
            ).rowcount
            if deleted:
                self._bump_generation()
        return int(deleted)

    def document(self, doc_id: str) -> DocumentRecord | None:
        if has_nul(doc_id):
            return None
        row = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM veritype_documents WHERE doc_id = %s", (doc_id,)
        ).fetchone()
        return _record(row) if row else None

    def documents(self, *, limit: int = 100, offset: int = 0) -> list[DocumentRecord]:
        rows = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM veritype_documents ORDER BY seq LIMIT %s OFFSET %s",
            (limit, offset),
        )
        return [_record(row) for row in rows]

    def count_documents(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM veritype_documents").fetchone()
        return int(row[0]) if row else 0

    def count_chunks(self, chunking: Chunking | None = None) -> int:
        if chunking is None:
            row = self._db.execute("SELECT COUNT(*) FROM veritype_chunks").fetchone()
        else:
            row = self._db.execute(
                "SELECT COUNT(*) FROM veritype_chunks WHERE chunking = %s", (chunking.key,)
            ).fetchone()
        return int(row[0]) if row else 0

    def document_chunks(self, doc_id: str) -> list[tuple[str, Chunk]]:
        if has_nul(doc_id):
            return []
        rows = self._db.execute(
            "SELECT chunking, chunk_id, doc_id, start_offset, end_offset, text "
            "FROM veritype_chunks WHERE doc_id = %s ORDER BY chunking, start_offset, seq",
            (doc_id,),
        )
        return [(str(row[0]), Chunk(*row[1:])) for row in rows]

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, TitledChunk]:
        rows = self._db.execute(
            "SELECT c.chunk_id, c.doc_id, c.start_offset, c.end_offset, c.text, d.title "
            "FROM veritype_chunks c JOIN veritype_documents d ON d.doc_id = c.doc_id "
            "WHERE c.chunk_id = ANY(%s)",
            (_storable(dict.fromkeys(chunk_ids)),),
        )
        return {str(row[0]): TitledChunk(Chunk(*row[:5]), str(row[5])) for row in rows}

    def iter_chunks(self, chunking: Chunking, *, batch_size: int = 2000) -> Iterator[TitledChunk]:
        last = 0
        while True:
            rows = self._db.execute(
                "SELECT c.seq, c.chunk_id, c.doc_id, c.start_offset, c.end_offset, c.text, "
                "d.title FROM veritype_chunks c JOIN veritype_documents d "
                "ON d.doc_id = c.doc_id WHERE c.chunking = %s AND c.seq > %s "
                "ORDER BY c.seq LIMIT %s",
                (chunking.key, last, batch_size),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield TitledChunk(Chunk(*row[1:6]), str(row[6]))
            last = int(rows[-1][0])

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
        with self._db.transaction():
            # HNSW returns at most ef_search rows; widen it to the k asked for.
            self._db.execute(
                sql.SQL("SET LOCAL hnsw.ef_search = {}").format(
                    sql.Literal(min(max(40, k), _MAX_EF_SEARCH))
                )
            )
            for query in normalise_rows(np.atleast_2d(np.asarray(queries, dtype=np.float32))):
                rows = self._db.execute(statement, (query, query, k)).fetchall()
                results.append([(str(chunk_id), float(score)) for chunk_id, score in rows])
        return results

    def save_trace(self, trace_id: str, kind: str, trace: Mapping[str, Any]) -> None:
        from psycopg.types.json import Jsonb

        self._db.execute(
            "INSERT INTO veritype_traces VALUES (%s, %s, %s, %s) ON CONFLICT (trace_id) "
            "DO UPDATE SET kind = EXCLUDED.kind, created_at = EXCLUDED.created_at, "
            "data = EXCLUDED.data",
            (trace_id, kind, time.time(), Jsonb(storable_trace(trace))),
        )

    def prune_traces(self, *, older_than: float | None = None, keep: int | None = None) -> int:
        deleted = 0
        with self._db.transaction():
            if older_than is not None:
                deleted += self._db.execute(
                    "DELETE FROM veritype_traces WHERE created_at < %s",
                    (time.time() - older_than,),
                ).rowcount
            if keep is not None:
                deleted += self._db.execute(
                    "DELETE FROM veritype_traces WHERE trace_id NOT IN (SELECT trace_id FROM "
                    "veritype_traces ORDER BY created_at DESC, trace_id DESC LIMIT %s)",
                    (max(keep, 0),),
                ).rowcount
        return deleted

    def count_traces(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM veritype_traces").fetchone()
        return int(row[0]) if row else 0

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        if has_nul(trace_id):
            return None
        row = self._db.execute(
            "SELECT data FROM veritype_traces WHERE trace_id = %s", (trace_id,)
        ).fetchone()
        return dict(row[0]) if row else None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _storable(values: Iterable[str]) -> list[str]:
    """The values a lookup can match: one with a NUL can never have been stored."""
    return [value for value in values if not has_nul(value)]


def _as_array(value: Any) -> Vectors:
    """pgvector hands back numpy arrays or its own ``Vector``, depending on its version."""
    as_numpy = getattr(value, "to_numpy", None)
    return np.asarray(as_numpy() if as_numpy else value, dtype=np.float32)


def _record(row: Any) -> DocumentRecord:
    doc_id, source, origin, title, text, media_type, fingerprint, added_at, chunk_count = row
    return DocumentRecord(
        document=Document(doc_id=doc_id, text=text, title=title, source=source),
        origin=origin,
        media_type=media_type,
        fingerprint=fingerprint,
        added_at=float(added_at),
        chunk_count=int(chunk_count),
    )


@register_store("postgresql")
def open_postgres_store(url: str, **options: Any) -> PostgresStore:
    return PostgresStore(url, **options)
