"""Test code: files a project's tests are in, by the names test runners look for.

A test calls the functions it tests with the words of their documentation, so a question about
using one finds the test first; indexing marks a source file that is a test ``test: true``
(:func:`is_test_file`), and search ranks its lines below others' for a question that does not
ask about tests (:mod:`zoomrag.search.secondary`); ``--where test=true`` searches tests alone.

A source file is a test when its name is one a test runner collects (``test_x.py``,
``x_test.py``, ``x_test.go``, ``x.test.ts``, ``x.spec.js``, ``XTest.java``, ``x_spec.rb``,
``conftest.py``, Rust's ``tests.rs``) or a folder on its path below the indexed folder is one a
project keeps its tests in (``tests``, ``test``, ``__tests__``, ``spec``). ``testing.py`` is a
module, not a test.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

__all__ = ["TEST_KEY", "is_test_file"]

#: The metadata key that marks test code.
TEST_KEY = "test"
_NAME = re.compile(r"test_\w+\.py|\w+_tests?\.(?:py|go|rs|rb|exs?|c|cc|cpp)|conftest\.py|tests\.rs|"
                   r"[\w.-]+\.(?:test|spec)\.[cm]?[jt]sx?|\w+Tests?\.(?:java|kt|scala|cs|swift|php)|\w+_spec\.rb")
_FOLDERS = frozenset({"tests", "test", "__tests__", "spec", "specs"})


def is_test_file(doc_id: str) -> bool:
    """Whether the source file with this id (its path below the indexed folder) is test code."""
    path = PurePosixPath(doc_id.replace("\\", "/"))
    return bool(_NAME.fullmatch(path.name)) or any(part in _FOLDERS for part in path.parts[:-1])
