"""The registry by name that every pluggable part (view, store, retriever, ...) exports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

Factory = TypeVar("Factory", bound=Callable[..., Any])


class Registry(dict[str, Factory]):
    """Factories by name; registering a different factory under a taken name is an error."""

    def __init__(self, duplicate: Callable[[str], Exception]) -> None:
        super().__init__()
        self._duplicate = duplicate

    def register(self, name: str) -> Callable[[Factory], Factory]:
        """A decorator that registers its factory under ``name``."""

        def decorator(factory: Factory) -> Factory:
            if name in self and self[name] is not factory:
                raise self._duplicate(name)
            self[name] = factory
            return factory

        return decorator
