"""A base for objects that hold resources: ``close()`` once, or use them in ``with``."""

from __future__ import annotations

from typing import Self


class Closing:
    """``with obj:`` closes ``obj`` on the way out; subclasses give ``close``."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
