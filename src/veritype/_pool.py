"""Worker processes on this machine that each build their state once and then take tasks:
what a local check and a local evaluation spread their blocks over.

Each worker is a spawned process (no model session is inherited across a fork) that runs
``start(*arguments)`` once; its result is the state every task of that worker is given.
All workers have started before the pool is returned, so timing the tasks times the work.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing.synchronize import Barrier
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

PARENT_POLL_SECONDS = 1.0
# The state of this worker process, built once by the pool's ``start``.
_state: Any = None


def _start(start: Callable[..., Any], arguments: tuple[Any, ...], started: Barrier) -> None:
    global _state
    threading.Thread(target=_exit_with, args=(os.getppid(),), daemon=True).start()
    _state = start(*arguments)
    started.wait()


def _exit_with(parent: int) -> None:
    """End this worker once ``parent`` is gone: a parent killed outright (SIGKILL, SIGTERM)
    cannot stop its workers, which would otherwise wait for work forever."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def _ready() -> None:
    """Nothing: submitted once per worker, it returns once every worker has started."""


def _run(task: Callable[[Any, Any], Any], item: Any) -> Any:
    return task(_state, item)


class WorkerPool(Generic[Item, Result]):
    """``workers`` processes, each with the state ``start(*arguments)`` built once, applying
    ``task(state, item)`` to the items given to :meth:`run`. ``start`` and ``task`` must be
    module-level functions (a spawned process imports them by name)."""

    def __init__(self, workers: int, start: Callable[..., Any], arguments: tuple[Any, ...],
                 task: Callable[[Any, Item], Result]) -> None:
        context = multiprocessing.get_context("spawn")
        self.workers = workers
        self._task = task
        self._executor = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start,
            initargs=(start, arguments, context.Barrier(workers)))
        # A worker waits at the barrier until all are up, so each takes one of these.
        for future in [self._executor.submit(_ready) for _ in range(workers)]:
            future.result()

    def run(self, items: Iterable[Item]) -> Iterator[tuple[int, Result]]:
        """Each item's index and result, as workers finish them (in any order); at most two
        items per worker wait at a time, so ``items`` is read as the work goes."""
        pending: dict[Future[Result], int] = {}
        for index, item in enumerate(items):
            pending[self._executor.submit(_run, self._task, item)] = index
            if len(pending) >= 2 * self.workers:
                yield from self._finish(pending)
        while pending:
            yield from self._finish(pending)

    @staticmethod
    def _finish(pending: dict[Future[Result], int]) -> Iterator[tuple[int, Result]]:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield pending.pop(future), future.result()

    def close(self) -> None:
        self._executor.shutdown(cancel_futures=True)
