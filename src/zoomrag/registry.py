"""Named choices of one kind: strategies, expansion policies, embedders, length units, formats,
profiles. One small type, so every lookup fails the same way, naming the value and the choices.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from .errors import ConfigError

T = TypeVar("T")

#: Metadata of a dataclass field that zoomrag sets itself (a router's pinned routes, ``auto``'s
#: choice from the index): not a parameter a user sets, sees listed, or finds in a description.
INTERNAL: Mapping[str, bool] = MappingProxyType({"internal": True})


def user_fields(factory: Any) -> tuple[dataclasses.Field, ...]:
    """The fields of a registered dataclass (class or instance) that a user sets; none for
    anything else."""
    if not dataclasses.is_dataclass(factory):
        return ()
    return tuple(f for f in dataclasses.fields(factory) if f.init and not f.metadata.get("internal"))


def unknown_name(kind: str, name: object, choices: Iterable[str]) -> ConfigError:
    """The error for a name that is not among ``choices``: ``unknown KIND 'x'; choose one of: ...``."""
    return ConfigError(f"unknown {kind} {name!r}; choose one of: {', '.join(choices)}")


class Registry(Generic[T]):
    """Entries of one ``kind`` by name: the built-ins, and those added with :meth:`add`.

    ``builtins`` returns the built-in entries and is called on first use, so a registry in a
    base module can list entries defined in modules that import that base. An added entry wins
    over a built-in of the same name, whenever it was added; :meth:`remove` takes it back.
    ``also`` are names a caller resolves before looking up (``auto``, ``tokens``): they are
    listed first among the choices in errors.
    """

    def __init__(self, kind: str, builtins: Callable[[], Iterable[tuple[str, T]]] | None = None, *,
                 also: Sequence[str] = ()):
        self.kind = kind
        self.also = tuple(also)
        self._load = builtins
        self._builtins: dict[str, T] | None = None if builtins is not None else {}
        self._added: dict[str, T] = {}
        self._loading = False
        # Guards reading the built-ins (once). Reentrant: the modules that loading imports may
        # look names up while they are imported.
        self._lock = threading.RLock()

    def add(self, name: str, value: T) -> T:
        """Make ``value`` selectable as ``name`` (replacing what was added under it); returns it."""
        if not name:
            raise ValueError(f"a {self.kind} needs a name")
        # No lock: a module being imported by another thread's built-ins loading may add itself.
        self._added[name] = value
        return value

    def remove(self, name: str) -> None:
        """Take back what :meth:`add` put under ``name`` (a built-in of that name is back)."""
        self._added.pop(name, None)

    def get(self, name: str) -> T:
        """The entry called ``name``; else a :class:`ConfigError` that lists the choices."""
        builtins = self._ready()
        try:
            return self._added[name]
        except KeyError:
            pass
        try:
            return builtins[name]
        except KeyError:
            raise self.unknown(name) from None

    def names(self) -> list[str]:
        """Every name, sorted (not the ``also`` names)."""
        return sorted({**self._ready(), **self._added})

    def items(self) -> list[tuple[str, T]]:
        """``(name, entry)`` pairs: the built-ins in their order (an added entry of the same name in
        its place), then the other added ones in the order they were added."""
        merged = {**self._ready(), **self._added}
        return list(merged.items())

    def __contains__(self, name: object) -> bool:
        return name in self._added or name in self._ready()

    def unknown(self, name: object) -> ConfigError:
        """The error for a name that is not here, listing the choices."""
        return unknown_name(self.kind, name, [*self.also, *self.names()])

    def _ready(self) -> dict[str, T]:
        builtins = self._builtins
        if builtins is None:
            with self._lock:
                if self._builtins is None:
                    if self._loading:  # asked by a module the built-ins are being imported from
                        return {}
                    assert self._load is not None
                    self._loading = True
                    try:
                        self._builtins = dict(self._load())
                    finally:
                        self._loading = False
                builtins = self._builtins
        return builtins
