"""The registry by name that every pluggable part (view, store, retriever, ...) exports."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from veritype.errors import ConfigurationError, UnknownComponentError

Product = TypeVar("Product")
Factory = TypeVar("Factory", bound=Callable[..., Any])


class Registry(Generic[Product]):
    """Factories of one kind of component (``"view"``, ``"generator"``, ...) by name; each
    factory (a class or a function) builds a ``Product``.

    ``lazy`` names factories by ``"module:attribute"`` whose module needs a runtime the core
    does without; the module is imported only when the factory is first looked up, and when
    that import fails for want of a package, the error names ``extra`` to install. An unknown
    name raises :class:`~veritype.errors.UnknownComponentError` listing the known ones;
    registering a different factory under a taken name raises
    :class:`~veritype.errors.ConfigurationError`.
    """

    def __init__(
        self, kind: str, lazy: Mapping[str, str] | None = None, extra: str | None = None
    ) -> None:
        self.kind = kind
        self._factories: dict[str, Callable[..., Product]] = {}
        self._lazy = dict(lazy or {})
        self._extra = extra

    def __contains__(self, name: object) -> bool:
        return name in self._factories or name in self._lazy

    def find(self, name: str) -> Callable[..., Product] | None:
        """The factory registered as ``name``, importing a lazy one; ``None`` if unknown."""
        factory = self._factories.get(name)
        if factory is None and name in self._lazy:
            module, attribute = self._lazy[name].split(":")
            try:
                found: Callable[..., Product] = getattr(importlib.import_module(module),
                                                        attribute)
            except ImportError as error:
                if self._extra is None:
                    raise
                raise ConfigurationError(
                    f"the {name} {self.kind} needs {error.name or 'a missing package'}: "
                    f"pip install 'veritype[{self._extra}]'"
                ) from None
            return found
        return factory

    def get(self, name: str) -> Callable[..., Product]:
        """The factory registered as ``name``; :class:`UnknownComponentError` if unknown."""
        factory = self.find(name)
        if factory is None:
            raise UnknownComponentError(self.kind, name, self.names())
        return factory

    def create(self, name: str, /, **options: Any) -> Product:
        """Build the component registered as ``name`` with ``options``."""
        return self.get(name)(**options)

    def names(self) -> list[str]:
        """Every registered name, lazy ones included, sorted."""
        return sorted({*self._factories, *self._lazy})

    def register(self, name: str) -> Callable[[Factory], Factory]:
        """A decorator that registers its factory under ``name``."""

        def decorator(factory: Factory) -> Factory:
            if self._factories.get(name, factory) is not factory:
                raise ConfigurationError(f"a {self.kind} named {name!r} is already registered")
            self._factories[name] = factory
            return factory

        return decorator
