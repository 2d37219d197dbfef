"""Where an ingest runs, by name: ``local`` (this process) or ``ray`` (a Ray cluster).

Every engine lists the files here and stores through the same :class:`Ingestor`, so the
documents, chunks and vectors it writes, and the content hash that makes a rerun add nothing
twice, are the same whichever engine wrote them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, Unpack, runtime_checkable

from veritype._closing import Closing
from veritype._registry import Registry
from veritype.ingest.pipeline import IngestOptions, Ingestor, IngestReport


@runtime_checkable
class IngestEngine(Protocol):
    """Runs an ingest of files and folders through ``ingestor`` (its store and layout)."""

    name: str
    workers: int

    def ingest(
        self, ingestor: Ingestor, paths: Sequence[Path | str], **options: Unpack[IngestOptions]
    ) -> IngestReport: ...

    def close(self) -> None: ...


# The Ray engine imports ray only when created: the core install does without it.
_ENGINES = Registry[IngestEngine](
    "engine", lazy={"ray": "veritype.ingest.ray_engine:RayIngestEngine"}, extra="ray"
)
register_ingest_engine = _ENGINES.register
available_ingest_engines = _ENGINES.names


def create_ingest_engine(name: str, **options: Any) -> IngestEngine:
    """The ingest engine registered as ``name``; unknown names list the known ones."""
    return _ENGINES.create(name, **options)


@register_ingest_engine("local")
class LocalIngestEngine(Closing):
    """Reads, chunks, embeds and stores in this process, one file after another."""

    name = "local"
    workers = 1

    def ingest(
        self, ingestor: Ingestor, paths: Sequence[Path | str], **options: Unpack[IngestOptions]
    ) -> IngestReport:
        return ingestor.ingest(paths, **options)

    def close(self) -> None:
        """Nothing to release: the engine holds nothing beyond the ingest."""
