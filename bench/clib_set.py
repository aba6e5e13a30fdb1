"""Build a held-out set of C and C++ libraries as the developers who call them index them: the
public headers of SQLite, zlib, libcurl and libgit2 (C), {fmt} and nlohmann's JSON (C++), as
Debian 12 installs them, with QUESTIONS_C + QUESTIONS_CPP questions and their evidence
(``clib_docs``).

A developer asks which function or option does something, what a parameter, flag or return
value means, and how the library behaves (who frees what, thread safety, defaults, errors), in
their own words: the questions were written from the headers by people who had not seen
zoomrag's rules for these languages, before any rule was changed for them. A header is read as
written, so evidence is found by its first and last words in the file.

    apt-get download libsqlite3-dev zlib1g-dev libcurl4-openssl-dev libgit2-dev libfmt-dev \\
        nlohmann-json3-dev    # 3.40.1, 1.2.13, 7.88.1, 1.5.1, 9.1.0, 3.11.2 in Debian 12
    for f in *.deb; do dpkg -x "$f" src; done
    python bench/clib_set.py --source src
    python bench/quality.py --data bench/out/derived --datasets clib_docs --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import cli, find, write_set

from zoomrag.load.base import detect_format

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/clib-sources")
OUT = ROOT / "out" / "derived" / "clib_docs"
INCLUDE = "usr/include/"
#: document id (a folder per library) → the folder or file of its headers under the source
LIBRARIES = {
    "sqlite/sqlite3.h": INCLUDE + "sqlite3.h",
    "zlib/zlib.h": INCLUDE + "zlib.h",
    "curl": INCLUDE + "x86_64-linux-gnu/curl",
    "libgit2": INCLUDE + "git2",
    "fmt": INCLUDE + "fmt",
    "nlohmann": INCLUDE + "nlohmann",
}


def files(src: Path) -> dict[str, str]:
    """Document id → the header's text, as a user's folder holds it."""
    out: dict[str, str] = {}
    for name, path in LIBRARIES.items():
        where = src / path
        if where.is_file():
            out[name] = where.read_text(encoding="utf-8")
            continue
        for header in sorted(where.rglob("*.h*")):
            out[f"{name}/{header.relative_to(where).as_posix()}"] = header.read_text(encoding="utf-8")
    return out


def build(src: Path, dest: Path) -> int:
    from clib_questions import QUESTIONS_C, QUESTIONS_CPP

    texts = files(src)
    questions = (*QUESTIONS_C, *QUESTIONS_CPP)
    found = [(q, name, *find(texts[name], first, last)) for q, name, first, last in questions]
    write_set(dest, texts, {name: detect_format(Path(name)) for name in texts}, found)
    return len(found)


if __name__ == "__main__":
    needed = {name: path for name, path in LIBRARIES.items() if name.endswith(".h")}
    needed |= {"curl/curl.h": LIBRARIES["curl"] + "/curl.h", "libgit2/clone.h": LIBRARIES["libgit2"] + "/clone.h",
               "fmt/core.h": LIBRARIES["fmt"] + "/core.h", "nlohmann/json.hpp": LIBRARIES["nlohmann"] + "/json.hpp"}
    sys.exit(cli(sys.argv[1:], __doc__, SOURCE, OUT, needed,
                 "apt-get download the six packages above and unpack them with dpkg -x", build))
