"""Build a held-out set of error messages pasted into a codebase's index (``pasted_errors``), as
a user pastes what a program printed to find where it comes from.

Sources: Black's fifteen modules (``bench/code_set.py``) and the four npm packages of
``bench/names_js.py``. Every ``raise X("…")`` (Python, read by :mod:`ast`) and ``throw new
X("…")`` (JavaScript, read by tree-sitter) whose message begins with at least 16 characters and
three words of fixed text is a question: that fixed text, up to the first value the program
fills in (``Command passed to .addCommand() must have a name``, ``Cannot parse for target
version``). Questions whose text is written elsewhere in the sources too are left out (the place
would be ambiguous). Evidence: the raise or throw statement.

    python bench/pasted_set.py --black DIR --js DIR   # the folders names_set.py and names_js.py read
    python bench/quality.py --data bench/out/derived --datasets pasted_errors --configs auto-index,fixed-256
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from code_set import FILES as BLACK_FILES
from heldout import write_set
from names_js import FILES as JS_FILES
from names_js import js_parser

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "out" / "derived" / "pasted_errors"
MIN_CHARS, MIN_WORDS = 16, 3
_SPACE = re.compile(r"\s+")


def _fixed(text: str) -> str | None:
    said = _SPACE.sub(" ", text).strip()
    return said if len(said) >= MIN_CHARS and len(said.split(" ")) >= MIN_WORDS else None


def python_errors(source: str) -> list[tuple[str, int, int]]:
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
            continue
        arg = node.exc.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            text = arg.value
        elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            text = str(arg.values[0].value)
        else:
            continue
        said = _fixed(text)
        if said is None:
            continue
        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)
        out.append((said, start, end))
    return out


def js_errors(source: bytes, parser) -> list[tuple[str, int, int]]:  # type: ignore[no-untyped-def]
    text = source.decode("utf-8")
    chars = {}
    pos = 0
    for i, ch in enumerate(text):
        chars[pos] = i
        pos += len(ch.encode("utf-8"))
    chars[pos] = len(text)
    out = []

    def walk(node) -> None:  # type: ignore[no-untyped-def]
        if node.type == "throw_statement":
            new = next((c for c in node.named_children if c.type == "new_expression"), None)
            args = new.child_by_field_name("arguments") if new is not None else None
            first = args.named_children[0] if args is not None and args.named_children else None
            said = None
            if first is not None and first.type == "string":
                said = _fixed(first.text.decode()[1:-1])
            elif first is not None and first.type == "template_string":
                parts = [c for c in first.named_children]
                if parts and parts[0].type == "string_fragment":
                    said = _fixed(parts[0].text.decode())
            if said is not None:
                out.append((said, chars[node.start_byte], chars[node.end_byte]))
        for child in node.named_children:
            walk(child)

    walk(parser.parse(source).root_node)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--black", type=Path, required=True, help="the folder holding black-24.10.0/")
    ap.add_argument("--js", type=Path, required=True, help="the folder holding express/, koa/, commander/, ws/")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    missing = [str(args.black / p) for p in BLACK_FILES.values() if not (args.black / p).is_file()]
    missing += [str(args.js / p) for p in JS_FILES if not (args.js / p).is_file()]
    if missing:
        print(f"missing: {', '.join(missing)}; see this script's docstring", file=sys.stderr)
        return 1
    docs = {name: (args.black / path).read_text(encoding="utf-8") for name, path in BLACK_FILES.items()}
    found = [(q, name, s, e) for name, text in docs.items() for q, s, e in python_errors(text)]
    parser = js_parser()
    for name in JS_FILES:
        raw = (args.js / name).read_bytes()
        docs[name] = raw.decode("utf-8")
        found += [(q, name, s, e) for q, s, e in js_errors(raw, parser)]
    flat = {name: _SPACE.sub(" ", text) for name, text in docs.items()}
    unique = [row for row in found if sum(t.count(row[0]) for t in flat.values()) == 1]
    write_set(args.out, docs, "code", unique)
    print(f"wrote {len(docs)} documents and {len(unique)} questions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
