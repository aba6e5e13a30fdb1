"""Document text stored compressed, in independent blocks of characters.

The text is cut every ``block_chars`` characters and each block is compressed on its own
(zlib, standard library), so a span is read by decompressing only the blocks it touches; the
character offset of block ``i`` is ``i * block_chars``, so no offset is stored. Layout of the
BLOB: varints for ``block_chars``, the block count and each block's compressed length, then
the blocks.

Measured on ../shared/data (docs/benchmarks.md): zlib keeps English text at 0.32x of its
UTF-8 bytes in 64 Ki-character blocks (0.36x at 16 Ki) and short Chinese documents at 0.59x;
lzma and bz2 gain at most 0.04x more and decompress several times slower.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from ..errors import StoreError

#: Characters per block: large enough to compress well, small enough that reading one span
#: decompresses at most a few hundred KB.
BLOCK_CHARS = 65536
#: zlib level 6 compresses within 0.1% of level 9 here, faster.
LEVEL = 6


def encode(text: str, block_chars: int = BLOCK_CHARS) -> bytes:
    """The stored form of ``text``."""
    if block_chars < 1:
        raise ValueError(f"block_chars={block_chars}: need at least 1 character per block")
    blocks = [zlib.compress(text[i:i + block_chars].encode("utf-8", "surrogatepass"), LEVEL)
              for i in range(0, len(text), block_chars)]
    head = bytearray(_varint(block_chars) + _varint(len(blocks)))
    for b in blocks:
        head += _varint(len(b))
    return bytes(head) + b"".join(blocks)


def decode(blob: bytes) -> str:
    """The whole text of a stored BLOB."""
    layout = Layout.read(blob)
    return "".join(layout.block(blob, i) for i in range(layout.count))


def decode_span(blob: bytes, start: int, end: int) -> str:
    """``text[start:end]`` of a stored BLOB, decompressing only the blocks it touches."""
    if start < 0 or end < start:
        raise ValueError(f"span [{start}, {end}) is not a span: need 0 <= start <= end")
    if start == end:
        return ""
    layout = Layout.read(blob)
    first, last = start // layout.block_chars, (end - 1) // layout.block_chars
    text = "".join(layout.block(blob, i) for i in range(first, min(last + 1, layout.count)))
    offset = first * layout.block_chars
    return text[start - offset:end - offset]


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each compressed block lies in a BLOB (byte offsets)."""

    block_chars: int
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @property
    def count(self) -> int:
        return len(self.starts)

    @classmethod
    def read(cls, blob: bytes) -> Layout:
        try:
            block_chars, pos = _read_varint(blob, 0)
            count, pos = _read_varint(blob, pos)
            sizes = []
            for _ in range(count):
                size, pos = _read_varint(blob, pos)
                sizes.append(size)
        except IndexError:
            raise StoreError("stored document text is truncated (block header); "
                             "rebuild the index with zoomrag index --reindex PATH...") from None
        starts, ends = [], []
        for size in sizes:
            starts.append(pos)
            pos += size
            ends.append(pos)
        if pos != len(blob):
            raise StoreError(f"stored document text has {len(blob)} bytes, its header says {pos}; "
                             "rebuild the index with zoomrag index --reindex PATH...")
        return cls(block_chars, tuple(starts), tuple(ends))

    def block(self, blob: bytes, i: int) -> str:
        try:
            raw = zlib.decompress(blob[self.starts[i]:self.ends[i]])
        except zlib.error as e:
            raise StoreError(f"stored document text block {i} is damaged ({e}); "
                             "rebuild the index with zoomrag index --reindex PATH...") from None
        return raw.decode("utf-8", "surrogatepass")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(blob: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        byte = blob[pos]
        pos += 1
        n |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return n, pos
        shift += 7
