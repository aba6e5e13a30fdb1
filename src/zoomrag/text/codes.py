"""A text's code points as a numpy array, for vectorised scans over every character."""

from __future__ import annotations

import numpy as np


def code_points(text: str) -> np.ndarray:
    """The code point of each character of ``text``, one array item per character.

    The narrowest encoding that keeps one unit per character is used, since the encoding is
    most of the cost: ASCII as bytes; text without characters above U+FFFF as UTF-16 (close to
    a copy of CPython's two-byte strings, several times faster than UTF-32); UTF-32 otherwise.
    Lone surrogates are kept as their own code points.
    """
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) == 2 * len(text):  # nothing above U+FFFF (which UTF-16 writes as two units)
        return np.frombuffer(units, dtype=np.uint16)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
