"""Formats that are zips of XML (Word, PowerPoint, Excel, OpenDocument, EPUB) are checked before
they are read: a zip whose parts would unpack to far more than the file holds is a zip bomb, and
the libraries that parse these formats would fill memory with it before any error.

The sizes checked are the ones the zip declares; :mod:`zipfile`, which every one of these
readers goes through, never unpacks a part past its declared size, so a lie gives an error, not
more data.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import InputError

#: Bytes unpacked per byte of the file above which a file is refused; office files and books
#: compress their XML 5 to 30 times.
MAX_RATIO = 200
#: Bytes any file may unpack to whatever its ratio, so a small file of repetitive XML is read.
FLOOR = 64 * 2**20


def check_unpacked(z: zipfile.ZipFile, path: Path, what: str, members: Iterable[str] | None = None) -> None:
    """Raise :class:`InputError` when the parts named (all when ``None``) unpack to over
    :data:`MAX_RATIO` times the file's size and over :data:`FLOOR` bytes."""
    infos = z.infolist() if members is None else [z.getinfo(m) for m in members]
    unpacked = sum(i.file_size for i in infos)
    size = max(path.stat().st_size, 1)
    if unpacked > FLOOR and unpacked > MAX_RATIO * size:
        raise InputError(f"{path}: this {what} unpacks to {unpacked / 2**20:,.0f} MB, {unpacked // size:,} times "
                         f"its {size:,} bytes; that is a zip bomb, not a {what}, so it was not read "
                         f"(if it is real, save it again from the program that made it)")


@contextmanager
def office_file(path: Path, what: str, extension: str) -> Iterator[zipfile.ZipFile]:
    """The zip of a Word, PowerPoint or Excel file, checked for a bomb, open while a library reads
    the file; whatever the library raises is one :class:`InputError` saying what to do (such a
    file is a zip of XML anyone may have written)."""
    try:
        with zipfile.ZipFile(path) as z:
            check_unpacked(z, path, what)
            yield z
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"{path}: cannot read this {what} ({type(e).__name__}: {e}); check that it is a "
                         f"complete .{extension} (an older .{extension[:-1]} must be saved as .{extension} "
                         "first)") from e
