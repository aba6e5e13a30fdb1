"""The router: one chunker that splits each content type with the strategy its profile names.

The text strategy builds the tree; blocks whose type is routed to another strategy (a table,
a code listing) are handed to that strategy through :meth:`Chunker.split_range`. A structure
strategy (``hierarchical``, ``parent-child``) receives them as delegates and keeps them inside
their section, so they inherit its ``section_path``; with a flat text strategy they sit between
the text chunks, in document order.

The router is registered as the strategy ``auto`` (parameters: ``profile``, ``settings``,
``profiles_file``), so a tree records which profile and which strategies built it.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..model import CONTENT_TYPES, Document
from ..registry import INTERNAL
from .base import Chunker, Span
from .profiles import Profile, get_profile, profile_names
from .regions import Regions, RoutedChunker
from .registry import make_chunker

__all__ = ["Router", "chunker_for_profile", "profile_names"]


@dataclass(frozen=True)
class Router(Chunker):
    """Content type -> strategy, from a named profile (see :mod:`zoomrag.parse.profiles`)."""

    name = "auto"

    profile: str = "default"
    #: Strategy parameters over the profile's: ``(("size", 512), ("table.size", 64))``.
    settings: tuple[tuple[str, Any], ...] = ()
    #: A TOML/JSON profiles file merged over the built-ins (see :mod:`zoomrag.parse.profiles`).
    profiles_file: str | None = None
    #: The routes as an index pinned them, ``(content type, strategy, parameters as JSON)``:
    #: used instead of what the profile resolves to now, so an index keeps chunking as it was
    #: built when a release or a profiles file changes the profile (:meth:`pinned_routes`).
    pinned: tuple[tuple[str, str, str], ...] = field(default=(), metadata=INTERNAL)

    def __post_init__(self) -> None:
        if not all(isinstance(kv, tuple) and len(kv) == 2 and isinstance(kv[0], str)
                   for kv in self.settings):
            raise ConfigError(f"auto: settings={self.settings!r} must be (key, value) pairs; "
                              "on the command line use --profile NAME --set key=value")
        self.routes  # resolved now: a bad profile or setting is an error here, not at first use

    @functools.cached_property
    def routes(self) -> tuple[tuple[str, Chunker], ...]:
        """Content type -> chunker, for every content type (derived from the fields, so not a
        field itself: equality and describe follow them)."""
        if self.pinned:
            return _from_pinned(self.pinned)
        return resolve(get_profile(self.profile, self.profiles_file), dict(self.settings))

    def pinned_routes(self) -> tuple[tuple[str, str, str], ...]:
        """The routes as data an index can pin and :attr:`pinned` rebuild."""
        return tuple((t, c.name, json.dumps(c.params(), sort_keys=True, default=str)) for t, c in self.routes)

    @property
    def text_chunker(self) -> Chunker:
        return dict(self.routes)["text"]

    def delegates(self) -> dict[str, Chunker]:
        """Block types split by another strategy than the text one."""
        text = self.text_chunker
        return {t: c for t, c in self.routes if t != "text" and c != text}

    def split(self, document: Document) -> list[Span]:
        text = self.text_chunker
        delegates = {t: c for t, c in self.delegates().items()
                     if any(b.type == t for b in document.blocks)}
        if isinstance(text, RoutedChunker):
            return text.split_routed(document, delegates)
        if not delegates:
            return text.split(document)
        regions = Regions(document, delegates)
        return regions.split(0, len(document.text), lambda s, e: text.split_range(document, s, e))

    def describe(self) -> str:
        text = self.text_chunker
        shown = [(t, c) for t, c in self.routes if t == "text" or c != text]
        routes = ", ".join(f"{t}={c.describe()}" for t, c in shown)
        head = [f"profile={self.profile!r}"]
        if self.settings:
            head.append(f"settings={self.settings!r}")
        if self.profiles_file is not None:
            head.append(f"profiles_file={self.profiles_file!r}")
        return f"{self.name}({', '.join(head)}; {routes})"


def routes_from_description(text: str) -> tuple[tuple[str, str, str], ...] | None:
    """The routes of a :meth:`Router.describe` text, as :meth:`Router.pinned_routes` gives them
    (an index pinned before it recorded its routes as data kept only this text); None when the
    text is not one. Every route's parameters are literals, as ``describe`` writes them."""
    _, sep, rest = text.partition("; ")
    if not sep or not rest.endswith(")"):
        return None
    # strategy names such as parent-child are not Python names: spell them parent__child
    source = _HYPHENATED.sub(lambda m: "=" + m.group(1).replace("-", "__") + "(", rest[:-1])
    try:
        call = ast.parse(f"routes({source})", mode="eval").body
    except SyntaxError:
        return None
    found: dict[str, tuple[str, str]] = {}
    for kw in call.keywords if isinstance(call, ast.Call) else ():
        route = kw.value
        if kw.arg is None or not isinstance(route, ast.Call) or not isinstance(route.func, ast.Name):
            return None
        try:
            params = {k.arg: ast.literal_eval(k.value) for k in route.keywords}
        except ValueError:
            return None
        found[kw.arg] = (route.func.id.replace("__", "-"), json.dumps(params, sort_keys=True, default=str))
    if "text" not in found:
        return None
    return tuple((t, *found.get(t, found["text"])) for t in CONTENT_TYPES)


