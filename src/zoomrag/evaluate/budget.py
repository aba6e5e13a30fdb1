"""Equal-budget comparison: take contexts in rank order until a token budget is full.

Returning more text trivially raises recall, so every configuration is scored on the same
number of tokens. Contexts are charged in full even when they repeat text already taken
(repeated text costs budget, as it would in a prompt); the context that crosses the limit is cut
at the token where the budget ends. Tokens are counted once per document with a
:class:`~zoomrag.text.tokens.Measure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import EvalError
from ..text.tokens import Measure, TokenCounter, get_counter
from .metrics import SpanLike, as_span
from .spans import DocSpan


class TokenBudget:
    """Counts tokens of spans of a fixed corpus and fills budgets with them."""

    def __init__(self, texts: Mapping[str, str], counter: TokenCounter | str = "tokens"):
        self._texts = texts
        self.counter = get_counter(counter) if isinstance(counter, str) else counter
        self._measures: dict[str, Measure] = {}

    def measure(self, doc_id: str) -> Measure:
        m = self._measures.get(doc_id)
        if m is None:
            try:
                text = self._texts[doc_id]
            except KeyError:
                raise EvalError(f"a returned context names document {doc_id!r}, which is not in the "
                                "evaluation corpus; index the same corpus you evaluate on") from None
            m = self._measures[doc_id] = Measure(text, self.counter)
        return m

    def tokens(self, span: SpanLike) -> int:
        doc_id, s, e = as_span(span)
        return self.measure(doc_id).size(s, e)

    def take(self, contexts: Sequence[SpanLike], budget: int) -> list[DocSpan]:
        """The longest rank-order prefix of ``contexts`` within ``budget`` tokens, the last one cut."""
        return [span for span, _ in self.take_ranked(contexts, budget)]

    def take_ranked(self, contexts: Sequence[SpanLike], budget: int) -> list[tuple[DocSpan, int]]:
        """:meth:`take`, each span with the rank (from 1) of the context it is part of."""
        if budget <= 0:
            raise EvalError(f"budget {budget} is not positive; give budgets in tokens, e.g. 512,1024,2048")
        out: list[tuple[DocSpan, int]] = []
        left = budget
        for doc_id, s, e, rank in _parts(contexts):
            m = self.measure(doc_id)
            if not 0 <= s <= e <= len(m.text):
                raise EvalError(f"returned context [{s}, {e}) lies outside document {doc_id!r} "
                                f"(length {len(m.text)})")
            size = m.size(s, e)
            if size <= left:
                out.append(((doc_id, s, e), rank))
                left -= size
            else:
                cut = min(e, m.offset_after(s, left))
                while cut > s and m.text[cut - 1].isspace():
                    cut -= 1
                if cut > s:
                    out.append(((doc_id, s, cut), rank))
                left = 0
            if left == 0:
                break
        return out


def _parts(contexts: Sequence[SpanLike]):
    """Every exact span of each context in order: a context of several spans (a table's header
    row and its rows, :meth:`zoomrag.model.Context.parts`) is charged and scored span by span,
    each with its context's rank."""
    for rank, c in enumerate(contexts, 1):
        parts = None if isinstance(c, tuple) else getattr(c, "spans", None)
        if parts and not isinstance(c, tuple):
            for s, e in parts:
                yield (c.doc_id, s, e, rank)
        else:
            yield (*as_span(c), rank)
