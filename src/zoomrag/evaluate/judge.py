"""Answers, not only spans: an LLM answers from the returned contexts and a judge scores it.

For each question and configuration (at one budget) three chat calls to an OpenAI-compatible
endpoint (see :mod:`.llm`):

1. **answer** — the question and the contexts the configuration returned; the model answers
   from them only, or says it does not know;
2. **faithfulness** — the judge splits the answer into claims and marks each one supported or
   not by the same contexts; the score is the share supported (an answer with no claims, such
   as "I don't know", has no faithfulness score and counts as an abstention);
3. **relevancy** — the judge says whether the answer addresses the question: ``yes`` (1),
   ``partly`` (0.5) or ``no`` (0).

This follows the shape of LlamaIndex's FaithfulnessEvaluator / RelevancyEvaluator and Ragas'
faithfulness (claims checked one by one against the context); the prompts are this module's
own and are printed in docs/evaluation.md. A judgment is cached with the results, keyed by the
configuration's run key, the question, the judge's model, the prompts' version and the returned
spans.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import EvalError
from .llm import Endpoint, reply_object
from .stats import RESAMPLES, SEED, Estimate, bootstrap

#: Bumped when a prompt changes: cached judgments of other prompts are not reused.
PROMPT_VERSION = "1"

ANSWER_SYSTEM = (
    "You answer questions using only the numbered context passages you are given. Do not use "
    "anything else you know. If the passages do not contain the answer, the answer is exactly: "
    "I don't know.")
ANSWER_USER = (
    "Context passages:\n{contexts}\n\nQuestion: {question}\n\n"
    'Reply with one JSON object: {{"answer": "<your answer, in one to three sentences>"}}')

FAITHFULNESS_SYSTEM = (
    "You check answers against their sources. You are strict: a claim is supported only when the "
    "context passages state it or directly imply it.")
FAITHFULNESS_USER = (
    "Context passages:\n{contexts}\n\nAnswer to check: {answer}\n\n"
    "Split the answer into its separate factual claims (one fact each; an answer saying it does "
    "not know has no claims). For each claim decide whether the context passages support it.\n"
    'Reply with one JSON object: {{"claims": [{{"claim": "<claim>", "supported": true or false}}]}}')

RELEVANCY_SYSTEM = "You judge whether an answer addresses the question that was asked."
RELEVANCY_USER = (
    "Question: {question}\n\nAnswer: {answer}\n\n"
    'Does the answer address the question? "yes": it answers it; "partly": it answers part of it '
    'or only hedges; "no": it does not (an answer saying it does not know is "no").\n'
    'Reply with one JSON object: {{"verdict": "yes" | "partly" | "no"}}')

_RELEVANCY = {"yes": 1.0, "partly": 0.5, "no": 0.0}


def _json(reply: str, what: str) -> dict[str, Any]:
    obj = reply_object(reply)
    if obj is None:
        raise ValueError(f"the {what} reply is not a JSON object: {reply[:80]!r}")
    return obj


def format_contexts(contexts: Sequence[str]) -> str:
    if not contexts:
        return "(no passages)"
    return "\n\n".join(f"[{i}] {c.strip()}" for i, c in enumerate(contexts, 1))


@dataclass(frozen=True, slots=True)
class Judgment:
    """One answer and its scores (``faithfulness`` is None when the answer makes no claim)."""

    answer: str
    claims: int
    supported: int
    relevancy: float
    #: Why the scores are missing, when the model's reply could not be used.
    error: str | None = None

    @property
    def faithfulness(self) -> float | None:
        return None if self.claims == 0 else self.supported / self.claims

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "claims": self.claims, "supported": self.supported,
                "relevancy": self.relevancy, "error": self.error}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Judgment:
        return cls(str(d["answer"]), int(d["claims"]), int(d["supported"]), float(d["relevancy"]),
                   d.get("error"))


@dataclass(frozen=True)
class Judge:
    """Answers and scores through one endpoint (the same model answers and judges)."""

    endpoint: Endpoint

    @property
    def identity(self) -> str:
        # The model and the prompts decide a judgment, not where the server listens.
        return f"{self.endpoint.model}|prompts-{PROMPT_VERSION}"

    def key(self, returned: Sequence[tuple[str, int, int]]) -> str:
        """The cache key of a judgment: this judge and the spans it was shown."""
        spans = json.dumps([list(r) for r in returned], ensure_ascii=False)
        return hashlib.blake2b(f"{self.identity}|{spans}".encode(), digest_size=16).hexdigest()

    def judge(self, question: str, contexts: Sequence[str]) -> Judgment:
        ctx = format_contexts(contexts)
        chat = self.endpoint.chat
        try:
            reply = chat([{"role": "system", "content": ANSWER_SYSTEM},
                          {"role": "user", "content": ANSWER_USER.format(contexts=ctx, question=question)}])
            answer = _json(reply, "answer").get("answer")
            if not isinstance(answer, str):
                raise ValueError("the answer reply has no \"answer\" text")
            reply = chat([{"role": "system", "content": FAITHFULNESS_SYSTEM},
                          {"role": "user", "content": FAITHFULNESS_USER.format(contexts=ctx, answer=answer)}])
            claims = _json(reply, "faithfulness").get("claims")
            if not isinstance(claims, list) or not all(isinstance(c, dict) for c in claims):
                raise ValueError("the faithfulness reply has no \"claims\" list")
            supported = sum(1 for c in claims if c.get("supported") is True)
            reply = chat([{"role": "system", "content": RELEVANCY_SYSTEM},
                          {"role": "user", "content": RELEVANCY_USER.format(question=question, answer=answer)}])
            verdict = str(_json(reply, "relevancy").get("verdict", "")).strip().lower()
            if verdict not in _RELEVANCY:
                raise ValueError(f"the relevancy verdict {verdict!r} is not yes, partly or no")
        except ValueError as e:
            # One unusable reply costs one question's scores, not the run; it is counted.
            return Judgment("", 0, 0, float("nan"), str(e))
        return Judgment(answer.strip(), len(claims), supported, _RELEVANCY[verdict])


@dataclass(frozen=True, slots=True)
class JudgeStats:
    """Judged answer quality of one configuration at one budget."""

    config: str
    budget: int
    faithfulness: Estimate | None
    relevancy: Estimate | None
    #: Questions judged, answers with no claim (abstentions), replies that could not be used.
    judged: int
    abstained: int
    failed: int

    def to_dict(self) -> dict[str, Any]:
        def est(e: Estimate | None) -> dict[str, Any] | None:
            return None if e is None else {"mean": round(e.mean, 4), "ci": e.to_list()}
        return {"config": self.config, "budget": self.budget, "faithfulness": est(self.faithfulness),
                "answer_relevancy": est(self.relevancy), "judged": self.judged,
                "abstained": self.abstained, "failed": self.failed}


def summarize(config: str, budget: int, judgments: Sequence[Judgment], *, resamples: int = RESAMPLES,
              seed: int = SEED) -> JudgeStats:
    if not judgments:
        raise EvalError(f"{config}: nothing was judged")
    ok = [j for j in judgments if j.error is None]
    faith = [j.faithfulness for j in ok if j.faithfulness is not None]
    rel = [j.relevancy for j in ok]
    return JudgeStats(
        config, budget,
        bootstrap(faith, resamples=resamples, seed=seed) if faith else None,
        bootstrap(rel, resamples=resamples, seed=seed) if rel else None,
        len(judgments), sum(1 for j in ok if j.claims == 0), len(judgments) - len(ok))
