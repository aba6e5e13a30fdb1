"""A filing's facts as metadata: who filed which form for which period.

An inline XBRL filing (every 10-K, 10-Q and 8-K since 2019) tags its cover page with the SEC's
``dei`` facts — ``<ix:nonNumeric name="dei:EntityRegistrantName">Acme Inc.</ix:nonNumeric>`` —
and an EDGAR submission's header states them (:mod:`.edgar`). Both become the same metadata:
``company``, ``cik``, ``form``, ``period`` and ``filed`` as ISO dates, ``fiscal_year``; so
``--where form=10-K --where 'period>=2023-01-01'`` selects filings whichever way they came, and
the filing is titled ``Acme Inc. — 10-K, period 2023-12-31`` rather than by its file name.
"""

from __future__ import annotations

import re
from html import unescape

from .properties import iso_date

__all__ = ["cover_facts", "filing_title", "iso_date"]

_DEI = re.compile(r"<ix:nonnumeric\b[^>]*?\bname=[\"']dei:(\w+)[\"'][^>]*>(.*?)</ix:nonnumeric>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")
_FACTS = {"EntityRegistrantName": "company", "EntityCentralIndexKey": "cik", "DocumentType": "form",
          "DocumentPeriodEndDate": "period", "DocumentFiscalYearFocus": "fiscal_year"}


def cover_facts(html: str) -> dict[str, str]:
    """The ``dei`` facts an inline XBRL page tags, as metadata (empty for any other page)."""
    facts: dict[str, str] = {}
    if "dei:" not in html:
        return facts
    for m in _DEI.finditer(html):
        key = _FACTS.get(m.group(1))
        value = " ".join(unescape(_TAG.sub(" ", m.group(2))).split())
        if key and value and key not in facts:
            facts[key] = iso_date(value) if key == "period" else value
    return facts


def filing_title(facts: dict[str, str]) -> str:
    """``Acme Inc. — 10-K, period 2023-12-31`` from what ``facts`` hold; "" without a filer (a
    page's own title says more than a bare ``10-K``)."""
    if not facts.get("company"):
        return ""
    period = f", period {facts['period']}" if "period" in facts else ""
    form = facts.get("form", "") + period if "form" in facts else ""
    return " — ".join(p for p in (facts.get("company", ""), form) if p)
