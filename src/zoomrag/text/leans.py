"""Sentences that lean on the one before them: "But…", "This means…", "She was told…".

Read alone, such a sentence answers a question it does not show, so a context that opens with
one takes the sentence before it when the budget allows (``expand.bounds.lean_start``). The
openers are English and Chinese connectives, pronouns and demonstratives; text in other
languages never leans, which only leaves its contexts as they were.
"""

from __future__ import annotations

import re

__all__ = ["leans_back"]

#: First words that refer back to what came before.
_WORDS = frozenset("""
    and or nor but however yet still though although nevertheless nonetheless instead otherwise
    therefore thus hence consequently accordingly so also moreover further furthermore besides
    additionally
    similarly likewise conversely meanwhile then this these that those it its they their them
    he his him she her such
""".split())
#: Openings of more than one word that refer back.
_PHRASES = re.compile(r"(?:in (?:addition|contrast|particular|turn|short|other words|this case|that case)"
                      r"|on the other hand|as a result|by contrast|for (?:example|instance)"
                      r"|the (?:latter|former|same|above))\b", re.I)
#: Chinese openers: but, however, so, therefore, besides, meanwhile, this, that, it, its.
_CJK = re.compile("但是|但|然而|不过|所以|因此|因而|于是|此外|另外|而且|并且|同时|这|那些|它|其|该|此")
_FIRST = re.compile(r"[A-Za-z]+")


def leans_back(text: str, pos: int) -> bool:
    """True when the sentence starting at ``pos`` opens with a word that refers back to the
    sentence before it. The word must be capitalised as a sentence's first word is: ``THE
    PRESIDENT:`` or ``IT`` in capitals is a label, not a pronoun."""
    if _CJK.match(text, pos) or _PHRASES.match(text, pos):
        return True
    m = _FIRST.match(text, pos)
    if m is None:
        return False
    word = m.group()
    if not word[0].isupper() or (len(word) > 1 and word.isupper()):
        return False
    return word.lower() in _WORDS
