"""Strategies by name, and typed construction from ``key=value`` settings."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from ..registry import Registry, user_fields
from .base import Chunker


def _builtin_strategies() -> list[tuple[str, type[Chunker]]]:
    # Read on first use: the strategies import this module (the router builds chunkers by name).
    from .strategies import BUILTIN

    return [(cls.name, cls) for cls in BUILTIN]


#: Every strategy by name: the built-ins and those added with :func:`register`.
STRATEGIES: Registry[type[Chunker]] = Registry("strategy", _builtin_strategies)


def register(cls: type[Chunker]) -> type[Chunker]:
    """Class decorator: make a strategy selectable by its ``name``."""
    if not cls.name:
        raise TypeError(f"{cls.__name__} has no name")
    return STRATEGIES.add(cls.name, cls)


def strategy_names() -> list[str]:
    return STRATEGIES.names()


def strategy_class(name: str) -> type[Chunker]:
    return STRATEGIES.get(name)


def make_chunker(name: str, params: Mapping[str, Any] | None = None) -> Chunker:
    """Build a strategy by name. Unknown parameters are an error that lists the real ones."""
    cls = strategy_class(name)
    params = dict(params or {})
    allowed: dict[str, dataclasses.Field] = {f.name: f for f in user_fields(cls)}
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        have = ", ".join(sorted(allowed)) or "none"
        raise ConfigError(
            f"strategy {name!r} has no parameter {', '.join(map(repr, unknown))}; its parameters are: {have}"
        )
    hints = typing.get_type_hints(cls)
    typed = {k: coerce(name, k, v, hints.get(k, str)) for k, v in params.items()}
    return cls.from_params(typed)


def parse_settings(items: Iterable[str]) -> dict[str, str]:
    """``["size=256", "unit=chars"]`` -> ``{"size": "256", "unit": "chars"}``."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"setting {item!r} is not key=value; write e.g. --set size=256")
        out[key.strip()] = value.strip()
    return out


def coerce(strategy: str, key: str, value: Any, hint: Any) -> Any:
    """Turn a CLI string into the parameter's declared type, and a list into a tuple where a
    tuple is declared; other values pass through."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if isinstance(value, list) and origin is tuple:
        return tuple(value)
    if not isinstance(value, str):
        return value
    try:
        if hint is bool:
            low = value.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if hint is int:
            return int(value)
        if hint is float:
            return float(value)
        if origin is tuple:
            inner = args[0] if args else str
            parts = [p.strip() for p in value.replace(";", ",").split(",") if p.strip()]
            return tuple(coerce(strategy, key, p, inner) for p in parts)
        if origin in (typing.Union, types.UnionType):
            if value.lower() in ("none", "null", ""):
                return None
            for a in args:
                if a is not type(None):
                    return coerce(strategy, key, value, a)
    except ValueError:
        raise ConfigError(
            f"{strategy}: {key}={value!r} is not a valid {getattr(hint, '__name__', hint)}"
        ) from None
    return value
