"""Document text stored compressed in blocks: exact round trips, spans from the blocks they touch."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from invariants import texts

from zoomrag.errors import StoreError
from zoomrag.store import textblocks


def test_blocks_are_cut_every_block_chars_characters():
    blob = textblocks.encode("abcdefghij", block_chars=4)
    layout = textblocks.Layout.read(blob)
    assert (layout.block_chars, layout.count) == (4, 3)
    assert [layout.block(blob, i) for i in range(3)] == ["abcd", "efgh", "ij"]
    assert textblocks.decode(textblocks.encode("")) == ""
    assert textblocks.Layout.read(textblocks.encode("")).count == 0


def test_a_span_decompresses_only_the_blocks_it_touches(monkeypatch):
    blob = textblocks.encode("abcdefghij", block_chars=4)
    seen = []
    real = zlib.decompress
    monkeypatch.setattr(textblocks.zlib, "decompress", lambda data: seen.append(data) or real(data))
    assert textblocks.decode_span(blob, 5, 7) == "fg"
    assert len(seen) == 1
    assert textblocks.decode_span(blob, 3, 9) == "defghi"
    assert len(seen) == 4  # blocks 0, 1 and 2
    assert textblocks.decode_span(blob, 4, 4) == ""


@given(text=texts, size=st.integers(1, 50), data=st.data())
def test_any_text_and_any_span_round_trip(text, size, data):
    blob = textblocks.encode(text, block_chars=size)
    assert textblocks.decode(blob) == text
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert textblocks.decode_span(blob, start, end) == text[start:end]


def test_lone_surrogates_round_trip():
    assert textblocks.decode(textblocks.encode("a\ud800b", block_chars=2)) == "a\ud800b"


def test_damage_is_named_with_the_way_out():
    blob = textblocks.encode("some text " * 20, block_chars=64)
    with pytest.raises(StoreError, match=r"has \d+ bytes, its header says \d+; rebuild the index with zoomrag "
                                         r"index --reindex"):
        textblocks.decode(blob[:-1])
    flipped = blob[:8] + bytes([blob[8] ^ 0xFF]) + blob[9:]
    with pytest.raises(StoreError, match=r"block 0 is damaged .*rebuild the index"):
        textblocks.decode(flipped)
    with pytest.raises(StoreError, match=r"truncated \(block header\)"):
        textblocks.decode(b"\x80")
    with pytest.raises(ValueError, match=r"span \[3, 2\) is not a span"):
        textblocks.decode_span(blob, 3, 2)
    with pytest.raises(ValueError, match=r"block_chars=0: need at least 1"):
        textblocks.encode("x", block_chars=0)
