"""Running a check: rows in blocks on the local engine or on Ray, into a resumable run
directory (what it found is a ``CheckResult``, in ``veritype.checking._check_result``).

The run directory holds ``manifest.json`` (the input's path and hash, the columns and the
settings) and ``rows.jsonl``, to which each finished block's results are appended. A check
started again on the same input with the same settings reads what is there and checks only
the rows that are not; another input or other settings are refused, so nothing stored is
overwritten by a different run.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict
from itertools import islice
from pathlib import Path
from typing import Any, Literal, Protocol

from veritype._cpus import default_threads
from veritype._pool import WorkerPool
from veritype._ray import RAY_WORKERS, connect
from veritype.checking._check_result import CheckResult
from veritype.checking._row_result import RowResult, UncertainAs
from veritype.checking._rows import (
    BadRow,
    CheckRow,
    Columns,
    check_columns,
    parse_row,
    read_records,
)
from veritype.checking._verify import CheckSettings, RowChecker
from veritype.errors import InputError
from veritype.thresholds import Thresholds
from veritype.views import with_threads

MANIFEST = "manifest.json"
ROWS = "rows.jsonl"
DEFAULT_BLOCK_ROWS = 16
# From how many rows a local check starts a worker process per CPU: twice the rows from which
# the workers pay for their start (spawning, importing, loading their models: about 100 rows
# on 2 cores, benchmarks/check_pool.py), so that a slower start still pays.
POOL_FROM_ROWS = 200
OnRows = Callable[[Sequence[RowResult]], None]


def local_workers(rows: int) -> int:
    """How many worker processes a local check of ``rows`` rows starts: one per CPU this
    process may use from ``POOL_FROM_ROWS`` rows, else none (1: it checks in this process)."""
    return default_threads() if rows >= POOL_FROM_ROWS else 1


class CheckEngine(Protocol):
    """Checks blocks of rows, calling ``on_rows`` with each block's results as it finishes
    (in any order); ``thresholds`` are the τ and τ' its rows are typed by."""

    name: str
    workers: int
    thresholds: Thresholds

    def check_block(self, rows: Sequence[CheckRow]) -> list[RowResult]: ...

    def check_blocks(self, blocks: Iterable[Sequence[CheckRow]], on_rows: OnRows) -> None: ...


class LocalEngine:
    """Checks every block on this machine: in this process, or with ``workers`` > 1 in as
    many worker processes, each with one CPU thread for its models and its own views, built
    before the first block (so that the figures time checking, as on Ray)."""

    name = "local"

    def __init__(self, settings: CheckSettings, *, workers: int = 1) -> None:
        if workers < 1:
            raise InputError(f"workers must be at least 1, got {workers}")
        # A bad view or threshold fails here, not inside a worker.
        self.checker = RowChecker(settings)
        self.thresholds = self.checker.thresholds
        self.workers = workers
        self._pool = (WorkerPool(workers, _worker_checker, (worker_settings(settings, 1),),
                                 _check_rows) if workers > 1 else None)

    def check_block(self, rows: Sequence[CheckRow]) -> list[RowResult]:
        if self._pool is None:
            return [self.checker.check(row) for row in rows]
        done: list[RowResult] = []
        self.check_blocks([rows], done.extend)
        return done

    def check_blocks(self, blocks: Iterable[Sequence[CheckRow]], on_rows: OnRows) -> None:
        if self._pool is None:
            for block in blocks:
                on_rows(self.check_block(block))
            return
        for _, rows in self._pool.run([row.to_dict() for row in block] for block in blocks):
            on_rows([RowResult.from_dict(row) for row in rows])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def _worker_checker(settings: dict[str, Any]) -> RowChecker:
    """The views of a worker process of a ``LocalEngine``, with every model loaded."""
    checker = RowChecker(CheckSettings.model_validate(settings))
    checker.warm()
    return checker


