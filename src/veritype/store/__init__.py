"""Stores: where a corpus lives. SQLite is the embedded default; PostgreSQL scales out."""

from veritype.errors import StoreError
from veritype.store import postgres as _postgres  # noqa: F401  (registers postgresql://)
from veritype.store import sqlite as _sqlite  # noqa: F401  (registers sqlite://)
from veritype.store._base import (
    DEFAULT_STORE_PATH,
    Chunking,
    ChunkVectors,
    DocumentRecord,
    DocumentStore,
    DocumentWrite,
    IndexKind,
    IndexSpec,
    IndexStore,
    Store,
    StoreInputError,
    StoreNotFoundError,
    TitledChunk,
    TraceStore,
    Vectors,
    WriteOutcome,
    available_stores,
    default_store_url,
    layout_fingerprint,
    open_store,
    register_store,
)
from veritype.store.postgres import PostgresStore
from veritype.store.sqlite import SQLiteStore

__all__ = [
    "DEFAULT_STORE_PATH",
    "ChunkVectors",
    "Chunking",
    "DocumentRecord",
    "DocumentStore",
    "DocumentWrite",
    "IndexKind",
    "IndexSpec",
    "IndexStore",
    "PostgresStore",
    "SQLiteStore",
    "Store",
    "StoreError",
    "StoreInputError",
    "StoreNotFoundError",
    "TitledChunk",
    "TraceStore",
    "Vectors",
    "WriteOutcome",
    "available_stores",
    "default_store_url",
    "layout_fingerprint",
    "open_store",
    "register_store",
]
