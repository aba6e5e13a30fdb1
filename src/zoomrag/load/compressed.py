"""Files compressed whole with gzip, bzip2 or xz (``ls.1.gz``, ``notes.md.gz``, ``rows.csv.xz``)
read as the file inside: its format is the one its name without the compression's extension
has, and what it unpacks to is held to the same size limit as any file."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from pathlib import PurePath

from ..errors import InputError

#: Each compression's extension and name.
_KINDS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


def _opened(kind: str, data: bytes) -> io.BufferedIOBase:
    f = io.BytesIO(data)
    if kind == "gzip":
        return gzip.GzipFile(fileobj=f)
    return bz2.BZ2File(f) if kind == "bzip2" else lzma.LZMAFile(f)


def inner_name(path: PurePath) -> PurePath | None:
    """The name of the file a compressed file holds (``ls.1`` for ``ls.1.gz``); None when
    ``path`` is not named as a compressed file."""
    if path.suffix.lower() in _KINDS and path.stem:
        return path.with_name(path.stem)
    return None


def unpack(data: bytes, source: str, max_bytes: int | None, limit_text: str) -> bytes:
    """The bytes a compressed file holds, never more than ``max_bytes`` (an error says the
    limit, in ``limit_text``'s words, when it unpacks to more)."""
    what = _KINDS[PurePath(source).suffix.lower()]
    try:
        with _opened(what, data) as f:
            out = f.read() if max_bytes is None else f.read(max_bytes + 1)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        raise InputError(f"{source}: not a valid {what} file ({e}); compress it again, or index "
                         "the file uncompressed") from None
    if max_bytes is not None and len(out) > max_bytes:
        raise InputError(f"{source}: unpacks to over {limit_text}, the limit per file; {_RAISE}")
    return out


_RAISE = "raise it with --max-file-size (max_bytes= in the library), or split the file"
