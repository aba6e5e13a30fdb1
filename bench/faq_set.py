"""Build held-out sets of documentation in other languages: the Debian FAQ as DocBook wrote it
(HTML, 17 pages) in English, German, French and Russian, each with the same 32 questions asked
in its language, and the passage of its own page that answers each.

The shared sets are English (and Chinese Wikipedia); ``zh_faq_set.py`` is this FAQ in Chinese.
One FAQ in five languages with one set of questions shows what changes with the language alone:
the reader, sentence ends, word matching and the embedding model. The questions (``faq_<lang>.py``
beside this file) were written from the Chinese set's, in the words a user of that language would
use rather than the headings', before any rule of zoomrag was changed for these pages. Evidence is
found by its first and last words in the page's text with the tags stripped and written as
offsets into the raw HTML; the sets are rebuilt from the system's files.

    apt-get install debian-faq debian-faq-de debian-faq-fr debian-faq-ru
    python bench/faq_set.py --lang de             # writes bench/out/derived/faq_de
    python bench/quality.py --data bench/out/derived --datasets faq_de --peers
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from heldout import html_set_cli

ROOT = Path(__file__).resolve().parent
FAQ = Path("/usr/share/doc/debian/FAQ")
LANGS = ("en", "de", "fr", "ru")
FILES = ("index", "basic-defs", "getting-debian", "choosing", "compatibility", "software",
         "ftparchives", "pkg-basics", "pkgtools", "uptodate", "kernel", "customizing", "support",
         "contributing", "redistributing", "nextrelease", "faqinfo")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--lang", choices=LANGS, required=True)
    args, rest = ap.parse_known_args(argv)
    lang = args.lang
    questions = importlib.import_module(f"faq_{lang}").QUESTIONS
    source = FAQ if lang == "en" else FAQ / lang
    return html_set_cli(rest, __doc__, source, ROOT / "out" / "derived" / f"faq_{lang}",
                        {n: f"{n}.{lang}.html" for n in FILES}, questions,
                        f"they come with Debian's {'debian-faq' if lang == 'en' else 'debian-faq-' + lang} package")


if __name__ == "__main__":
    sys.exit(main())
