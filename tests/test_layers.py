"""Imports between the top-level parts of zoomrag point down the layers of docs/DESIGN.md.

A part is a folder or a module directly under ``src/zoomrag``; the package's own
``__init__.py`` is the public facade, part ``zoomrag``. Every import counts, also one inside a
function or under ``TYPE_CHECKING``: a lazy import is still a dependency, only hidden.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "zoomrag"
FACADE = "zoomrag"

#: Top to bottom; a part may import parts of its own row or of rows below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__", "cli", "serve", "integrations"),
    (FACADE, "index", "evaluate"),
    ("expand", "search", "rerank"),
    ("parse", "embed", "store"),
    ("load", "text", "httpjson"),
    ("model", "errors", "registry"),
)
RANK = {part: row for row, parts in enumerate(LAYERS) for part in parts}

#: ``(importing part, imported part) -> ["file:line: statement", ...]``
Edges = Mapping[tuple[str, str], list[str]]


def import_edges(root: Path) -> dict[tuple[str, str], list[str]]:
    """Every import from one top-level part of the package at ``root`` into another."""
    package = root.name
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        is_package = rel.name == "__init__"
        here = list(rel.parts[:-1] if is_package else rel.parts)  # dotted name inside the package
        source = here[0] if here else FACADE
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in _targets(node, here, is_package, package, root):
                part = target[0] if target else FACADE
                if part != source:
                    where = f"{path.relative_to(root.parent)}:{node.lineno}: {ast.unparse(node)}"
                    edges.setdefault((source, part), []).append(where)
    return edges


def _targets(node: ast.AST, here: list[str], is_package: bool, package: str, root: Path) -> list[list[str]]:
    """Dotted names (inside the package, as lists) that ``node`` imports."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[1:] for a in node.names if a.name.split(".")[0] == package]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        current = here if is_package else here[:-1]  # the package the module is in
        base = current[: len(current) - (node.level - 1)]
    elif node.module is not None and node.module.split(".")[0] == package:
        base = []
        node_module = node.module.split(".")[1:]
        return [node_module] if node_module else [_submodule_or_facade([], a.name, root) for a in node.names]
    else:
        return []
    if node.module:
        return [base + node.module.split(".")]
    return [_submodule_or_facade(base, a.name, root) for a in node.names]


def _submodule_or_facade(base: list[str], name: str, root: Path) -> list[str]:
    # ``from . import x``: x is a module when there is a file or folder for it, else a name
    # defined by the package's __init__ (for the top package: the facade).
    path = root.joinpath(*base, name)
    return base + [name] if path.with_suffix(".py").exists() or path.is_dir() else base


def cycle_errors(edges: Edges, rank: Mapping[str, int] | None = None) -> list[str]:
    """One message per import that closes a cycle between parts, naming the way back.

    With ``rank`` (part -> row, top first), imports down the layers are not blamed: every
    cycle has at least one import that goes up or sideways, and that is the one to move.
    """
    rank = rank or {}
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    errors = []
    for (a, b), places in sorted(edges.items()):
        if a in rank and b in rank and rank[a] < rank[b]:
            continue
        back = _path(graph, b, a)
        if back is not None:
            loop = " -> ".join([a, *back])
            errors += [f"{place}  (cycle {loop})" for place in places]
    return errors


def _path(graph: Mapping[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A shortest path ``start -> ... -> goal`` (breadth first), or None."""
    previous: dict[str, str | None] = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            path = [node]
            while (step := previous[path[-1]]) is not None:
                path.append(step)
            return path[::-1]
        for nxt in sorted(graph.get(node, ())):
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return None


def layer_errors(edges: Edges, rank: Mapping[str, int]) -> list[str]:
    """One message per import that points up the layers, or from or to an unplaced part."""
    errors = []
    for (a, b), places in sorted(edges.items()):
        unplaced = [p for p in (a, b) if p not in rank]
        if unplaced:
            errors += [f"{place}  ({', '.join(unplaced)} has no layer in LAYERS)" for place in places]
        elif rank[b] < rank[a]:
            errors += [f"{place}  ({a} imports {b}, a layer above it)" for place in places]
    return errors


def test_no_import_cycle_between_top_level_parts():
    errors = cycle_errors(import_edges(SRC), RANK)
    assert not errors, "imports that close a cycle between parts of zoomrag:\n" + "\n".join(errors)


def test_imports_point_down_the_layers():
    errors = layer_errors(import_edges(SRC), RANK)
    assert not errors, "imports against the layers of docs/DESIGN.md:\n" + "\n".join(errors)


def test_every_part_has_a_layer():
    parts = {p.stem for p in SRC.iterdir() if p.suffix == ".py" and p.stem != "__init__"}
    parts |= {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    assert sorted(parts - set(RANK)) == []


# -- the checks themselves, on a small package ------------------------------------------------

def _package(tmp_path: Path, files: Mapping[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_lazy_import_that_closes_a_cycle_is_named(tmp_path):
    root = _package(tmp_path, {
        "low/__init__.py": "",
        "low/base.py": "def f():\n    from ..high.run import g\n",
        "high/__init__.py": "",
        "high/run.py": "from ..low import base\nfrom pkg.model import X\n",
        "model.py": "X = 1\n",
    })
    edges = import_edges(root)
    assert set(edges) == {("low", "high"), ("high", "low"), ("high", "model")}
    assert cycle_errors(edges) == [
        "pkg/high/run.py:1: from ..low import base  (cycle high -> low -> high)",
        "pkg/low/base.py:2: from ..high.run import g  (cycle low -> high -> low)",
    ]
    assert cycle_errors(edges, {"high": 0, "low": 1, "model": 2}) == [
        "pkg/low/base.py:2: from ..high.run import g  (cycle low -> high -> low)",
    ]


def test_a_longer_cycle_through_the_facade_is_named(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "from .a import A\n__version__ = '1'\n",
        "a.py": "from .b import B\nA = B\n",
        "b.py": "from . import __version__ as B\n",
    })
    edges = import_edges(root)
    assert edges[("b", FACADE)] == ["pkg/b.py:1: from . import __version__ as B"]
    assert len(cycle_errors(edges)) == 3


@pytest.mark.parametrize(("source", "message"), [
    ("from ..high import run\n", "low imports high, a layer above it"),
    ("import pkg.extra\n", "extra has no layer in LAYERS"),
])
def test_an_import_up_the_layers_is_named(tmp_path, source, message):
    root = _package(tmp_path, {"low/__init__.py": "", "low/x.py": source, "high/__init__.py": "",
                               "high/run.py": "", "extra.py": ""})
    errors = layer_errors(import_edges(root), {"high": 0, "low": 1})
    assert errors == [f"pkg/low/x.py:1: {source.strip()}  ({message})"]
