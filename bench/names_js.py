"""Build a held-out set of names asked of a JavaScript codebase (``names_js``), as a user pastes
a function's name into it: four npm packages' ``lib/`` folders, two that write a JSDoc comment
a blank line above what it documents (Express 5.3.0, Koa 3.3.0, most of Commander 14.0.3) and
one that writes it right above (ws 8.23.1).

Definitions are found by tree-sitter's JavaScript grammar, not by zoomrag's reader: function
declarations, classes and their methods, methods of an exported object literal, functions
assigned to a member or a variable (``res.cookie = function …``, ``exports.etag = …``,
``const f = () => …``). A definition of at most 60 lines whose name is defined once in the set
is a question: ``res.cookie`` as the code writes the owner (``module.exports.``, ``exports.``
and ``.prototype`` left out), ``Class.method`` for every second method, else the bare name.
Evidence: the definition, from the ``/** … */`` comment that documents it (when one ends at
most one blank line above it) to its last line. A sample of 120, the same every build.

    npm pack express@5.3.0 koa@3.3.0 commander@14.0.3 ws@8.23.1   # then untar each into DIR/<name>
    pip install tree-sitter tree-sitter-javascript
    python bench/names_js.py --source DIR
    python bench/quality.py --data bench/out/derived --datasets names_js --configs auto-index,fixed-256
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import Counter
from pathlib import Path

from heldout import write_set

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "out" / "derived" / "names_js"
SAMPLE = 120
LONGEST = 60  # lines
PACKAGES = {
    "express": ("application", "express", "request", "response", "utils", "view"),
    "koa": ("application", "context", "request", "response"),
    "commander": ("argument", "command", "error", "help", "option", "suggestSimilar"),
    "ws": ("buffer-util", "event-target", "extension", "permessage-deflate", "receiver", "sender",
           "stream", "validation", "websocket-server", "websocket"),
}
FILES = {f"{pkg}/lib/{m}.js": f"{pkg}/lib/{m}.js" for pkg, mods in PACKAGES.items() for m in mods}
_FUNCTIONS = {"function_expression", "arrow_function", "function", "generator_function"}


def js_parser():  # type: ignore[no-untyped-def]
    try:
        import tree_sitter
        import tree_sitter_javascript
    except ImportError:
        sys.exit("names_js needs tree-sitter: pip install tree-sitter tree-sitter-javascript")
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


def _owner_name(left: str) -> str:
    """``res.cookie`` of ``res.cookie``, ``cookie`` of ``exports.cookie``, ``View.lookup`` of
    ``View.prototype.lookup``; '' for ``module.exports`` itself."""
    parts = [p for p in left.split(".") if p != "prototype"]
    while parts and parts[0] in ("module", "exports"):
        parts = parts[1:]
    return ".".join(parts)


def definitions(source: bytes, parser) -> list[tuple[str, str, int, int]]:  # type: ignore[no-untyped-def]
    """(bare name, question, start, end) of a file's definitions; offsets in characters."""
    text = source.decode("utf-8")
    # tree-sitter counts bytes; the set counts characters
    chars = [0] * (len(source) + 1)
    pos = 0
    for i, ch in enumerate(text):
        chars[pos] = i
        pos += len(ch.encode("utf-8"))
    chars[pos] = len(text)
    out: list[tuple[str, str, int, int]] = []

    def add(bare: str, question: str, node, stmt) -> None:  # type: ignore[no-untyped-def]
        if not bare or stmt.end_point.row - stmt.start_point.row >= LONGEST:
            return
        start = stmt.start_byte
        doc = stmt.prev_sibling
        if (doc is not None and doc.type == "comment" and doc.text.startswith(b"/**")
                and source[doc.end_byte:start].count(b"\n") <= 2):
            start = doc.start_byte
        out.append((bare, question, chars[start], chars[stmt.end_byte]))

    def methods(body, owner: str) -> None:  # type: ignore[no-untyped-def]
        for m in body.named_children:
            if m.type == "method_definition":
                name = m.child_by_field_name("name").text.decode()
                if name == "constructor":
                    continue
                add(name, f"{owner}.{name}" if owner and len(out) % 2 else name, m, m)

    def statement(stmt, node) -> None:  # type: ignore[no-untyped-def]
        if node.type == "function_declaration" or node.type == "generator_function_declaration":
            name = node.child_by_field_name("name").text.decode()
            add(name, name, node, stmt)
        elif node.type == "class_declaration":
            name = node.child_by_field_name("name").text.decode()
            add(name, name, node, stmt)
            methods(node.child_by_field_name("body"), name)
        elif node.type == "expression_statement":
            expr = node.named_children[0] if node.named_children else None
            if expr is not None and expr.type == "assignment_expression":
                left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
                name = _owner_name(left.text.decode())
                if right.type in _FUNCTIONS:
                    add(name.rsplit(".", 1)[-1], name, expr, stmt)
                elif right.type == "object" and not name:
                    methods(right, "")
                elif right.type == "class":
                    body = right.child_by_field_name("body")
                    methods(body, name)
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for decl in node.named_children:
                value = decl.child_by_field_name("value")
                if decl.type == "variable_declarator" and value is not None and value.type in _FUNCTIONS:
                    name = decl.child_by_field_name("name").text.decode()
                    add(name, name, decl, stmt)
                elif value is not None and value.type == "object":
                    methods(value, "")
        elif node.type == "export_statement":
            inner = node.child_by_field_name("declaration")
            if inner is not None:
                statement(stmt, inner)

    for stmt in parser.parse(source).root_node.named_children:
        statement(stmt, stmt)
    return out


def questions(sources: dict[str, bytes]) -> list[tuple[str, str, int, int]]:
    parser = js_parser()
    found = [(bare, q, path, s, e) for path, src in sources.items() for bare, q, s, e in definitions(src, parser)]
    asked = Counter(q for _, q, *_ in found)
    bare = Counter(b for b, *_ in found)
    unique = [(q, path, s, e) for b, q, path, s, e in found
              if asked[q] == 1 and ("." in q or bare[b] == 1)]
    unique.sort(key=lambda row: hashlib.sha1(f"{row[1]}:{row[0]}".encode()).hexdigest())
    return sorted(unique[:SAMPLE], key=lambda row: (row[1], row[2]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, required=True, help="the folder holding express/, koa/, commander/, ws/")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    missing = [p for p in FILES if not (args.source / p).is_file()]
    if missing:
        print(f"{args.source}: {', '.join(missing)} missing; see this script's docstring for where "
              "they come from", file=sys.stderr)
        return 1
    raw = {p: (args.source / p).read_bytes() for p in FILES}
    found = questions(raw)
    write_set(args.out, {p: b.decode("utf-8") for p, b in raw.items()}, "code", found)
    print(f"wrote {len(raw)} documents and {len(found)} questions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
