"""How often the sentence splitter ends a sentence at the line break of hard-wrapped prose.

A line of 50 characters or more that ends in a word or a comma, is not a list item or a table
row and is followed by a line of text was almost always wrapped where the width ran out: a
sentence end there is (nearly always) a cut in the middle of a sentence. German capitalises
its nouns, so "the next line starts in upper case" says less there than in English.

Texts: the Debian FAQ's plain-text versions (debian-faq, -de, -fr, -ru), the READMEs and the
first 60 ``*.txt.gz`` files under /usr/share/doc, and pydoc's pages of three modules.

    apt-get install debian-faq debian-faq-de debian-faq-fr debian-faq-ru
    python bench/wrapped_lines.py
"""

from __future__ import annotations

import glob
import gzip
import json
import pydoc
import re
import sys
from pathlib import Path

from zoomrag.text.sentences import sentence_spans

FAQ = Path("/usr/share/doc/debian/FAQ")
_BREAK = re.compile(r"\n")


def cut_rate(text: str) -> tuple[int, int]:
    """(wrapped line breaks, those at which a sentence ends)."""
    ends = {e for _, e in sentence_spans(text)}
    wrapped = cut = 0
    for m in _BREAK.finditer(text):
        i = m.start()
        start = text.rfind("\n", 0, i) + 1
        line = text[start:i].rstrip()
        nl = text.find("\n", i + 1)
        nxt = text[i + 1:nl if nl > 0 else len(text)]
        if len(line.strip()) < 50 or not nxt.strip() or not (line[-1].isalpha() or line[-1] == ","):
            continue
        if line.strip().startswith(("-", "*", "|")):
            continue
        wrapped += 1
        cut += start + len(line) in ends
    return wrapped, cut


def corpora() -> dict[str, str]:
    texts = {f"faq.{lang}": gzip.open(FAQ / f"debian-faq.{lang}.txt.gz").read().decode("utf-8", "replace")
             for lang in ("en", "de", "fr", "ru") if (FAQ / f"debian-faq.{lang}.txt.gz").exists()}
    docs = [Path(f).read_text(errors="replace") for f in sorted(glob.glob("/usr/share/doc/*/README*"))
            if not f.endswith(".gz") and Path(f).is_file()]
    docs += [gzip.open(f).read().decode("utf-8", "replace") for f in sorted(glob.glob("/usr/share/doc/*/*.txt.gz"))[:60]]
    texts["/usr/share/doc"] = "\n\n".join(docs)
    texts["pydoc"] = "\n\n".join(pydoc.render_doc(m, renderer=pydoc.plaintext) for m in (json, re, glob))
    return texts


def main() -> int:
    print("| text | wrapped breaks | read as sentence ends |\n| --- | ---: | ---: |")
    for name, text in corpora().items():
        wrapped, cut = cut_rate(text)
        print(f"| {name} | {wrapped} | {cut} ({cut / max(wrapped, 1):.1%}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