def _check_rows(checker: RowChecker, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [checker.check(CheckRow.from_dict(row)).to_dict() for row in rows]


class _RayWorker:
    """A Ray actor: the views loaded once, applied to one block of rows per call."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.checker = RowChecker(CheckSettings.model_validate(settings))

    def check_block(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return _check_rows(self.checker, rows)


def worker_settings(settings: CheckSettings, threads: int) -> dict[str, Any]:
    """``settings`` as a worker given ``threads`` CPUs builds its views from."""
    return {**settings.model_dump(),
            "view_options": with_threads(settings.views, settings.view_options, threads)}


class RayEngine:
    """Checks blocks on a Ray cluster with ``workers`` actors of ``cpus_per_worker`` CPUs each;
    ``address`` ``None`` starts a local cluster ("auto" joins one started with ``ray start``)."""

    name = "ray"

    def __init__(
        self,
        settings: CheckSettings,
        *,
        address: str | None = None,
        workers: int = RAY_WORKERS,
        cpus_per_worker: float = 1.0,
    ) -> None:
        connect(address, workers, cpus_per_worker, InputError)
        import ray

        # A bad view or threshold fails here, not inside a worker.
        self.thresholds = RowChecker(settings).thresholds
        self.workers = workers
        payload = worker_settings(settings, max(1, int(cpus_per_worker)))
        actor: Any = ray.remote(num_cpus=cpus_per_worker)(_RayWorker)
        self._actors: list[Any] = [actor.remote(payload) for _ in range(workers)]

    def check_block(self, rows: Sequence[CheckRow]) -> list[RowResult]:
        done: list[RowResult] = []
        self.check_blocks([rows], done.extend)
        return done

    def check_blocks(self, blocks: Iterable[Sequence[CheckRow]], on_rows: OnRows) -> None:
        import ray

        pending: list[Any] = []

        def finish(count: int) -> None:
            ready, rest = ray.wait(pending, num_returns=count)
            pending[:] = rest
            for ref in ready:
                on_rows([RowResult.from_dict(row) for row in ray.get(ref)])

        for index, block in enumerate(blocks):
            actor = self._actors[index % len(self._actors)]
            pending.append(actor.check_block.remote([row.to_dict() for row in block]))
            if len(pending) >= 2 * len(self._actors):
                finish(1)
        while pending:
            finish(1)

    def close(self) -> None:
        import ray

        for actor in self._actors:
            ray.kill(actor)
        self._actors = []


def create_engine(
    name: str, settings: CheckSettings, *, address: str | None = None, workers: int | None = None
) -> CheckEngine:
    """The engine called ``name``: ``local`` (by default in this process) or ``ray`` (by
    default ``RAY_WORKERS`` workers), with ``workers`` processes."""
    if name == "local":
        return LocalEngine(settings, workers=workers or 1)
    if name == "ray":
        return RayEngine(settings, address=address, workers=workers or RAY_WORKERS)
    raise InputError(f"unknown engine {name!r}; known engines: local, ray")


def records_of(data: Any) -> Iterable[Any]:
    """The rows of ``data``, whatever holds them: a pandas DataFrame, a Hugging Face
    ``Dataset``, a RAGAS ``EvaluationDataset``, a mapping of equal-length columns, or an
    iterable of rows. Recognised by shape, so none of those libraries is needed here."""
    if isinstance(data, str | bytes):
        raise InputError("check takes rows, not a text: give a list of mappings, a DataFrame "
                         "or a dataset (check_file reads a file)")
    if hasattr(data, "to_dict") and hasattr(data, "columns") and hasattr(data, "iloc"):
        records: list[Any] = data.to_dict(orient="records")  # a pandas DataFrame
        return records
    if hasattr(data, "samples") and hasattr(data, "to_list"):  # a RAGAS EvaluationDataset
        listed: list[Any] = data.to_list()
        return listed
    if isinstance(data, Mapping) and data and all(
            isinstance(column, Sequence) and not isinstance(column, str)
            for column in data.values()):
        lengths = {len(column) for column in data.values()}
        if len(lengths) != 1:
            raise InputError("the columns of the mapping differ in length: "
                             + ", ".join(f"{name} {len(column)}" for name, column in data.items()))
        names = list(data)
        return [dict(zip(names, values, strict=True)) for values in zip(*data.values(),
                                                                         strict=True)]
    if isinstance(data, Mapping):
        raise InputError("check takes rows: give a list of mappings (one per row), a mapping "
                         "of columns, a DataFrame or a dataset")
    if not isinstance(data, Iterable):
        raise InputError(f"check takes rows, not a {type(data).__name__}")
    return data  # a list of rows, or a Hugging Face Dataset (its iteration yields rows)


def check(
    rows: Any,
    *,
    settings: CheckSettings | None = None,
    columns: Columns | None = None,
    engine: str | CheckEngine = "local",
    block_rows: int = DEFAULT_BLOCK_ROWS,
    on_rows: OnRows | None = None,
    uncertain_as: UncertainAs | Literal["pass", "fail"] = UncertainAs.FAIL,
) -> CheckResult:
    """Check rows given in Python: mappings with an answer, contexts and optionally a
    question (RAGAS, TruLens and DeepEval column names are recognised) or :class:`CheckRow`
    objects, in a list, a pandas DataFrame, a Hugging Face ``Dataset``, a RAGAS
    ``EvaluationDataset`` or a mapping of columns. A row that cannot be checked is reported,
    not raised. ``uncertain_as`` says how Uncertain claims count in the result's figures."""
    counting = UncertainAs.of(uncertain_as)
    settings = settings or CheckSettings()
    columns = columns or Columns()
    parsed: list[CheckRow | BadRow] = []
    for line, row in enumerate(records_of(rows), start=1):
        if isinstance(row, CheckRow):
            parsed.append(row)
        elif isinstance(row, Mapping):
            parsed.append(parse_row(line, row, columns))
        else:
            parsed.append(BadRow(line, f"a {type(row).__name__}, not a mapping"))
    runner = create_engine(engine, settings) if isinstance(engine, str) else engine
    good = [row for row in parsed if isinstance(row, CheckRow)]
    results: list[RowResult] = []

    def keep(done: Sequence[RowResult]) -> None:
        results.extend(done)
        if on_rows is not None:
            on_rows(done)

    started = time.perf_counter()
    try:
        runner.check_blocks(_blocks(good, block_rows), keep)
    finally:
        if isinstance(engine, str):
            _close(runner)
    seconds = time.perf_counter() - started
    return CheckResult(sorted(results, key=lambda r: r.row.line),
                       [row for row in parsed if isinstance(row, BadRow)], settings,
                       runner.thresholds, engine=runner.name, workers=runner.workers,
                       seconds=seconds, checked_now=len(results), uncertain_as=counting)


def _close(runner: CheckEngine) -> None:
    close = getattr(runner, "close", None)
    if callable(close):
        close()


def _blocks(rows: Iterable[CheckRow], size: int) -> Iterator[list[CheckRow]]:
    block: list[CheckRow] = []
    for row in rows:
        block.append(row)
        if len(block) == size:
            yield block
            block = []
    if block:
        yield block


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


class RunDirectory:
    """The resumable record of one check of one file."""

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        self.path = path
        self.manifest = manifest
        self.rows_path = path / ROWS

    @classmethod
    def open(cls, path: Path, manifest: dict[str, Any], *, restart: bool = False
             ) -> RunDirectory:
        """The run directory for ``manifest``: created, or continued when it holds the same
        check. Another check's directory is refused (or, with ``restart``, emptied)."""
        if path.exists() and not path.is_dir():
            raise InputError(f"{path}: exists and is not a directory")
        found = path / MANIFEST
        if found.exists() and not restart:
            try:
                stored = json.loads(found.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as error:
                raise InputError(f"{found}: unreadable ({error}); remove it or pass --restart"
                                 ) from None
            differs = sorted(key for key in manifest if stored.get(key) != manifest[key])
            if differs:
                raise InputError(
                    f"{path} holds a check of another file or with other settings (differs "
                    f"in {', '.join(differs)}); choose another --out, or pass --restart to "
                    f"replace it")
        elif found.exists() or (path / ROWS).exists():
            for name in (MANIFEST, ROWS):
                (path / name).unlink(missing_ok=True)
        path.mkdir(parents=True, exist_ok=True)
        if not found.exists():
            found.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return cls(path, manifest)

    def stored(self) -> tuple[list[RowResult], list[BadRow]]:
        """What earlier runs finished; a line torn by a kill is cut off the file."""
        rows: list[RowResult] = []
        bad: list[BadRow] = []
        if not self.rows_path.exists():
            return rows, bad
        good_bytes = 0
        with self.rows_path.open("rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break
                try:
                    entry = json.loads(raw)
                    if entry.get("kind") == "bad":
                        bad.append(BadRow(int(entry["line"]), str(entry["problem"])))
                    else:
                        rows.append(RowResult.from_dict(entry))
                except (ValueError, KeyError, TypeError):
                    break
                good_bytes += len(raw)
        if good_bytes < self.rows_path.stat().st_size:
            with self.rows_path.open("r+b") as handle:
                handle.truncate(good_bytes)
        return rows, bad

    def append(self, entries: Sequence[RowResult | BadRow]) -> None:
        lines = []
        for entry in entries:
            data = entry.to_dict()
            if isinstance(entry, BadRow):
                data["kind"] = "bad"
            lines.append(json.dumps(data, ensure_ascii=False) + "\n")
        with self.rows_path.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines))
            handle.flush()
            os.fsync(handle.fileno())


def check_file(
    path: Path,
    out: Path,
    *,
    settings: CheckSettings | None = None,
    columns: Columns | None = None,
    engine: str = "local",
    address: str | None = None,
    workers: int | None = None,
    limit: int | None = None,
    restart: bool = False,
    block_rows: int = DEFAULT_BLOCK_ROWS,
    on_start: Callable[[int, int], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
    uncertain_as: UncertainAs | Literal["pass", "fail"] = UncertainAs.FAIL,
) -> CheckResult:
    """Check every row of ``path`` (JSON Lines, CSV or Parquet) into the run directory
    ``out``, continuing a run that stopped there. ``on_start(total, done)`` hears how many
    rows there are and how many an earlier run finished; ``on_rows(n)`` each block.
    ``uncertain_as`` says how Uncertain claims count in the result's figures; it is no
    setting of the run, so one run directory can be read either way."""
    counting = UncertainAs.of(uncertain_as)
    settings = settings or CheckSettings()
    columns = columns or Columns()
    path = Path(path)
    first = [record for _, record in islice(read_records(path), 20) if not isinstance(record, str)]
    check_columns(first, columns, str(path))
    manifest = {"input": str(path.resolve()), "input_sha256": file_digest(path),
                "columns": asdict(columns), "settings": settings.to_dict()}
    total = sum(1 for _ in islice(read_records(path), limit))
    if workers is None and engine == "local":
        workers = local_workers(total)
    # The engine first: settings that cannot be run must not leave a run directory behind.
    runner = create_engine(engine, settings, address=address, workers=workers)
    run = RunDirectory.open(Path(out), manifest, restart=restart)
    stored_rows, stored_bad = run.stored()
    done = {row.row.line for row in stored_rows} | {bad.line for bad in stored_bad}
    if on_start is not None:
        on_start(total, len(done))
    new_rows: list[RowResult] = []
    new_bad: list[BadRow] = []

    def todo() -> Iterator[CheckRow]:
        for line, record in islice(read_records(path), limit):
            if line in done:
                continue
            parsed = parse_row(line, record, columns) if not isinstance(record, str) else (
                BadRow(line, record))
            if isinstance(parsed, BadRow):
                new_bad.append(parsed)
                run.append([parsed])
                if on_rows is not None:
                    on_rows(1)
                continue
            yield parsed

    def keep(results: Sequence[RowResult]) -> None:
        run.append(results)
        new_rows.extend(results)
        if on_rows is not None:
            on_rows(len(results))

    started = time.perf_counter()
    try:
        runner.check_blocks(_blocks(todo(), block_rows), keep)
    finally:
        _close(runner)
    seconds = time.perf_counter() - started
    rows = sorted([*stored_rows, *new_rows], key=lambda r: r.row.line)
    bad = sorted([*stored_bad, *new_bad], key=lambda b: b.line)
    return CheckResult(rows, bad, settings, runner.thresholds, engine=runner.name,
                       workers=runner.workers, seconds=seconds, checked_now=len(new_rows),
                       source=str(path), uncertain_as=counting)
