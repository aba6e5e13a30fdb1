"""Named routing profiles: which strategy splits which content type, kept as data.

A profile maps content types (``text``, ``heading``, ``table``, ``code``, ``list``, or ``*`` for
every type not named) to a strategy and its parameters. The built-in profiles are the
dictionary :data:`BUILTIN`; users add or replace profiles with a TOML or JSON file of the same
shape, passed explicitly or named by the ``ZOOMRAG_PROFILES`` environment variable (several
files separated by the path separator), or in Python with :func:`register_profile`::

    [profiles.wide]
    description = "Bigger leaves for long answers"
    text = { strategy = "hierarchical", sizes = [4096, 1024, 256] }
    table = "table"
    "*" = { strategy = "fixed", size = 512 }

A route is a strategy name, or a table with ``strategy`` and that strategy's parameters.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import ConfigError
from ..model import CONTENT_TYPES
from ..registry import Registry, unknown_name

ENV_VAR = "ZOOMRAG_PROFILES"
ANY = "*"

#: Tables in the built-in profiles: rows are the units. A row embeds with its header names, so it
#: is understood alone; cell units repeat their row's label and column units the whole column, so
#: either matches a question wherever the row or the table does and took several of the top-k
#: places for one row ahead of the prose that answered it.
_TABLE_ROWS: Mapping[str, Any] = {"strategy": "table", "cells": False, "columns": False}

#: The built-in profiles, as data in the same shape users write.
BUILTIN: Mapping[str, Mapping[str, Any]] = {
    "default": {
        "description": "Sections and nested size levels for text; tables and code by their "
                       "own strategies, inside their sections",
        "text": "hierarchical",
        "table": _TABLE_ROWS,
        "code": "code",
    },
    "parent_child": {
        "description": "Heading sections as parents, ~128-token overlapping children; tables "
                       "and code by their own strategies",
        "text": "parent-child",
        "table": _TABLE_ROWS,
        "code": "code",
    },
    "source_first": {
        "description": "Every document whole, for source-first retrieval",
        ANY: "none",
    },
    "precision": {
        "description": "Flat 256-token chunks for everything",
        ANY: {"strategy": "fixed", "size": 256},
    },
}

#: Profiles added in this process with :func:`register_profile` (their data, checked when added).
REGISTERED: Registry[Mapping[str, Any]] = Registry("profile")


@dataclass(frozen=True)
class Route:
    """One strategy with its parameters."""

    strategy: str
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Profile:
    """A named routing table: content type (or ``*``) -> route."""

    name: str
    description: str
    routes: Mapping[str, Route]

    def route(self, content_type: str) -> Route:
        """The route for a content type; headings and lists follow text unless named."""
        for key in (content_type, ANY, "text"):
            if key in self.routes:
                return self.routes[key]
        raise ConfigError(f"profile {self.name!r} has no route for {content_type!r}; add 'text' or '*'")


def register_profile(name: str, data: Mapping[str, Any]) -> Profile:
    """Add or replace a profile for this process; returns it parsed (and checked)."""
    profile = parse_profile(name, data, "register_profile")
    REGISTERED.add(name, data)
    return profile


def load_profiles(path: str | Path) -> dict[str, Mapping[str, Any]]:
    """Profile data from a TOML (``[profiles.NAME]``) or JSON (``{"profiles": {...}}``) file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the profiles file ({e.strerror})") from None
    try:
        data = json.loads(raw) if p.suffix.lower() == ".json" else tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ConfigError(f"{p}: not a valid {'JSON' if p.suffix.lower() == '.json' else 'TOML'} "
                          f"profiles file: {e}") from None
    profiles = data.get("profiles") if isinstance(data, dict) else None
    if not isinstance(profiles, dict):
        raise ConfigError(f"{p}: no profiles found; write them as [profiles.NAME] tables")
    for name, body in profiles.items():
        parse_profile(name, body, str(p))  # fail early, naming the file
    return profiles


def all_profiles(extra: str | Path | Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Profile]:
    """Built-ins, then ``ZOOMRAG_PROFILES`` files, registered ones, then ``extra`` (later wins)."""
    layers: list[tuple[str, Mapping[str, Mapping[str, Any]]]] = [("built-in", BUILTIN)]
    for part in filter(None, os.environ.get(ENV_VAR, "").split(os.pathsep)):
        layers.append((part, load_profiles(part)))
    layers.append(("register_profile", dict(REGISTERED.items())))
    if isinstance(extra, (str, Path)):
        layers.append((str(extra), load_profiles(extra)))
    elif extra is not None:
        layers.append(("extra", extra))
    out: dict[str, Profile] = {}
    for origin, profiles in layers:
        for name, body in profiles.items():
            out[name] = parse_profile(name, body, origin)
    return out


def profile_names(extra: str | Path | Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """Names of every available profile, sorted."""
    return sorted(all_profiles(extra))


def get_profile(name: str, extra: str | Path | Mapping[str, Mapping[str, Any]] | None = None) -> Profile:
    profiles = all_profiles(extra)
    if name not in profiles:
        raise unknown_name("profile", name, sorted(profiles))
    return profiles[name]


def parse_profile(name: str, data: Mapping[str, Any], origin: str) -> Profile:
    """Check one profile's data and turn it into a :class:`Profile`."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{origin}: profile {name!r} must be a table of routes, got {data!r}")
    routes: dict[str, Route] = {}
    for key, value in data.items():
        if key == "description":
            continue
        if key != ANY and key not in CONTENT_TYPES:
            raise ConfigError(f"{origin}: profile {name!r} routes unknown content type {key!r}; "
                              f"use one of: {', '.join(CONTENT_TYPES)}, or '*' for the rest")
        routes[key] = _route(name, key, value, origin)
    if "text" not in routes and ANY not in routes:
        raise ConfigError(f"{origin}: profile {name!r} needs a route for 'text' (or '*')")
    return Profile(name, str(data.get("description", "")), MappingProxyType(routes))


def _route(name: str, key: str, value: Any, origin: str) -> Route:
    if isinstance(value, str):
        return Route(value)
    if isinstance(value, Mapping) and isinstance(value.get("strategy"), str):
        # TOML and JSON give lists; strategy parameters (e.g. hierarchical sizes) are tuples.
        params = {k: tuple(v) if isinstance(v, list) else v for k, v in value.items() if k != "strategy"}
        return Route(value["strategy"], MappingProxyType(params))
    raise ConfigError(f"{origin}: profile {name!r} route {key!r} must be a strategy name or a table "
                      f"with 'strategy' and its parameters, got {value!r}")
