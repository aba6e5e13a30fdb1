"""Build two held-out sets of questions that are names, asked as a user pastes them: an API's
name into its documentation (``names_py``) and a function's name into a codebase
(``names_black``). The evidence is where the name is defined.

- ``names_py``: the ten Python 3.11 library pages of ``bench/sphinx_set.py``. Every entry that
  documents one name (a function, method, exception or attribute, not a class holding other
  entries) is a question, its name typed in one of three forms in turn: qualified as the page
  writes it (``shutil.copytree``), its last two parts (``Path.glob``) or bare (``copytree``; only
  when no other entry of the pages has that bare name). Evidence: the entry, signature to end.
- ``names_black``: the fifteen modules of Black 24.10.0 of ``bench/code_set.py``. Every function,
  method and class of at most 60 lines and every upper-case module constant whose name is
  defined once in those modules is a question: the bare name, or ``Class.method`` for every
  second method. Evidence: the definition, decorators to its last line. A sample of 120, the
  same every build.

Questions are made by these rules from the sources, not written or picked by hand, and no rule
of zoomrag was tuned on them.

    apt-get install python3.11-doc
    pip download --no-deps --no-binary :all: black==24.10.0 -d x; tar -xzf x/black-24.10.0.tar.gz -C x
    python bench/names_set.py --black x
    python bench/quality.py --data bench/out/derived --datasets names_py,names_black --mode hybrid
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import sys
from collections import Counter
from pathlib import Path

from code_set import FILES as BLACK_FILES
from heldout import write_set
from sphinx_set import FILES as PY_PAGES
from sphinx_set import SOURCE as PY_SOURCE

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "out" / "derived"
BLACK_SAMPLE = 120
_ENTRY = re.compile(r'<dt class="sig sig-object py" id="([^"]+)">')
_DD = re.compile(r"<dd>|</dd>")


def _entry_end(raw: str, dt: int) -> int | None:
    """The end of the ``<dd>`` after the entry starting at ``dt`` (None: it holds other entries)."""
    first = raw.index("<dd>", dt)
    depth, pos = 0, first
    for m in _DD.finditer(raw, first):
        depth += 1 if m.group() == "<dd>" else -1
        if depth == 0:
            pos = m.end()
            break
    return None if _ENTRY.search(raw, first, pos) else pos


def py_questions(pages: dict[str, str]) -> list[tuple[str, str, int, int]]:
    entries = [(name, m.group(1), m.start(), _entry_end(raw, m.start()))
               for name, raw in pages.items() for m in _ENTRY.finditer(raw)]
    bare = Counter(ident.rsplit(".", 1)[-1] for _, ident, _, _ in entries)
    out = []
    for name, ident, start, end in entries:
        if end is None:
            continue
        parts = ident.split(".")
        forms = [ident, ".".join(parts[-2:]) if len(parts) > 2 else ident,
                 parts[-1] if bare[parts[-1]] == 1 else ident]
        out.append((forms[len(out) % 3], name, start, end))
    return out


def _definitions(path: str, source: str) -> list[tuple[str, str, int, int]]:
    """(name, question, start, end) of the file's definitions, offsets into ``source``."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out = []

    def add(name: str, question: str, node: ast.stmt) -> None:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        last = node.end_lineno or node.lineno
        if last - first < 60:
            start = offsets[first - 1] + len(lines[first - 1]) - len(lines[first - 1].lstrip())
            end = offsets[last] - (1 if lines[last - 1].endswith("\n") else 0)
            out.append((name, question, start, end))

    def walk(body: list[ast.stmt], owner: str | None) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                add(node.name, f"{owner}.{node.name}" if owner and len(out) % 2 else node.name, node)
            elif isinstance(node, ast.ClassDef):
                add(node.name, node.name, node)
                walk(node.body, node.name)
            elif owner is None and isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id.isupper() and len(t.id) > 2:
                        add(t.id, t.id, node)

    walk(ast.parse(source, filename=path).body, None)
    return out


def black_questions(sources: dict[str, str]) -> list[tuple[str, str, int, int]]:
    found = [(name, path, q, s, e) for path, text in sources.items() for name, q, s, e in _definitions(path, text)]
    defined = Counter(name for name, *_ in found)
    unique = [(q, path, s, e) for name, path, q, s, e in found if defined[name] == 1]
    unique.sort(key=lambda row: hashlib.sha1(f"{row[1]}:{row[0]}".encode()).hexdigest())
    return sorted(unique[:BLACK_SAMPLE], key=lambda row: (row[1], row[2]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python-docs", type=Path, default=PY_SOURCE, help="the library pages (default: %(default)s)")
    ap.add_argument("--black", type=Path, required=True, help="the folder holding black-24.10.0/")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    pages_missing = [p for p in PY_PAGES if not (args.python_docs / f"{p}.html").is_file()]
    black_missing = [p for p in BLACK_FILES.values() if not (args.black / p).is_file()]
    if pages_missing or black_missing:
        print(f"missing: {', '.join(pages_missing + black_missing)}; see this script's docstring "
              "for where they come from", file=sys.stderr)
        return 1
    pages = {p: (args.python_docs / f"{p}.html").read_text(encoding="utf-8") for p in PY_PAGES}
    sources = {name: (args.black / path).read_text(encoding="utf-8") for name, path in BLACK_FILES.items()}
    for name, docs, fmt, questions in (("names_py", pages, "html", py_questions(pages)),
                                       ("names_black", sources, "code", black_questions(sources))):
        write_set(args.out / name, docs, fmt, questions)
        print(f"wrote {len(docs)} documents and {len(questions)} questions to {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
