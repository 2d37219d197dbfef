"""Deadlines that stop work: long-running calls check them between stages and batches.

A server gives each request a :class:`Deadline` and runs the engine under it with
:func:`running_under`; the engine calls :func:`checkpoint` between its stages, between
view batches and, through :func:`checked`, before each claim and evidence pack a view
reads. When the deadline passes, or its request is cancelled, the next checkpoint raises
:class:`DeadlineExceededError`, so the worker is free again within one claim instead of
finishing work nobody waits for. Outside :func:`running_under` a checkpoint does nothing.

Work that changes something (an ingest's write) calls :func:`commit_point` before it starts:
past it, neither the deadline nor a cancel stops the work, so a request either changed
nothing or is answered with what it changed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from veritype.errors import DeadlineError

T = TypeVar("T")


class DeadlineExceededError(DeadlineError):
    """The work was stopped at a checkpoint: its deadline passed or it was cancelled."""


class Deadline:
    """A point in time (``time.monotonic``) after which work stops, and a cancel switch."""

    def __init__(self, seconds: float | None = None) -> None:
        self.at = None if seconds is None else time.monotonic() + seconds
        self._lock = threading.Lock()
        self._cancelled = False
        self._committed = False

    def cancel(self) -> bool:
        """Stop the work at its next checkpoint (safe to call from another thread); ``False``
        when the work has passed its commit point and will finish."""
        with self._lock:
            if not self._committed:
                self._cancelled = True
            return not self._committed

    @property
    def committed(self) -> bool:
        return self._committed

    @property
    def expired(self) -> bool:
        return self._cancelled or (self.at is not None and time.monotonic() >= self.at)

    def check(self, stage: str) -> None:
        if self._committed:
            return
        if self._cancelled:
            raise DeadlineExceededError(f"cancelled before {stage}")
        if self.at is not None and time.monotonic() >= self.at:
            raise DeadlineExceededError(f"deadline passed before {stage}")

    def commit(self, stage: str) -> None:
        """The last check before ``stage``: from here on the work runs to its end."""
        with self._lock:
            self.check(stage)
            self._committed = True


_current: ContextVar[Deadline | None] = ContextVar("veritype_deadline", default=None)


@contextmanager
def running_under(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the one :func:`checkpoint` checks in this thread (or task)."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def checkpoint(stage: str) -> None:
    """Raise :class:`DeadlineExceededError` if the current deadline has passed or was cancelled."""
    deadline = _current.get()
    if deadline is not None:
        deadline.check(stage)


def checked(items: Iterable[T], stage: str) -> Iterator[T]:
    """``items``, with a :func:`checkpoint` before each: a loop over them stops within one
    item of a cancel, where a view's batch of many claims would otherwise run to its end."""
    for item in items:
        checkpoint(stage)
        yield item


def commit_point(stage: str) -> None:
    """The last :func:`checkpoint` before ``stage``, which changes something: the work either
    stops here or runs to its end, whatever its deadline."""
    deadline = _current.get()
    if deadline is not None:
        deadline.commit(stage)
