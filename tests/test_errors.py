"""One exception tree: every public exception class veritype defines is a VeritypeError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import veritype
from veritype.errors import (
    ConfigurationError,
    InputError,
    UnknownComponentError,
    VeritypeError,
)

# An HTTP-level control exception: raised while a request body is read, it must end as
# FastAPI's 413 response, so it stays an HTTPException.
HTTP_CONTROL = {"veritype.server._errors.BodyTooLargeError",
                "veritype.server._errors.BodyTimeoutError"}


def defined_exceptions() -> list[type[BaseException]]:
    found = []
    for module_info in pkgutil.walk_packages(veritype.__path__, "veritype."):
        if module_info.name.endswith("__main__"):
            continue  # running it is running the command line
        try:
            module = importlib.import_module(module_info.name)
        except ImportError:
            continue  # an optional extra this environment lacks
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == module.__name__ and not name.startswith("_")):
                found.append(value)
    return found


def test_every_public_exception_is_a_veritype_error() -> None:
    exceptions = defined_exceptions()
    assert len(exceptions) >= 10
    outside = [f"{cls.__module__}.{cls.__qualname__}" for cls in exceptions
               if not issubclass(cls, VeritypeError)]
    assert sorted(set(outside) - HTTP_CONTROL) == []


def test_tree_classes_keep_their_builtin_meaning() -> None:
    assert issubclass(InputError, ValueError) and issubclass(ConfigurationError, ValueError)
    error = UnknownComponentError("view", "oracle", ["lexical", "numeric"])
    assert isinstance(error, KeyError)
    assert str(error) == "unknown view 'oracle'; known views: lexical, numeric"


def test_one_except_clause_catches_what_the_library_raises() -> None:
    from veritype import EngineConfig, create_view

    with pytest.raises(VeritypeError, match="unknown view 'oracle'"):
        create_view("oracle")
    with pytest.raises(VeritypeError, match="k:"):
        EngineConfig.load(env={}, k=0)
