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
    textblocks.DECODED.clear()
    assert textblocks.decode_span(blob, 5, 7) == "fg"
    assert len(seen) == 1
    assert textblocks.decode_span(blob, 3, 9) == "defghi"
    assert len(seen) == 3  # blocks 0 and 2; block 1 was kept
    assert textblocks.decode_span(blob, 4, 4) == ""
    assert textblocks.decode(blob) == "abcdefghij" and len(seen) == 3


def test_kept_blocks_are_bounded_and_never_stand_for_another_text():
    textblocks.DECODED.clear()
    a = textblocks.encode("first version of the text", block_chars=8)
    b = textblocks.encode("other version of the text", block_chars=8)
    assert textblocks.decode(a) == "first version of the text"
    assert textblocks.decode(b) == "other version of the text"  # same layout, other bytes
    small = textblocks.DecodedBlocks(max_chars=10)
    for i in range(5):
        small.put((0, bytes([i])), "abcd")
    assert [small.get((0, bytes([i]))) for i in range(5)] == [None, None, None, "abcd", "abcd"]


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


def test_chinese_text_is_stored_in_the_smallest_encoding_and_reads_back():
    text = "泡泡战士是一款射击游戏，玩家用水枪攻击对手。" * 30 + " ascii tail"
    blob = textblocks.encode(text, block_chars=200)
    layout = textblocks.Layout.read(blob)
    assert textblocks.CODECS[layout.codec] in ("gb18030", "utf-16-le")
    assert textblocks.decode(blob) == text and textblocks.decode_span(blob, 190, 215) == text[190:215]
    utf8 = sum(len(zlib.compress(text[i:i + 200].encode(), textblocks.LEVEL)) for i in range(0, len(text), 200))
    assert sum(e - s for s, e in zip(layout.starts, layout.ends)) < utf8
    # mostly ASCII: UTF-8, nothing else tried
    assert textblocks.Layout.read(textblocks.encode("plain words 水")).codec == 0


def test_a_lone_surrogate_skips_gb18030_and_still_round_trips():
    text = "中文\ud800字" * 50
    blob = textblocks.encode(text, block_chars=16)
    assert textblocks.CODECS[textblocks.Layout.read(blob).codec] != "gb18030"
    assert textblocks.decode(blob) == text


def test_an_unknown_encoding_number_is_refused():
    blob = textblocks.encode("some text")
    with pytest.raises(StoreError, match=r"character encoding 9, which this zoomrag does not know; rebuild"):
        textblocks.decode(b"\x09" + blob[1:])


def test_the_layout_is_read_from_the_header_alone():
    blob = textblocks.encode("abcdefghij" * 50, block_chars=7)  # 72 blocks: a header of over 30 bytes
    asked = []

    def read(offset, size):
        asked.append((offset, size))
        return blob[offset:offset + size]

    assert textblocks.Layout.read_from(read, len(blob)) == textblocks.Layout.read(blob)
    assert max(o + s for o, s in asked) <= 3 + 2 * 72 < len(blob) / 4  # sizes of 2 bytes at most
    layout = textblocks.Layout.read(blob)
    assert layout.decode(blob[layout.starts[3]:layout.ends[3]], 3) == "bcdefgh"  # characters 21-27
    with pytest.raises(StoreError, match="header says"):
        textblocks.Layout.read_from(read, len(blob) + 1)
