"""Ground truth without annotators: an LLM writes question/evidence pairs from the user's corpus.

Passages of about ``passage_chars`` characters are sampled (documents weighted by length, cut at
sentence boundaries) and the model is asked for ``{"question", "evidence"}`` where the evidence
is copied verbatim from the passage. Each evidence is then located in the passage's document
(exactly, then whitespace-normalised, as the importers do); a reply that is not JSON, lacks a
field, or quotes text that is not in the document is dropped and listed in the report, never
kept. Endpoint errors (unreachable, HTTP 4xx/5xx) stop the run with the endpoint's message.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import EvalError
from ..text.sentences import sentence_spans
from .dataset import Dataset, EvalDocument, EvalQuery, Evidence, NewQueries
from .llm import Endpoint, reply_object
from .locate import Locator

PASSAGE_CHARS = 1500

SYSTEM_PROMPT = ("You write evaluation questions for a document retrieval system. "
                 "Answer with one JSON object and nothing else.")

USER_PROMPT = """Passage:
<<<
{passage}
>>>

Write one specific question that a user of these documents might ask and that this passage answers.
Then copy, word for word, the shortest part of the passage (one to three sentences) that holds the answer.
Reply as JSON: {{"question": "...", "evidence": "..."}}"""


@dataclass(frozen=True, slots=True)
class Passage:
    doc_id: str
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Rejected:
    call: int
    doc_id: str
    reason: str
    reply: str


@dataclass(frozen=True)
class GenerateReport:
    requested: int
    calls: int
    kept: int
    exact: int
    whitespace: int
    rejected: tuple[Rejected, ...]

    def summary(self) -> str:
        return (f"generated {self.kept} of {self.requested} questions in {self.calls} calls; evidence found "
                f"exactly {self.exact}, after normalising whitespace {self.whitespace}; "
                f"dropped {len(self.rejected)} replies"
                + (" (" + "; ".join(sorted({r.reason for r in self.rejected})) + ")" if self.rejected else "")
                + ".")


@dataclass(frozen=True)
class GenerateResult(NewQueries):
    report: GenerateReport


def sample_passage(docs: Sequence[EvalDocument], rng: random.Random, chars: int = PASSAGE_CHARS) -> Passage:
    """A run of whole sentences of about ``chars`` characters from a length-weighted random document."""
    weights = [max(1, len(d.text.strip())) for d in docs]
    doc = rng.choices(list(docs), weights=weights)[0]
    text = doc.text
    pos = rng.randrange(0, max(1, len(text) - chars))
    sents = sentence_spans(text, pos, min(len(text), pos + 2 * chars))
    if pos > 0 and len(sents) > 1:
        sents = sents[1:]  # the first one may start mid-sentence
    if not sents:
        return Passage(doc.id, 0, len(text), text)
    s0, end = sents[0]
    for _, e in sents[1:]:
        if end - s0 >= chars:
            break
        end = e
    return Passage(doc.id, s0, end, text[s0:end])


def parse_reply(reply: str) -> tuple[str, str]:
    """``(question, evidence)`` from a model reply; ValueError says what is wrong with it."""
    obj = reply_object(reply)
    if obj is None:
        raise ValueError("reply is not JSON")
    q, ev = obj.get("question"), obj.get("evidence")
    if not isinstance(q, str) or not q.strip():
        raise ValueError("no question in the reply")
    if not isinstance(ev, str) or not ev.strip():
        raise ValueError("no evidence in the reply")
    return q.strip(), ev


def generate(corpus: Dataset | Sequence[EvalDocument], n: int, endpoint: Endpoint | None = None, *,
             seed: int = 0, passage_chars: int = PASSAGE_CHARS, max_calls: int | None = None,
             id_prefix: str = "gen", progress: Callable[[int, int], None] | None = None) -> GenerateResult:
    """Ask the LLM for up to ``n`` question/evidence pairs; keep only evidence found in the corpus.

    ``endpoint`` defaults to :meth:`Endpoint.from_env` (an EvalError names the variables to set).
    At most ``max_calls`` requests are made (default ``2 * n``), so bad replies are replaced.
    """
    if n <= 0:
        raise EvalError(f"--n must be a positive number of questions, got {n}")
    docs = tuple(corpus.documents if isinstance(corpus, Dataset) else corpus)
    docs = tuple(d for d in docs if d.text.strip())
    if not docs:
        raise EvalError("the corpus has no text to write questions about")
    ep = Endpoint.from_env() if endpoint is None else endpoint
    rng = random.Random(seed)
    locator = Locator(docs)
    limit = 2 * n if max_calls is None else max_calls
    queries: list[EvalQuery] = []
    rejected: list[Rejected] = []
    exact = whitespace = calls = 0
    seen: set[str] = set()
    while len(queries) < n and calls < limit:
        calls += 1
        p = sample_passage(docs, rng, passage_chars)
        reply = ep.chat([{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": USER_PROMPT.format(passage=p.text)}])
        try:
            question, evidence = parse_reply(reply)
        except ValueError as e:
            rejected.append(Rejected(calls, p.doc_id, str(e), reply[:300]))
            continue
        hit = locator.locate(evidence, p.doc_id, near=p.start)
        if hit is None:
            rejected.append(Rejected(calls, p.doc_id, "evidence not found in the document", reply[:300]))
            continue
        if question.casefold() in seen:
            rejected.append(Rejected(calls, p.doc_id, "duplicate question", reply[:300]))
            continue
        seen.add(question.casefold())
        exact += hit.method == "exact"
        whitespace += hit.method == "whitespace"
        queries.append(EvalQuery(id=f"{id_prefix}-{len(queries):04d}", query=question,
                                 evidence=(Evidence(hit.doc_id, hit.start, hit.end),)))
        if progress is not None:
            progress(len(queries), n)
    report = GenerateReport(n, calls, len(queries), exact, whitespace, tuple(rejected))
    return GenerateResult(tuple(queries), report)
