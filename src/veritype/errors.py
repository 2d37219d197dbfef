"""Every error veritype raises on purpose, in one tree: catch :class:`VeritypeError` once.

::

    VeritypeError
    ├── ConfigurationError      a setting, config file or option that cannot work
    ├── InputError              a query, answer, file or row that cannot be used
    │   └── DataError           a dataset that is missing, unreadable or malformed
    ├── UnknownComponentError   a view, store, generator, ... name that is not registered
    ├── ModelError              a model that is missing or fails to load or run
    ├── StoreError              the document / vector / trace store failed
    ├── GenerationError         a generator or judge failed to produce text
    ├── DecodingError           truth-aware decoding cannot run as asked
    └── DeadlineError           a request ran out of its time

Each class also derives from the built-in exception that fits it (``ValueError``,
``KeyError``, ``RuntimeError``, ``TimeoutError``), so ``except ValueError`` keeps working.
Messages name the problem and, where there is one, the way out.
"""

from __future__ import annotations

from collections.abc import Sequence


class VeritypeError(Exception):
    """The root of every error veritype raises on purpose."""


class ConfigurationError(VeritypeError, ValueError):
    """A setting, config file or component option that cannot work."""


class InputError(VeritypeError, ValueError):
    """Input that cannot be used: a query, an answer, a file, a row."""


class DataError(InputError):
    """A dataset (evaluation or training) that is missing, unreadable or malformed."""


class UnknownComponentError(VeritypeError, KeyError):
    """A component name no registry knows; the message lists the known names."""

    def __init__(self, kind: str, name: str, known: Sequence[str]) -> None:
        super().__init__(f"unknown {kind} {name!r}; known {kind}s: {', '.join(known) or 'none'}")
        self.kind = kind
        self.name = name
        self.known = list(known)

    def __str__(self) -> str:
        # KeyError would quote the message.
        return str(self.args[0])


class ModelError(VeritypeError, RuntimeError):
    """A model that is missing, cannot be loaded, or fails to run."""


class StoreError(VeritypeError, RuntimeError):
    """The store could not be opened, read or written."""


class GenerationError(VeritypeError, RuntimeError):
    """A generator (or a judge asking one) failed to produce text."""


class DecodingError(VeritypeError, ValueError):
    """Truth-aware decoding cannot run as asked (a guard, a model, a setting)."""


class DeadlineError(VeritypeError, TimeoutError):
    """A request ran out of its time."""


__all__ = [
    "ConfigurationError",
    "DataError",
    "DeadlineError",
    "DecodingError",
    "GenerationError",
    "InputError",
    "ModelError",
    "StoreError",
    "UnknownComponentError",
    "VeritypeError",
]
