"""Assembly's options: filling the budget (cut at sentences, then words), order, explanations."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from test_expand_support import Trees, build, chars, hit

from zoomrag.errors import ConfigError
from zoomrag.expand import Candidate, assemble, get_expander
from zoomrag.load import read_text
from zoomrag.model import Document, Hit
from zoomrag.parse.base import build_tree
from zoomrag.text.tokens import default_counter

PARA = "One two. Three four. Five six. Seven eight."
TREE = build_tree(Document(id="p", source="p.txt", text=PARA), [])
TREES = Trees(TREE)


def at(text: str, score: float = 0.5, doc: str = "p", source: str = PARA) -> Hit:
    s = source.index(text)
    return Hit(node_id=f"n{s}", doc_id=doc, start=s, end=s + len(text), score=score)


def whole(*hits: Hit, score: float = 0.9) -> Candidate:
    return Candidate("p", 0, len(PARA), score, hits, rule="parent of 1 hit")


def test_without_fill_a_candidate_too_big_is_dropped():
    assert assemble([whole(at("Five six."))], TREES, 20, chars, shape=False) == []


def test_fill_keeps_whole_sentences_around_the_best_hit():
    for budget, expected in [(9, "Five six."), (20, "Five six."), (21, "Three four. Five six."),
                             (22, "Five six. Seven eight."), (34, "Three four. Five six. Seven eight.")]:
        [c] = assemble([whole(at("Five six."))], TREES, budget, chars, fill=True, shape=False)
        assert c.text == expected, budget
        assert c.rule == "parent of 1 hit, cut to fit" and c.hits == ((21, 30, 0.5),)


def test_fill_cuts_at_words_when_no_sentence_fits():
    [c] = assemble([whole(at("Five six."))], TREES, 8, chars, fill=True, shape=False)
    assert c.text == "Five"
    text = "aaa bbb ccc"
    tree = build_tree(Document(id="w", source="w", text=text), [])
    cand = Candidate("w", 0, 11, 1.0, (Hit("h", "w", 0, 3, 1.0),))
    [c] = assemble([cand], Trees(tree), 7, chars, fill=True, shape=False)
    assert c.text == "aaa bbb" and len(c.text) == 7  # the budget, to the token


def test_a_piece_of_a_hit_larger_than_the_room_holds_that_hit():
    [c] = assemble([whole(at("Three four. Five six."))], TREES, 12, chars, fill=True, shape=False)
    assert c.text == "Three four." and c.hits == ((9, 20, 0.5),)  # the part of the hit it returns


def test_fill_never_repeats_text_already_chosen():
    unit = Candidate("p", 9, 20, 0.95, (at("Three four."),))
    out = assemble([unit, whole(at("Five six."))], TREES, 25, chars, fill=True, shape=False)
    # "Three four." (11) is taken; the paragraph is cut to "Five six." (9), which is only
    # whitespace away from it, so the two become one context
    assert [c.text for c in out] == ["Three four. Five six."]
    assert sum(len(c.text) for c in out) <= 25


def test_fill_from_the_text_after_a_hit_already_returned():
    unit = Candidate("p", 21, 30, 0.95, (at("Five six."),))
    out = assemble([unit, whole(at("Five six."))], TREES, 30, chars, fill=True, shape=False)
    assert [c.text for c in out] == ["Five six. Seven eight."]


def test_document_order_groups_contexts_by_document_in_text_order():
    cands = [Candidate("p", 31, 43, 0.9, ()), Candidate("p", 0, 8, 0.5, ()), Candidate("q", 0, 4, 0.7, ())]
    trees = Trees(TREE, build_tree(Document(id="q", source="q", text="qqqq"), []))
    by_score = assemble(cands, trees, 100, chars, shape=False)
    assert [(c.doc_id, c.start) for c in by_score] == [("p", 31), ("q", 0), ("p", 0)]
    by_doc = assemble(cands, trees, 100, chars, order="document", shape=False)
    assert [(c.doc_id, c.start) for c in by_doc] == [("p", 0), ("p", 31), ("q", 0)]
    try:
        assemble(cands, trees, 100, chars, order="rank", shape=False)
    except ConfigError as e:
        assert str(e) == "assembly order 'rank' is not allowed; choose one of: score, document"
    else:
        raise AssertionError("order='rank' was accepted")


def test_explain_names_every_rule_merged_into_a_context():
    flat = build([["s1.", "s2.", "s3.", "s4."]])
    hits = [hit(flat, "s2.", 0.9), hit(flat, "s3.", 0.8)]
    cands = get_expander("window", {"n": 1}).expand(hits, Trees(flat), 100)
    [plain] = assemble(cands, Trees(flat), 100, chars, shape=False)
    [told] = assemble(cands, Trees(flat), 100, chars, explain=True, shape=False)
    assert plain.rule == "window of 1"
    assert told.rule == "window of 1; merged with window of 1; assembly: no more candidates that fit (15/100 tokens)"
    assert told.text == "s1. s2. s3. s4." and [h[2] for h in told.hits] == [0.9, 0.8]


WORDS = "Alpha beta gamma. Delta epsilon zeta eta. Theta iota kappa lambda mu. Nu xi omicron pi rho sigma."


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(WORDS)), st.integers(0, 60), st.floats(0, 1)), max_size=10),
       st.integers(1, 120), st.one_of(st.none(), st.integers(1, 4)), st.booleans(),
       st.sampled_from(["score", "document"]))
def test_assembly_never_repeats_a_character_and_respects_the_budget(raw, budget, top, fill, order):
    tree = build_tree(Document(id="d", source="d", text=WORDS), [])
    cands = []
    for s, n, score in raw:
        e = min(len(WORDS), s + n)
        h = Hit("h", "d", s, min(e, s + 5), score)
        cands.append(Candidate("d", s, e, score, (h,), fallback=(Candidate("d", s, min(e, s + 5), score, (h,)),)))
    out = assemble(cands, Trees(tree), budget, chars, top=top, fill=fill, order=order, shape=False)
    covered = [i for c in out for i in range(c.start, c.end)]
    assert len(covered) == len(set(covered))
    assert sum(len(c.text) for c in out) <= budget
    assert top is None or len(out) <= top
    assert all(c.text == WORDS[c.start:c.end] for c in out)
    # every highlighted hit lies inside the text returned
    assert all(c.start <= hs < he <= c.end for c in out for hs, he, _ in c.hits)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200), st.integers(0, 3))
def test_budget_in_word_pieces_is_respected_to_the_token(budget, n):
    counter = default_counter()

    def pieces(text: str) -> int:
        return len(counter.token_starts(text))

    text = " ".join(f"Sentence number {i} talks about tokenisation and budgets." for i in range(30))
    tree = build([text[i:i + 58] for i in range(0, len(text), 59)], doc_id="t")
    leaves = tree.leaves()
    hits = [Hit(leaves[i].id, "t", leaves[i].start, leaves[i].end, 1 - i / 100) for i in (3, 10, 11, 20, 27)]
    cands = get_expander("window", {"n": n}).expand(hits, Trees(tree), budget)
    out = assemble(cands, Trees(tree), budget, pieces, fill=True, shape=False)
    used = sum(pieces(c.text) for c in out)
    assert used <= budget
    assert used > 0 if budget >= 2 else True


TALK = read_text("WEBVTT\n\n" + "".join(
    f"00:00:{i * 5:02d}.000 --> 00:00:{i * 5 + 5:02d}.000\n<v {who}>{said}\n\n" for i, (who, said) in enumerate([
        ("Ann", "We ship on Friday. The build is green. QA signed off yesterday."),
        ("Bo Li", "Good. Then the release notes go out Thursday. I will write them tonight."),
        ("Ann", "Thanks. One more thing about the database. Its backups run at noon now.")])),
    format="vtt", id="t", source="t.vtt")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(TALK.text)), st.integers(1, 80), st.floats(0, 1)), min_size=1,
                max_size=8), st.integers(1, 120), st.booleans())
def test_a_context_from_inside_a_turn_carries_its_lead_within_the_budget(raw, budget, fill):
    text = TALK.text
    cands = []
    for s, n, score in raw:
        e = min(len(text), s + n)
        if s >= e:
            continue
        cands.append(Candidate("t", s, e, score, (Hit("h", "t", s, min(e, s + 5), score),)))
    out = assemble(cands, Trees(build_tree(TALK, [])), budget, chars, fill=fill)
    parts = [p for c in out for p in c.parts()]
    covered = [i for s, e in parts for i in range(s, e)]
    assert len(covered) == len(set(covered))
    assert sum(e - s for s, e in parts) <= budget
    leads = [(m.start(), m.end()) for m in re.finditer(r"\[\d\d:\d\d\] [A-Za-z ]+:", text)]
    for c in out:
        start = c.parts()[0][0]
        inside = [(a, b) for a, b in leads if b <= start and "\n\n" not in text[b:start]]
        assert not inside or inside[-1] in c.parts()
