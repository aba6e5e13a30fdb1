"""What an index is built with: its embedder, chunking, token counter, levels and heading trails.

The first :meth:`Index.add` pins them in ``index_meta``; every later open is checked against
the pins (:mod:`zoomrag.store.meta`), so one file never mixes two models or two chunkings.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..embed import default_embedder_name, get_embedder
from ..embed.base import Embedder
from ..embed.language import auto_choice
from ..embed.levels import LEVELS_KEY
from ..errors import ConfigError, IndexMismatchError, StoreError
from ..parse import Chunker, make_chunker
from ..parse.router import Router, chunker_for_profile, routes_from_description
from ..search.ann import AnnIndex
from ..store import Pins, SqliteStore, Store
from ..store import meta as pins_check
from ..store.fts import FTS_VERSION
from ..store.schema import SCHEMA_VERSION
from ..text.tokens import TokenCounter, default_counter, get_counter

#: ``index_meta`` key: ``"1"`` when units embed their heading trail (:mod:`.units`).
HEADINGS_KEY = "heading_trails"
#: The chunking of an index opened with neither a strategy nor a profile.
DEFAULT_CHUNKING = ("profile", "default")


class Settings:
    """The settings asked for when opening an index, resolved against its pins."""

    def __init__(self, store: Store, *, embedder: str | Embedder | None, chunking: tuple[str, str] | None,
                 params: Mapping[str, Any] | None, reindex: bool, counter: TokenCounter | None,
                 chunker: Chunker | None = None, levels: bool = False, headings: bool | None = None):
        self.store = store
        self.path = store.path
        self.levels = _levels_setting(store, levels, reindex)
        #: Units embed the headings above them (:mod:`.units`).
        self.headings = _headings_setting(store, headings, reindex)
        self.requested_embedder = embedder
        self.requested_chunking = chunking
        self.params = chunker.params() if chunker is not None else dict(params or {})
        #: True until the next add pins the settings afresh on an emptied index.
        self.reindex = reindex
        self._counter = counter
        self._embedder: Embedder | None = embedder if isinstance(embedder, Embedder) else None
        self._chunker: Chunker | None = chunker
        self.pins = Pins.from_meta(store.meta())
        self._check()

    @property
    def dimension(self) -> int:
        return self.pins.dimension if self.pins else 0

    def roots(self) -> list[str] | None:
        """The folders the last indexing runs were given (named in mismatch errors)."""
        raw = self.store.meta().get("roots")
        return json.loads(raw) if raw else None

    def _check(self) -> None:
        pins = self.pins
        if pins is None or self.reindex:
            return
        where = str(self.path)
        pins_check.check_format(pins, where, self.roots())
        pins_check.check_counter(self.store.meta().get(pins_check.COUNTER_KEY), default_counter().name, where,
                                 self.roots())
        req = self.requested_embedder
        if req is not None:
            name = req if isinstance(req, str) else req.name
            if name != "auto":
                version = None if isinstance(req, str) else req.version
                dim = None if isinstance(req, str) else req.dimension
                pins_check.check_embedder(pins, name, version, dim, where, self.roots())
        if self.requested_chunking is not None:
            kind, name = self.requested_chunking
            chunker = self._chunker or _make_chunker(kind, name, self.params)
            pins_check.check_chunking(pins, kind, name, _chunker_params(kind, chunker, self.params), where,
                                      self.roots(), self.params)
            self._chunker = chunker
        if pins.chunking == "profile":
            _, _, chunker = self.chunking()
            pins_check.check_routes(pins, self.store.meta().get(pins_check.ROUTES_KEY), chunker.describe(),
                                    where, self.roots())

    @property
    def embedder(self) -> Embedder:
        """The pinned embedder (loaded on first use; its version is checked against the pin)."""
        if self._embedder is None:
            if self.pins is None or self.reindex:
                name = self.requested_embedder if isinstance(self.requested_embedder, str) else None
                name = name or (self.pins.embedder if self.pins else default_embedder_name())
                if name == "auto":
                    raise ConfigError("embedder 'auto' is chosen when the first documents are added")
            else:
                name = self.pins.embedder
            self._embedder = get_embedder(name)
        if self.pins is not None and not self.reindex:
            pins_check.check_embedder(self.pins, self._embedder.name, self._embedder.version,
                                      self._embedder.dimension, str(self.path), self.roots())
        return self._embedder

    def chunking(self) -> tuple[str, str, Chunker]:
        if self.requested_chunking is not None:
            kind, name = self.requested_chunking
        elif self.pins is not None:
            kind, name = self.pins.chunking, self.pins.chunking_name
            if self._chunker is None:
                self._chunker = _make_chunker(kind, name, self.pins.params,
                                              _pinned_routes(self.store.meta(), name, self.pins.params))
        else:
            kind, name = DEFAULT_CHUNKING
        if self._chunker is None:
            self._chunker = _make_chunker(kind, name, self.params)
        return kind, name, self._chunker

    @property
    def counter(self) -> TokenCounter:
        if self._counter is None:
            self._counter = get_counter("tokens")
        return self._counter

    def count(self, text: str) -> int:
        return len(self.counter.token_starts(text))

    def pin(self, sample: list[str], roots: list[str]) -> str:
        """Fix embedder and chunking in ``index_meta`` (and empty the index for a rebuild);
        ``sample``: the first documents' text, from which ``auto`` picks the embedder. Returns
        what ``auto`` chose and why ("" when the embedder was named)."""
        req = self.requested_embedder
        chosen = ""
        if isinstance(req, str) or req is None:
            name = req or (self.pins.embedder if self.pins is not None else default_embedder_name())
            if name == "auto":
                name, why = auto_choice(sample)
                chosen = f"{name}: {why}"
            if self._embedder is None or self._embedder.name != name:
                self._embedder = get_embedder(name)
        emb = self._embedder
        assert emb is not None
        kind, name, chunker = self.chunking()
        pins = Pins(embedder=emb.name, embedder_version=emb.version, dimension=emb.dimension,
                    chunking=kind, chunking_name=name, params=_chunker_params(kind, chunker, self.params))
        same_vectors = self.pins is not None and (self.pins.embedder, self.pins.embedder_version) == (
            emb.name, emb.version)
        if self.reindex:
            self.store.clear(keep_vectors=same_vectors)
            if isinstance(self.path, Path):
                AnnIndex.remove(self.path)
        with self.store.transaction():
            routes = ({pins_check.ROUTES_KEY: chunker.describe(),
                       pins_check.PINNED_ROUTES_KEY: json.dumps(chunker.pinned_routes())}
                      if kind == "profile" and isinstance(chunker, Router) else {})
            self.store.set_meta({**pins.to_meta(), LEVELS_KEY: "1" if self.levels else "0",
                                 HEADINGS_KEY: "1" if self.headings else "0",
                                 pins_check.COUNTER_KEY: default_counter().name, **routes})
        self.pins = pins
        self.reindex = False
        return chosen


def requested_chunking(strategy: str | Chunker | None, profile: str | None,
                       params: Mapping[str, Any] | None) -> tuple[tuple[str, str] | None, Chunker | None]:
    """``(kind, name)`` of the chunking asked for (None: the pinned or default one), and the
    Chunker object when one was given."""
    if strategy is not None and profile is not None:
        raise ConfigError("give a strategy or a profile, not both")
    if params and strategy is None and profile is None:
        raise ConfigError("params need a strategy or a profile to apply to")
    given: Chunker | None = None
    if isinstance(strategy, Chunker):
        if params:
            raise ConfigError("params apply to a strategy name; a Chunker object carries its own")
        given, strategy = strategy, strategy.name
    if strategy is not None:
        return ("strategy", strategy), given
    return (("profile", profile) if profile is not None else None), given


def _levels_setting(store: Store, asked: bool, reindex: bool) -> bool:
    """Whether upper nodes get vectors: as pinned, or as asked for a new index or a rebuild."""
    meta = store.meta()
    pinned = meta.get(LEVELS_KEY, "0" if "embedder" in meta else None)
    if pinned is None or reindex:
        return asked
    if asked and pinned != "1":
        where = f"--index {store.path}" if isinstance(store.path, Path) else f"--store {store.path}"
        raise ConfigError(f"{store.path} was built without upper-level vectors; rebuild it with "
                          f"zoomrag index --reindex --levels {where} PATH...")
    return pinned == "1"


def _headings_setting(store: Store, asked: bool | None, reindex: bool) -> bool:
    """Whether units embed their heading trail: as pinned (an index built before the setting
    existed has none), or as asked for a new index or a rebuild (default: yes)."""
    meta = store.meta()
    pinned = meta.get(HEADINGS_KEY, "0" if "embedder" in meta else None)
    if pinned is None or reindex:
        return True if asked is None else asked
    if asked is not None and asked != (pinned == "1"):
        have, flag = ("with", "--no-headings") if pinned == "1" else ("without", "--headings")
        roots = json.loads(meta["roots"]) if meta.get("roots") else None
        raise IndexMismatchError(f"{store.path} was built {have} heading trails in its units; leave the "
                                 f"setting out to use the index as built, or rebuild it with: "
                                 f"{pins_check.rebuild_hint(str(store.path), roots, ' ' + flag)}")
    return pinned == "1"


def _pinned_routes(meta: Mapping[str, str], profile: str, params: Mapping[str, Any]) -> str | None:
    """A profile index's routes as data: as pinned, or read from the description an index pinned
    before it recorded them, when they give that description back exactly (else None: the
    profile as it resolves now, checked against the description as before)."""
    if pins_check.PINNED_ROUTES_KEY in meta:
        return meta[pins_check.PINNED_ROUTES_KEY]
    described = meta.get(pins_check.ROUTES_KEY)
    routes = routes_from_description(described) if described else None
    if routes is None:
        return None
    try:
        same = Router(profile=profile, settings=tuple(sorted(params.items())), pinned=routes).describe() == described
    except ConfigError:  # a strategy or parameter this release no longer has
        return None
    return json.dumps(routes) if same else None


def _make_chunker(kind: str, name: str, params: Mapping[str, Any], pinned: str | None = None) -> Chunker:
    """The chunker of a strategy, or of a profile: as pinned (``pinned``: its routes as data, so
    an index keeps chunking as it was built) or as the profile resolves now."""
    if kind == "strategy":
        return make_chunker(name, params)
    if pinned is None:
        return chunker_for_profile(name, dict(params))
    # not resolved again: the profile may have changed or gone since
    return Router(profile=name, settings=tuple(sorted(params.items())),
                  pinned=tuple((t, strategy, p) for t, strategy, p in json.loads(pinned)))


def _chunker_params(kind: str, chunker: Chunker, given: Mapping[str, Any]) -> dict[str, Any]:
    """What the index pins: a strategy's full parameters; a profile's overrides as given."""
    params = chunker.params() if kind == "strategy" else dict(given)
    return json.loads(json.dumps(params, sort_keys=True, default=str))


def drop_if_other_schema(path: Path) -> None:
    """Before a rebuild: remove an index of another schema, which this version cannot clear.

    A file that is not a zoomrag index at all is never removed.
    """
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM index_meta"))
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        raise StoreError(
            f"{path}: not a zoomrag index, so --reindex will not overwrite it; "
            "choose another file with --index, or move this one away"
        ) from None
    if (meta.get("schema_version"), meta.get("fts")) != (str(SCHEMA_VERSION), FTS_VERSION):
        for suffix in ("", *SqliteStore.SIDE_SUFFIXES):
            Path(str(path) + suffix).unlink(missing_ok=True)
        AnnIndex.remove(path)
