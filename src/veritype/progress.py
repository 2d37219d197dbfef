"""How long-running library work reports itself without printing anything.

The library calls a :class:`Progress` (ingesting files, embedding chunks, training steps);
a command module draws it (``veritype._cli.rich_progress``: rich bars on stderr), a test
records it, and ``None`` keeps the work silent.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Tasks with a total, advanced as work is done, plus warnings worth showing at once."""

    def start(self, description: str, total: int, completed: int = 0) -> int:
        """Begin a task; returns its id."""

    def advance(self, task: int, amount: int = 1) -> None: ...

    def describe(self, task: int, description: str) -> None:
        """Change what the task says it is doing (the current file, a running loss)."""

    def finish(self, task: int) -> None:
        """Take a finished sub-task off the display."""

    def warn(self, message: str) -> None: ...


__all__ = ["Progress"]
