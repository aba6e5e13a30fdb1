"""Build a held-out set of C and C++ API references as the developers who call those libraries
index them: the Doxygen sites Debian 12 installs for GLFW 3.3 (Doxygen 1.9.4: group pages,
guides), Opus (1.9, its own stylesheet), JsonCpp (1.9.1, C++ classes) and TinyXML (1.6.2: the
markup before Doxygen 1.8), with the questions of :mod:`dox_questions` and their evidence
(``dox_docs``).

The folders are what the packages install, as a user points ``zoomrag index`` at them, and the
set holds the pages the index reads of them: group, class, struct, namespace and file pages,
guides and the headers' source pages (not the lists of classes, files and members, the
hierarchy, directories and the other pages Doxygen builds from these; ``--every-page`` keeps
them, in ``dox_docs_every``). A developer asks which function does something, what a parameter,
flag or return value means, what happens on an error, how to do what a guide explains, in their
own words: the questions were written from the pages by people who had not seen zoomrag's rules
for them, before any rule was changed. Evidence is found by its first and last words in the
page's visible text.

    apt-get download libglfw3-doc libopus-doc libjsoncpp-doc libtinyxml-doc
    for f in *.deb; do dpkg -x "$f" src; done
    python bench/dox_set.py --source src    # --every-page: dox_docs_every, with the derived pages
    python bench/quality.py --data bench/out/derived --datasets dox_docs --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import html_evidence, site_set_cli, write_set

from zoomrag.load.folders import walk_folder

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/dox-src/x")
OUT = ROOT / "out" / "derived" / "dox_docs"
DOC = "usr/share/doc/"
#: document id prefix → the Doxygen site's folder under the source (the -doc packages install
#: them under their -dev package's name, but JsonCpp's)
SITES = {"glfw": DOC + "libglfw3-dev/html", "opus": DOC + "libopus-dev/html", "jsoncpp": DOC + "libjsoncpp-doc",
         "tinyxml": DOC + "libtinyxml-dev/docs"}


def pages(src: Path, every: bool = False) -> dict[str, Path]:
    """Document id (the site's name and the page's path in it) → the page's file: the pages
    ``zoomrag index`` reads of the sites (``every``: all their HTML pages, those Doxygen builds
    from the others too)."""
    found: dict[str, Path] = {}
    for name, path in SITES.items():
        site = src / path
        files = list(site.rglob("*.html")) if every else walk_folder(site, left_out=lambda p, why: None)
        found |= {f"{name}/{p.relative_to(site).as_posix()}": p for p in files if p.suffix == ".html"}
    return dict(sorted(found.items()))


def build(src: Path, dest: Path, every: bool = False) -> int:
    from dox_questions import (
        QUESTIONS_GLFW,
        QUESTIONS_JSONCPP,
        QUESTIONS_OPUS,
        QUESTIONS_SOURCE,
        QUESTIONS_TINYXML,
    )

    texts = {name: path.read_bytes().decode("utf-8") for name, path in pages(src, every).items()}
    questions = (*QUESTIONS_GLFW, *QUESTIONS_OPUS, *QUESTIONS_JSONCPP, *QUESTIONS_TINYXML, *QUESTIONS_SOURCE)
    found = [(q, name, *html_evidence(texts[name], first, last)) for q, name, first, last in questions]
    write_set(dest, texts, "html", found)
    return len(found)


if __name__ == "__main__":
    needed = {"glfw/window_guide.html": SITES["glfw"] + "/window_guide.html",
              "tinyxml/classTiXmlElement.html": SITES["tinyxml"] + "/classTiXmlElement.html"}
    sys.exit(site_set_cli(__doc__, SOURCE, OUT, needed, "apt-get download the four packages above and unpack them "
                          "with dpkg -x", build))
