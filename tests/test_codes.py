"""code_points: one code point per character, whatever the text's widest character."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from zoomrag.text.codes import code_points


@given(st.text(st.characters(codec=None, exclude_categories=())))
def test_code_points_are_the_characters_ords(text: str) -> None:
    assert code_points(text).tolist() == [ord(c) for c in text]


def test_each_width_gets_its_narrowest_unit() -> None:
    assert code_points("").tolist() == []
    assert code_points("ab\n").dtype == np.uint8
    assert code_points("é中").tolist() == [0xE9, 0x4E2D]
    assert code_points("é中").dtype == np.uint16
    assert code_points("a😀b").tolist() == [0x61, 0x1F600, 0x62]
    assert code_points("a😀b").dtype == np.uint32
    # A lone surrogate is kept as itself, not paired or refused.
    assert code_points("\ud83d!").tolist() == [0xD83D, 0x21]
    assert code_points("\ud83d\ude00").tolist() == [0xD83D, 0xDE00]
    for text in ["\udc00\ud800", "中文\uffff", "😀a\U0010ffff", "é\xff"]:
        assert code_points(text).tolist() == [ord(c) for c in text], text