_HYPHENATED = re.compile(r"=([a-z]+(?:-[a-z]+)+)\(")


def _from_pinned(pinned: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, Chunker], ...]:
    built: dict[tuple[str, str], Chunker] = {}
    for _, strategy, params in pinned:
        if (strategy, params) not in built:
            built[(strategy, params)] = make_chunker(strategy, json.loads(params))
    return tuple((ctype, built[(strategy, params)]) for ctype, strategy, params in pinned)


def resolve(profile: Profile, overrides: Mapping[str, Any]) -> tuple[tuple[str, Chunker], ...]:
    """One chunker per content type; equal routes share one chunker.

    ``overrides`` are strategy parameters: ``size=512`` applies to the text route (and to the
    ``*`` route when text uses it), ``table.size=512`` to the table route only.
    """
    plain = {k: v for k, v in overrides.items() if "." not in k}
    scoped: dict[str, dict[str, Any]] = {}
    for k, v in overrides.items():
        if "." in k:
            ctype, _, key = k.partition(".")
            if ctype not in CONTENT_TYPES:
                raise ConfigError(f"setting {k!r}: {ctype!r} is not a content type; use one of: "
                                  f"{', '.join(CONTENT_TYPES)} (e.g. table.size=512), or no prefix "
                                  "for the text strategy")
            scoped.setdefault(ctype, {})[key] = v
    text_route = profile.route("text")
    built: dict[tuple[str, tuple[tuple[str, Any], ...]], Chunker] = {}
    out: list[tuple[str, Chunker]] = []
    for ctype in CONTENT_TYPES:
        route = profile.route(ctype)
        params = dict(route.params)
        if ctype == "text" or (route is text_route and ctype not in profile.routes):
            params.update(plain)
        params.update(scoped.get(ctype, {}))
        made = (route.strategy, tuple(sorted((k, repr(v)) for k, v in params.items())))
        if made not in built:
            try:
                built[made] = make_chunker(route.strategy, params)
            except ConfigError as e:
                raise ConfigError(f"profile {profile.name!r}, route {ctype!r}: {e}") from None
        out.append((ctype, built[made]))
    return tuple(out)


def chunker_for_profile(name: str, overrides: Mapping[str, Any] | None = None, *,
                        profiles_file: str | Path | None = None) -> Router:
    """The router for a named profile, with ``key=value`` overrides (CLI ``--set``).

    Unprefixed keys set the text strategy's parameters, ``table.size=64`` the table route's.
    ``profiles_file`` is a TOML/JSON file merged over the built-ins. An unknown profile, route
    prefix or parameter is a :class:`~zoomrag.errors.ConfigError` that lists the real ones.
    """
    settings = tuple(sorted(dict(overrides or {}).items()))
    return Router(profile=name, settings=settings,
                  profiles_file=None if profiles_file is None else str(profiles_file))
