"""One way to configure every part: settings models, the environment, the cache folder.

Every settings class (the engine's, the server's, training's, evaluation's) is a
:class:`Settings`: a frozen pydantic model whose values come, later winning, from its
defaults, a TOML file, ``VERITYPE_<FIELD>`` environment variables (for the fields the class
names in ``env_fields``) and keyword overrides. A bad value raises
:class:`~veritype.errors.ConfigurationError` naming the field.

The environment is read here and nowhere else: :func:`env` for a variable, :func:`env_flag`
for a switch, :func:`cache_dir` for the one cache rule (``$VERITYPE_CACHE_DIR``, else
``$XDG_CACHE_HOME/veritype``, else ``~/.cache/veritype``; derived models live in its
``models`` folder).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import UnionType
from typing import Any, ClassVar, Self, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from veritype.errors import ConfigurationError

ENV_PREFIX = "VERITYPE_"
_TRUE = frozenset({"1", "true", "yes", "on"})


def env(name: str, default: str | None = None) -> str | None:
    """The environment variable ``VERITYPE_<name>`` (``name`` without the prefix), or
    ``default`` when it is unset or empty."""
    value = os.environ.get(ENV_PREFIX + name)
    return value if value else default


def env_flag(name: str) -> bool:
    """Whether ``VERITYPE_<name>`` is set to a true value (1, true, yes or on)."""
    return (env(name) or "").strip().lower() in _TRUE


def cache_dir() -> Path:
    """veritype's cache folder: ``$VERITYPE_CACHE_DIR``, else the user's cache folder."""
    given = env("CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "veritype"


def model_cache_dir() -> Path:
    """Where derived model files (int8 graphs, exported encoders, the judge's GGUF) go."""
    return cache_dir() / "models"


class Settings(BaseModel):
    """Frozen settings: defaults < TOML file < ``VERITYPE_*`` environment < overrides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Fields that may come from ``VERITYPE_<FIELD>``; lists are comma-separated there.
    env_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def load(
        cls,
        path: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> Self:
        """The settings from ``path`` (TOML), the environment and ``overrides`` (``None``
        values are ignored, so unset command-line options fall through)."""
        values: dict[str, Any] = read_toml(Path(path)) if path is not None else {}
        environment = os.environ if env is None else env
        for name in cls.env_fields:
            raw = environment.get(ENV_PREFIX + name.upper())
            if raw:
                values[name] = cls._from_env(name, raw)
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls.validated(values)

    @classmethod
    def validated(cls, values: Mapping[str, Any]) -> Self:
        """The settings made of ``values``; :class:`ConfigurationError` naming each problem."""
        try:
            return cls.model_validate(dict(values))
        except ValidationError as error:
            raise ConfigurationError(
                f"invalid {cls.__name__}: {_problems(cls, error)}"
            ) from None

    @classmethod
    def _from_env(cls, name: str, raw: str) -> Any:
        # The field's types, with None left out of an optional one.
        annotation = cls.model_fields[name].annotation
        kinds = [kind for kind in (get_args(annotation) if get_origin(annotation) in (UnionType,
                 Union) else (annotation,)) if kind is not type(None)]
        if any(get_origin(kind) in (list, tuple) for kind in kinds):
            return [part.strip() for part in raw.split(",") if part.strip()]
        if bool in kinds:
            return raw.strip().lower() in _TRUE
        return raw


def _problems(model: type[BaseModel], error: ValidationError) -> str:
    """Unknown keys grouped per table (with the known ones listed), then each invalid field
    with pydantic's reason."""
    unknown: dict[tuple[str, ...], list[str]] = {}
    problems: list[str] = []
    for item in error.errors():
        where = tuple(str(part) for part in item["loc"])
        if item["type"] == "extra_forbidden":
            unknown.setdefault(where[:-1], []).append(where[-1])
        else:
            problems.append(f"{'.'.join(where) or 'settings'}: {item['msg']}")
    for table, keys in unknown.items():
        fields: type[BaseModel] = model
        for part in table:
            nested = fields.model_fields[part].annotation
            if isinstance(nested, type) and issubclass(nested, BaseModel):
                fields = nested
        label = f"[{'.'.join(table)}]: " if table else ""
        problems.insert(0, f"{label}unknown keys {', '.join(keys)}; "
                           f"known: {', '.join(sorted(fields.model_fields))}")
    return "; ".join(problems)


def check_view_options(view_options: Mapping[str, object], views: Sequence[str]) -> None:
    """Refuse options for views that do not run (a misspelt name would be ignored)."""
    stray = sorted(set(view_options) - set(views))
    if stray:
        raise ConfigurationError(f"view_options names views that are not configured: "
                                 f"{', '.join(stray)} (views: {', '.join(views)})")


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table; :class:`ConfigurationError` when it is missing or invalid."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigurationError(f"config file {path} cannot be read ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"config file {path} is not valid TOML: {error}") from None


__all__ = [
    "ENV_PREFIX",
    "Settings",
    "cache_dir",
    "check_view_options",
    "env",
    "model_cache_dir",
    "read_toml",
]
