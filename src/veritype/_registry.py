"""The registry by name that every pluggable part (view, store, retriever, ...) exports."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

Factory = TypeVar("Factory", bound=Callable[..., Any])


class Registry(dict[str, Factory]):
    """Factories by name; registering a different factory under a taken name is an error.

    ``lazy`` names factories by ``"module:attribute"`` whose module needs a runtime the core
    does without; the module is imported only when the factory is first looked up.
    """

    def __init__(
        self, duplicate: Callable[[str], Exception], lazy: Mapping[str, str] | None = None
    ) -> None:
        super().__init__()
        self._duplicate = duplicate
        self._lazy = dict(lazy or {})

    def find(self, name: str) -> Factory | None:
        """The factory registered as ``name``, importing a lazy one; ``None`` if unknown.

        A lazy factory's ``ImportError`` (a missing optional package) propagates."""
        factory = self.get(name)
        if factory is None and name in self._lazy:
            module, attribute = self._lazy[name].split(":")
            found: Factory = getattr(importlib.import_module(module), attribute)
            return found
        return factory

    def names(self) -> list[str]:
        """Every registered name, lazy ones included, sorted."""
        return sorted({*self, *self._lazy})

    def register(self, name: str) -> Callable[[Factory], Factory]:
        """A decorator that registers its factory under ``name``."""

        def decorator(factory: Factory) -> Factory:
            if name in self and self[name] is not factory:
                raise self._duplicate(name)
            self[name] = factory
            return factory

        return decorator
