"""Build a held-out set of API documentation: ten pages of Python's library reference as Sphinx
wrote them (HTML), with 30 questions and their evidence.

No HTML documentation is in ../shared/data, and none of Sphinx's. Most libraries publish theirs
this way: every function, class and option is a definition list entry (``<dl class="py
function"><dt id="json.dumps">signature</dt><dd>…</dd></dl>``) under a few real headings, with
admonitions ("Note", "See also") and version notes between. The pages come with Debian's
``python3.11-doc`` package. The questions were written from the pages as a user of the modules
would ask them, each with the passage that answers it, before any rule of zoomrag was changed
for these pages. Evidence is found by its first and last words in the page's text with the tags
stripped, and written as offsets into the raw HTML, as ``zoomrag eval`` expects of an HTML
corpus; the set is rebuilt from the system's files.

    apt-get install python3.11-doc                # or: apt-get download python3.11-doc and
                                                  # dpkg-deb -x it, then pass --source
    python bench/sphinx_set.py                    # writes bench/out/derived/sphinx
    python bench/quality.py --data bench/out/derived --datasets sphinx --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import html_set_cli

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/usr/share/doc/python3.11/html/library")
OUT = ROOT / "out" / "derived" / "sphinx"
FILES = ("bisect", "contextlib", "csv", "functools", "heapq", "json", "pathlib", "shutil",
         "tempfile", "textwrap")

#: (question, page, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("How do I look at the smallest item of a heap without popping it?", "heapq",
     "Pop and return the smallest item from the heap, maintaining", "use heap[0]."),
    ("Is heapreplace faster than calling heappop and then heappush?", "heapq",
     "This one step operation is more efficient", "when using a fixed-size heap."),
    ("How can I combine several already sorted log files into one sorted stream without loading "
     "them all into memory?", "heapq",
     "Merge multiple sorted inputs into a single sorted output", "(smallest to largest)."),
    ("Which bisect function gives an insertion point after the existing equal entries?", "bisect",
     "Similar to bisect_left(), but returns an insertion point", "a[i : hi]) for the right side."),
    ("How do I pretty-print JSON with sorted keys and indentation?", "json",
     "Pretty printing:", '"6": 7 }'),
    ("Why does a dictionary with integer keys not come back equal after a JSON round trip?", "json",
     "Keys in key/value pairs of JSON are always of the type str.", "if x has non-string keys."),
    ("How do I make json.dumps handle objects it cannot serialize, such as a set?", "json",
     "If specified, default should be a function that gets called", "If not specified, TypeError is raised."),
    ("What does json.loads do when an object has the same key twice?", "json",
     "The RFC specifies that the names within a JSON object should be unique",
     "can be used to alter this behavior."),
    ("How do I memoize an expensive function with a bounded cache?", "functools",
     "Decorator to wrap a function with a memoizing callable", "must be hashable."),
    ("How is functools.cached_property different from property?", "functools",
     "The mechanics of cached_property() are somewhat different", "allows writes."),
    ("How can I get all comparison operators on a class while defining only one or two of them?",
     "functools", "Given a class defining one or more rich comparison ordering methods",
     "should supply an __eq__() method."),
    ("How do I write a function that behaves differently depending on the type of its first "
     "argument?", "functools", "Transform a function into a single-dispatch generic function.",
     "the dispatch happens on the type of the first argument:"),
    ("How do I get a file name without its extension with pathlib?", "pathlib",
     "The final path component, without its suffix:", "'library.tar'"),
    ("How do I create a directory with all missing parents and no error if it already exists?",
     "pathlib", "If parents is true, any missing parents of this path are created",
     "is not an existing non-directory file."),
    ("How do I find all Python files in a directory and its subdirectories?", "pathlib",
     "This is like calling Path.glob() with", "PosixPath('test_pathlib.py')]"),
    ("How can I copy a directory tree while skipping .pyc files?", "shutil",
     "An example that uses the ignore_patterns() helper:", "ignore=ignore_patterns('*.pyc', 'tmp*'))"),
    ("How can I find out how much free space is left on a disk?", "shutil",
     "Return disk usage statistics about the given path", "may be a file or a directory."),
    ("How do I find the full path of a program the way the which command does?", "shutil",
     "Return the path to an executable which would be run", "return None."),
    ("How do I create a zip file of a folder in Python?", "shutil",
     "Create an archive file (such as zip or tar) and return its name.",
     "(if the lzma module is available)."),
    ("Can copytree copy into a destination folder that already exists?", "shutil",
     "If dirs_exist_ok is false (the default) and dst already exists",
     "corresponding files from the src tree."),
    ("How do I create a temporary directory that is deleted automatically when I am done?",
     "tempfile", "This class securely creates a temporary directory", "removed from the filesystem."),
    ("Can I reopen a NamedTemporaryFile by its name while it is still open on Windows?", "tempfile",
     "Whether the name can be used to open the file a second time", "it cannot on Windows)."),
    ("How do I read CSV rows as dictionaries keyed by the column names in the first row?", "csv",
     "Create an object that operates like a regular reader but maps",
     "preserves their original ordering."),
    ("Why should CSV files be opened with newline=''?", "csv",
     "If newline='' is not specified, newlines embedded inside quoted fields",
     "does its own (universal) newline handling."),
    ("How can I detect the delimiter and format of an unknown CSV file?", "csv",
     "The Sniffer class is used to deduce the format of a CSV file.",
     "containing possible valid delimiter characters."),
    ("How do I ignore a specific exception inside a with block?", "contextlib",
     "Return a context manager that suppresses any of the specified exceptions",
     "is known to be the right thing to do."),
    ("How can I write a context manager as a generator function instead of a class?", "contextlib",
     "This function is a decorator that can be used to define a factory function",
     "__exit__() methods."),
    ("How do I enter a variable number of context managers in one with statement?", "contextlib",
     "A context manager that is designed to make it easy to programmatically combine",
     "driven by input data."),
    ("How do I remove the common indentation from a triple-quoted string?", "textwrap",
     "Remove any common leading whitespace from every line in text.", "in indented form."),
    ("How can I truncate a long string to a width and end it with a placeholder?", "textwrap",
     "Collapse and truncate the given text to fit in the given width.", "fit within width:"),
)


def main(argv: list[str] | None = None) -> int:
    return html_set_cli(argv, __doc__, SOURCE, OUT, {n: f"{n}.html" for n in FILES}, QUESTIONS,
                        "they come with Debian's python3.11-doc package")


if __name__ == "__main__":
    sys.exit(main())
