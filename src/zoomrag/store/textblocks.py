"""Document text stored compressed, in independent blocks of characters.

The text is cut every ``block_chars`` characters and each block is compressed on its own
(zlib, standard library), so a span is read by decompressing only the blocks it touches; the
character offset of block ``i`` is ``i * block_chars``, so no offset is stored. Layout of the
BLOB: varints for the character encoding (:data:`CODECS`), ``block_chars``, the block count and
each block's compressed length, then the blocks.

Text mostly outside ASCII and Latin (more than 1.5 UTF-8 bytes per character, e.g. Chinese) is
also compressed as GB18030 and UTF-16, and the smallest is kept: Chinese takes two bytes per
character in both instead of three, which zlib does not fully recover.

Measured on ../shared/data (docs/benchmarks.md): zlib keeps English text at 0.32x of its
UTF-8 bytes in 64 Ki-character blocks (0.36x at 16 Ki) and short Chinese documents at 0.59x;
lzma and bz2 gain at most 0.04x more and decompress several times slower.

Decompressed blocks are kept, keyed by their compressed bytes (:data:`DECODED`): a query reads
the same documents' blocks again for BM25's re-scoring, the trees and the contexts, and a server
asks about the same documents query after query. The key is the stored bytes themselves, so a
kept block is never stale: another text compresses to other bytes.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import StoreError

#: Characters per block: large enough to compress well, small enough that reading one span
#: decompresses at most a few hundred KB.
BLOCK_CHARS = 65536
#: zlib level 6 compresses within 0.1% of level 9 here, faster.
LEVEL = 6
#: Character encodings by the number stored in the BLOB. ``surrogatepass``: a lone surrogate
#: (from a file read with ``surrogateescape``) round-trips in UTF-8 and UTF-16; GB18030 cannot
#: encode one and is then not tried.
CODECS = ("utf-8", "gb18030", "utf-16-le")
#: Above this many UTF-8 bytes per character the other encodings are tried.
_TRY_OTHERS = 1.5


def encode(text: str, block_chars: int = BLOCK_CHARS) -> bytes:
    """The stored form of ``text``."""
    if block_chars < 1:
        raise ValueError(f"block_chars={block_chars}: need at least 1 character per block")
    codec, blocks = 0, _compress(text, block_chars, 0)
    if len(text.encode("utf-8", "surrogatepass")) > _TRY_OTHERS * len(text):
        for other in range(1, len(CODECS)):
            try:
                candidate = _compress(text, block_chars, other)
            except UnicodeEncodeError:
                continue
            if sum(map(len, candidate)) < sum(map(len, blocks)):
                codec, blocks = other, candidate
    head = bytearray(_varint(codec) + _varint(block_chars) + _varint(len(blocks)))
    for b in blocks:
        head += _varint(len(b))
    return bytes(head) + b"".join(blocks)


def _compress(text: str, block_chars: int, codec: int) -> list[bytes]:
    errors = "strict" if CODECS[codec] == "gb18030" else "surrogatepass"
    return [zlib.compress(text[i:i + block_chars].encode(CODECS[codec], errors), LEVEL)
            for i in range(0, len(text), block_chars)]


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
    #: Index into :data:`CODECS`.
    codec: int = 0

    @property
    def count(self) -> int:
        return len(self.starts)

    @classmethod
    def read(cls, blob: bytes) -> Layout:
        return cls.read_from(lambda offset, size: blob[offset:offset + size], len(blob))

    @classmethod
    def read_from(cls, read: Callable[[int, int], bytes], total: int) -> Layout:
        """The layout of a BLOB of ``total`` bytes, reading only its header through
        ``read(offset, size)`` (e.g. SQLite's incremental BLOB I/O)."""
        head = read(0, min(total, 30))  # the first three varints, 10 bytes at most each
        try:
            codec, pos = _read_varint(head, 0)
            block_chars, pos = _read_varint(head, pos)
            count, pos = _read_varint(head, pos)
            if len(head) < total:
                # A block compresses to at most ~4 bytes per character, so each size's varint
                # takes at most this many bytes.
                width = ((4 * block_chars + 1024).bit_length() + 6) // 7
                head = read(0, min(total, pos + width * count))
            sizes = []
            for _ in range(count):
                size, pos = _read_varint(head, pos)
                sizes.append(size)
        except IndexError:
            raise StoreError("stored document text is truncated (block header); "
                             "rebuild the index with zoomrag index --reindex PATH...") from None
        starts, ends = [], []
        for size in sizes:
            starts.append(pos)
            pos += size
            ends.append(pos)
        if pos != total:
            raise StoreError(f"stored document text has {total} bytes, its header says {pos}; "
                             "rebuild the index with zoomrag index --reindex PATH...")
        if codec >= len(CODECS):
            raise StoreError(f"stored document text names character encoding {codec}, which this "
                             "zoomrag does not know; rebuild the index with zoomrag index --reindex PATH...")
        return cls(block_chars, tuple(starts), tuple(ends), codec)

    def block(self, blob: bytes, i: int) -> str:
        return self.decode(blob[self.starts[i]:self.ends[i]], i)

    def decode(self, data: bytes, i: int) -> str:
        """Block ``i`` from its compressed bytes alone (kept in :data:`DECODED`)."""
        key = (self.codec, data)
        found = DECODED.get(key)
        if found is None:
            found = self._decompress(data, i)
            DECODED.put(key, found)
        return found

    def _decompress(self, data: bytes, i: int) -> str:
        try:
            raw = zlib.decompress(data)
        except zlib.error as e:
            raise StoreError(f"stored document text block {i} is damaged ({e}); "
                             "rebuild the index with zoomrag index --reindex PATH...") from None
        codec = CODECS[self.codec]
        return raw.decode(codec, "strict" if codec == "gb18030" else "surrogatepass")


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


class DecodedBlocks:
    """Decompressed blocks by ``(codec, compressed bytes)``, the most recently used first kept,
    up to ``max_chars`` characters in all; safe to share between threads."""

    def __init__(self, max_chars: int):
        self.max_chars = max_chars
        self._blocks: OrderedDict[tuple[int, bytes], str] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[int, bytes]) -> str | None:
        with self._lock:
            found = self._blocks.get(key)
            if found is not None:
                self._blocks.move_to_end(key)
            return found

    def put(self, key: tuple[int, bytes], text: str) -> None:
        if len(text) > self.max_chars:
            return
        with self._lock:
            if key in self._blocks:
                return
            self._blocks[key] = text
            self._chars += len(text)
            while self._chars > self.max_chars:
                _, old = self._blocks.popitem(last=False)
                self._chars -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()
            self._chars = 0


#: The blocks this process decompressed last: 16 Mi characters (16-64 MB).
DECODED = DecodedBlocks(16 * 2**20)
