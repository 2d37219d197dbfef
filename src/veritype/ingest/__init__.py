"""Ingestion: read files of many formats into a store, with chunks and index vectors."""

from veritype.ingest.corpus import (
    DEFAULT_CHUNKING,
    DEFAULT_INDEXES,
    HYBRID,
    Corpus,
)
from veritype.ingest.demo import demo_corpus_path
from veritype.ingest.engines import (
    IngestEngine,
    available_ingest_engines,
    create_ingest_engine,
    register_ingest_engine,
)
from veritype.ingest.pipeline import Ingestor, IngestReport, Skipped, collect_files
from veritype.ingest.readers import (
    READERS,
    RecordFields,
    SourceDocument,
    UnreadableFileError,
    read_file,
)

__all__ = [
    "DEFAULT_CHUNKING",
    "DEFAULT_INDEXES",
    "HYBRID",
    "READERS",
    "Corpus",
    "IngestEngine",
    "IngestReport",
    "Ingestor",
    "RecordFields",
    "Skipped",
    "SourceDocument",
    "UnreadableFileError",
    "available_ingest_engines",
    "collect_files",
    "create_ingest_engine",
    "demo_corpus_path",
    "read_file",
    "register_ingest_engine",
]
