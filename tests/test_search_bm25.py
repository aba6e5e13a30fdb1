"""BM25 over FTS5: safe query building, CJK characters searched as pairs, zoomrag's own scores (a
term counts once per unit), the choice of terms that keeps search from scoring most of a large
index, hybrid search's re-scoring of dense candidates for questions of common terms, and Chinese
questions that find their passage."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_index_support import DATA, CharWindows, CountingEmbedder

from zoomrag.errors import ConfigError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.search.bm25 import (
    TermChoice,
    bm25_search,
    choose_terms,
    idf,
    match_expression,
    query_terms,
    rescore,
    select_terms,
)
from zoomrag.store import fts
from zoomrag.store.sqlite import TermCount


def test_index_terms_are_lowercased_words_and_cjk_characters():
    assert fts.terms("泡泡战士 Hello, WORLD! 水 e.g. x_y") == ["泡", "泡", "战", "士", "hello", "world", "水", "e",
                                                              "g", "x", "y"]  # "_" splits, as in FTS5
    assert fts.body("玩家用水枪") == "\ue000 玩 家 用 水 枪"  # every row starts with fts.ROW_TERM
    assert fts.body("") == fts.ROW_TERM and fts.terms("a\ue000b") == ["a", "b"]
    assert fts.terms("") == [] and fts.terms("  ,.!? ") == []


def test_query_terms_are_lowercased_words_and_cjk_bigrams():
    assert fts.query_terms("泡泡战士 Hello, WORLD! 水 e.g.") == ["泡泡", "泡战", "战士", "hello", "world", "水", "e", "g"]
    assert [fts.expression(t) for t in ["玩家", "水", "say"]] == ['("玩" AND "家")', '"水"', '"say"']


def test_user_text_never_becomes_fts_syntax():
    assert fts.expression('say "hi"') == '"say ""hi"""'
    terms = query_terms('NEAR(a b) AND "x" OR col:y * -z ^w')
    assert terms == ["near", "a", "b", "and", "x", "or", "col", "y", "z", "w"]
    assert match_expression(terms) == ('"near" OR "a" OR "b" OR "and" OR "x" OR "or" OR "col" OR "y" OR '
                                       '"z" OR "w"')
    assert match_expression(query_terms("什么 水")) == '("什" AND "么") OR "水"'
    assert match_expression([]) is None


def test_a_cjk_bigram_matches_units_that_hold_both_characters(tmp_path):
    # no positions in the index: a pair is found wherever both characters are, then kept only
    # where they are adjacent (re-scoring from the text)
    docs = [Document.from_text("玩家用水枪", id="adjacent"), Document.from_text("家里的玩具", id="apart"),
            Document.from_text("玩具", id="one")]
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=CharWindows(200)) as ix:
        ix.add(docs)
        assert [h.doc_id for h in ix.search("玩家", mode="bm25", k=10)] == ["adjacent"]
        assert [h.doc_id for h in ix.search("水", mode="bm25", k=10)] == ["adjacent"]
        assert ix.store.term_frequencies(["玩家", "家", "玩", "无"]) == {"玩家": 2, "家": 2, "玩": 3, "无": 0}
        # with a cap, counting stops at cap + 1 ("more than cap")
        assert ix.store.term_frequencies(["玩家", "家", "玩"], cap=1) == {"玩家": 2, "家": 2, "玩": 2}
        assert ix.store.term_frequencies(["家"], cap=0) == {"家": 1}


@pytest.mark.parametrize("query", ['"unbalanced', "AND", "OR OR", "NEAR(", "*", "a:b", "(", ")", "^", "-", "'", "",
                                   "0_0", "snake_case_name"])
def test_hostile_queries_do_not_raise(tmp_path, query):
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=CharWindows(40)) as ix:
        ix.add([Document.from_text("AND OR NEAR are words here. col: a:b (x) ^y -z *", id="d")])
        if not query.strip():  # an empty query is refused by name (any mode), never searched
            with pytest.raises(ConfigError, match="the query text is empty"):
                ix.query(query, mode="bm25")
            return
        ix.query(query, mode="bm25")


def test_terms_in_most_units_are_dropped_while_others_remain(tmp_path):
    docs = [Document.from_text(f"the common word and item{i}", id=f"d{i}") for i in range(6)]
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=CharWindows(200)) as ix:
        ix.add(docs)
        hits = ix.search("the item3", mode="bm25", k=10)
        assert [h.doc_id for h in hits] == ["d3"]  # "the" is in every unit: it would match all six
        assert [h.doc_id for h in ix.search("the", mode="bm25", k=10)] != []  # alone, it is kept


# -- which terms go into the MATCH ----------------------------------------------------------

def test_rarest_terms_are_taken_while_their_rows_fit_in_max_rows():
    df = {"the": 900, "cat": 40, "sat": 70, "mat": 40, "on": 500}
    terms = ["the", "cat", "sat", "on", "mat"]
    # rarest first (ties in query order): cat 40, mat 40, sat 70 -> 150 rows; "on" would make 650
    assert select_terms(terms, df, units=1000, max_rows=200) == ["cat", "sat", "mat"]
    assert select_terms(terms, df, units=1000, max_rows=80) == ["cat", "mat"]
    assert select_terms(terms, df, units=1000, max_rows=79) == ["cat"]
    assert select_terms(terms, df, units=1000, max_rows=0) == ["cat"]  # the rarest is always taken
    # rule 1: "the" is in more than half of the units (FTS5's IDF floor), even with room for it
    assert select_terms(terms, df, units=1000, max_rows=10_000) == ["cat", "sat", "on", "mat"]
    assert select_terms(terms, df, units=None, max_rows=10_000) == terms
    assert select_terms(["the", "on"], {"the": 900, "on": 600}, units=1000, max_rows=10_000) == ["the", "on"]
    assert select_terms(["the", "on"], {"the": 900, "on": 600}, units=1000, max_rows=1000) == ["on"]
    assert select_terms([], {}, units=10) == []


def test_select_terms_refuses_bad_limits():
    with pytest.raises(ConfigError, match=r"bm25 max_rows=-1 must be >= 0 \(the default is 2000\)"):
        select_terms(["a"], {"a": 1}, units=10, max_rows=-1)
    with pytest.raises(ConfigError, match=r"bm25 max_share=0 must be in \(0, 1\]"):
        select_terms(["a"], {"a": 1}, units=10, max_share=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=8), st.integers(0, 120), st.integers(1, 80))
def test_select_terms_keeps_the_rarest_and_fills_max_rows(counts, max_rows, units):
    terms = [f"t{i}" for i in range(len(counts))]
    df = dict(zip(terms, counts, strict=True))
    kept = select_terms(terms, df, units=units, max_rows=max_rows)
    present = [t for t in terms if df[t] > 0]  # a term in no unit is never searched
    if not present:
        assert kept == []
        return
    useful = [t for t in present if df[t] <= units / 2] or present
    assert kept and set(kept) <= set(useful)
    assert kept == [t for t in terms if t in kept]  # query order
    rarest = min(useful, key=lambda t: (df[t], terms.index(t)))
    assert rarest in kept
    assert len(kept) == 1 or sum(df[t] for t in kept) <= max_rows
    left = [t for t in useful if t not in kept]
    if left:  # nothing left out is rarer than what was taken, and the next one would not fit
        assert min(df[t] for t in left) >= max(df[t] for t in kept)
        assert sum(df[t] for t in kept) + min(df[t] for t in left) > max_rows


def _words_index(tmp_path, lines):
    ix = Index.open(tmp_path / "w.db", embedder=CountingEmbedder(), strategy=CharWindows(200))
    ix.add([Document.from_text(line, id=f"d{i}") for i, line in enumerate(lines)])
    return ix


def _reference(ix, terms, df=None):
    """This module's BM25 from the unit texts: (row, score) best first.

    Units are found when they hold every index term of a query term (both characters of a CJK
    pair, anywhere); each is then scored with the term's real frequency (a pair: adjacent
    characters); ties in the order found (the score with each term counted once). ``df``
    overrides a term's unit count (rule 3's estimate)."""
    rows = ix.store.conn.execute(
        "SELECT n.row, d.id, n.span_start, n.span_end FROM nodes n JOIN documents d ON d.key = n.doc "
        "WHERE n.unit = 1").fetchall()
    texts = {r: ix.store.document_text(doc, s, e) for r, doc, s, e in rows}
    held = {r: set(fts.terms(t)) for r, t in texts.items()}
    n, avg = len(texts), sum(map(len, texts.values())) / len(texts)

    def has(t, r):
        return set(t if fts.is_phrase(t) else [t]) <= held[r]

    weight = {}
    for t in terms:
        count = (df or {}).get(t, sum(has(t, r) for r in texts))
        weight[t] = max(1e-6, math.log((n - count + 0.5) / (count + 0.5)))
    out = []
    for r, text in texts.items():
        found = [t for t in terms if has(t, r)]
        if found:
            norm = 1.2 * (0.25 + 0.75 * len(text) / avg)
            once = sum(weight[t] for t in found) * 2.2 / (1 + norm)
            tf = {t: text.lower().count(t) if fts.is_cjk(t) else fts.terms(text).count(t) for t in found}
            exact = sum(weight[t] * f * 2.2 / (f + norm) for t, f in tf.items())
            if any(tf.values()):
                out.append((-exact, -once, r))
    return [(r, pytest.approx(-e, abs=1e-9)) for e, _, r in sorted(out)]


def test_scores_by_hand(tmp_path):
    # four units of 3 characters (average 3): a term found once scores its IDF times (k1 + 1) / (1 + k1) = 1
    with _words_index(tmp_path, ["a b", "a c", "b c", "d d"]) as ix:
        # "d" is twice in its unit: tf (k1 + 1) / (tf + k1) = 4.4 / 3.2
        assert bm25_search(ix.store, "d", 10, 4) == [(8, pytest.approx(math.log(3.5 / 1.5) * 4.4 / 3.2))]
        # "a" is in half of the units: IDF ln(2.5 / 2.5) = 0, floored at 1e-6; ties by row
        assert bm25_search(ix.store, "a", 10, 4) == [(2, pytest.approx(1e-6)), (4, pytest.approx(1e-6))]
        assert idf(2, 4) == 1e-6 and idf(1, 4) == pytest.approx(0.8473, abs=1e-4)
    with _words_index(tmp_path / "2", ["x", "x yy", "zz"]) as ix:  # lengths 1, 4, 2: average 7 / 3
        x = 1e-6  # x is in 2 of 3 units: its IDF is floored
        want = [(2, x * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1 / (7 / 3)))),
                (4, x * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / (7 / 3))))]
        assert bm25_search(ix.store, "x", 10, 3) == [(r, pytest.approx(s)) for r, s in want]
        yy = math.log(2.5 / 1.5) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / (7 / 3)))
        assert bm25_search(ix.store, "yy x", 10, 3) == [(4, pytest.approx(yy))]  # x left out (rule 1)
        assert bm25_search(ix.store, "yy x", 10, 3, max_share=1) == [(4, pytest.approx(yy + want[1][1])), want[0]]
        assert ix.store.unit_chars() == 7


WORDS = ["alpha beta", "alpha gamma", "alpha gamma delta", "alpha zeta", "alpha zeta", "alpha zeta",
         "beta gamma", "omega omega omega", "omega", "omega", "omega"]


def test_a_term_over_max_rows_is_left_out_and_the_rest_ranked(tmp_path):
    with _words_index(tmp_path, WORDS) as ix:
        n = ix.store.unit_count()
        assert n == 11
        assert ix.store.term_frequencies(["alpha", "beta", "gamma", "delta", "zeta"]) == {
            "alpha": 6, "beta": 2, "gamma": 3, "delta": 1, "zeta": 3}
        # delta 1 + beta 2 + gamma 3 = 6 rows; zeta (3) and alpha (6) do not fit in 6
        got = bm25_search(ix.store, "alpha beta gamma delta zeta", 20, n, max_rows=6)
        assert got == _reference(ix, ["beta", "gamma", "delta"])
        docs = {u.doc_id for u in ix.store.units(r for r, _ in got).values()}
        assert docs == {"d0", "d1", "d2", "d6"}  # no unit that only has alpha or zeta
        # with room for every term, all but alpha (in more than half of the units) are searched
        everything = bm25_search(ix.store, "alpha beta gamma delta zeta", 20, n, max_rows=100)
        assert len(everything) == 7


def test_a_query_of_common_terms_searches_its_rarest(tmp_path):
    with _words_index(tmp_path, WORDS) as ix:
        n = ix.store.unit_count()
        # omega (4 units) and zeta (3) are both over max_rows=1: counting goes on until zeta is
        # known to be the rarest, and it is searched alone
        got = bm25_search(ix.store, "omega zeta", 20, n, max_rows=1)
        assert len(got) == 3 and got == _reference(ix, ["zeta"])
        # a single term is searched as it is, however common
        assert len(bm25_search(ix.store, "alpha", 20, n, max_rows=1)) == 6


def test_cjk_bigrams_are_chosen_as_pairs(tmp_path):
    lines = ["玩家用水枪", "家里的玩具", "玩家", "玩家们", "水枪", "其他", "别的", "东西"]
    with _words_index(tmp_path, lines) as ix:
        n = ix.store.unit_count()
        assert ix.store.term_frequencies(["玩家", "水枪"]) == {"玩家": 4, "水枪": 2}  # 家里的玩具 too
        # 家水 1 row (d0), 水枪 2; 玩家 (4) left out
        got = bm25_search(ix.store, "玩家水枪", 10, n, max_rows=3)
        assert got == _reference(ix, ["家水", "水枪"])
        assert {u.doc_id for u in ix.store.units(r for r, _ in got).values()} == {"d0", "d4"}


def test_hostile_terms_stay_quoted_after_selection(tmp_path):
    with _words_index(tmp_path, ['say "hi" NEAR(x) AND y', "plain words here"]) as ix:
        n = ix.store.unit_count()
        # terms near, hi, and, col, x; col (0 rows) and near (1) fit in max_rows=1
        got = bm25_search(ix.store, 'NEAR( "hi AND * col:x', 5, n, max_rows=1)
        assert got == _reference(ix, ["near", "col"])
        assert [u.doc_id for u in ix.store.units(r for r, _ in got).values()] == ["d0"]


# -- rule 3: a question of common terms only re-scores the rows it is given ---------------

# rows 2, 4, ..., 18 (one unit per line). fox: 3 units (rows 2, 10, 16); red: 6 of 9, over half
FOX = ["red fox", "red red", "blue sky", "red blue", "fox fox red sky sky", "red", "sky blue green", "red fox fox",
       "green"]


def test_term_counts_say_how_far_into_the_index_a_capped_count_reached(tmp_path):
    with _words_index(tmp_path, FOX) as ix:
        # the 2nd unit with red is row 4 of 18, with fox row 10: red is the commoner (about 9 and 3.6 units)
        assert ix.store.term_counts(["red", "fox", "none"], cap=1) == {
            "red": TermCount(2, 4 / 18), "fox": TermCount(2, 10 / 18), "none": TermCount(0, 1.0)}
        assert ix.store.term_counts(["red", "fox"], cap=6) == {"red": TermCount(6, 1.0), "fox": TermCount(3, 1.0)}


def test_fts_search_within_scores_only_the_given_rows_as_the_whole_index_does(tmp_path):
    with _words_index(tmp_path, FOX) as ix:
        weights, avg = {'"fox"': 1.0, '"green"': 2.0}, ix.store.unit_chars() / 9
        everywhere = ix.store.fts_search(weights, 20, avg)
        assert [r for r, _ in everywhere] == [18, 14, 2, 16, 10]  # the shorter unit first
        # rows without the terms are left out, a row given twice is scored once; scores unchanged
        got = ix.store.fts_search(weights, 20, avg, within=[4, 10, 2, 18, 10, 6])
        assert got == [(r, s) for r, s in everywhere if r in {2, 10, 18}]
        assert ix.store.fts_search({'"fox"': 1.0}, 20, avg, within=[]) == []
        assert ix.store.fts_search({'"fox"': 1.0}, 2, avg, within=[16, 2, 10]) == everywhere[2:4]
        assert ix.store.fts_search({}, 20, avg) == [] and ix.store.fts_search(weights, 0, avg) == []


def test_a_question_of_common_terms_re_scores_only_the_rows_within(tmp_path):
    with _words_index(tmp_path, FOX) as ix:
        n = ix.store.unit_count()
        # both terms are over max_rows=1; fox, whose first 2 units reach further, is searched alone
        choice = choose_terms(ix.store, ["red", "fox"], n, max_rows=1, count_on=False)
        assert choice == TermChoice(("fox",), True, pytest.approx(3.6)) and choice.df == (pytest.approx(3.6),)
        got = bm25_search(ix.store, "red fox", 20, n, max_rows=1, within=[2, 6, 10, 12, 18])
        # each score as the whole index gives it, with the IDF of the estimated count
        assert got == [x for x in _reference(ix, ["fox"], df={"fox": 3.6}) if x[0] in (2, 10)]
        assert bm25_search(ix.store, "red fox", 1, n, max_rows=1, within=[2, 6, 10, 12, 18]) == got[:1]
        assert bm25_search(ix.store, "red fox", 20, n, max_rows=1, within=[]) == []
        # bm25 mode (no rows within): fox is counted (3 units, red 6) and all its rows are scored
        assert choose_terms(ix.store, ["red", "fox"], n, max_rows=1) == TermChoice(("fox",), True, 3)
        assert bm25_search(ix.store, "red fox", 20, n, max_rows=1) == _reference(ix, ["fox"])


def test_common_terms_at_the_idf_floor_rank_nothing_within(tmp_path):
    with _words_index(tmp_path, FOX) as ix:
        n = ix.store.unit_count()
        # red alone, estimated in 9 of 9 units (6 in fact): more than half, so no BM25 ranking
        assert choose_terms(ix.store, ["red"], n, max_rows=1, count_on=False) == TermChoice(("red",), True, 9)
        assert bm25_search(ix.store, "red", 20, n, max_rows=1, within=[2, 4, 6]) == []
        # bm25 mode searches a single term as it is
        assert len(bm25_search(ix.store, "red", 20, n, max_rows=1)) == 6


def test_a_question_with_a_term_under_max_rows_ignores_within(tmp_path):
    with _words_index(tmp_path, FOX) as ix:
        n = ix.store.unit_count()
        want = _reference(ix, ["fox", "green"])
        for max_rows in (5, 2):  # fox 3 + green 2 rows fit in 5; in 2, green alone
            alone = bm25_search(ix.store, "fox green", 20, n, max_rows=max_rows)
            assert bm25_search(ix.store, "fox green", 20, n, max_rows=max_rows, within=[2]) == alone
        assert bm25_search(ix.store, "fox green", 20, n, max_rows=5, within=[2]) == want
        assert bm25_search(ix.store, "green", 20, n, max_rows=5, within=[2]) == bm25_search(ix.store, "green", 20, n)
        assert choose_terms(ix.store, ["fox", "green"], n, max_rows=2) == TermChoice(("green",), False, 2)


def test_hostile_terms_stay_quoted_when_re_scoring_within(tmp_path):
    with _words_index(tmp_path, ['say "hi" NEAR(x) AND y', "near and near", "plain words here"]) as ix:
        n = ix.store.unit_count()
        # near and "and" are both in 2 units, over max_rows=0; they reach as far: the first is taken
        got = bm25_search(ix.store, 'NEAR( "and', 5, n, max_rows=0, max_share=1, within=[2, 6])
        assert got == [x for x in _reference(ix, ["near"]) if x[0] == 2]


def test_hybrid_search_hands_dense_candidates_to_bm25(tmp_path, monkeypatch):
    seen: list = []

    def spy(store, text, k, units=None, **kw):
        seen.append(kw.get("within"))
        return bm25_search(store, text, k, units, max_rows=1, **kw)

    monkeypatch.setattr("zoomrag.index.searching.bm25_search", spy)
    with _words_index(tmp_path, FOX) as ix:
        question = "fox red blue"  # all three over max_rows=1
        dense = ix.search(question, mode="dense", k=3)
        hybrid = ix.search(question, mode="hybrid", k=3)
        # dense's candidates, and only those (a function: dense search may still be running)
        assert [len(rows()) for rows in seen] == [len(dense)]
        # BM25 only re-ranked dense's three candidates: nothing else reaches the fused list ...
        assert {h.node_id for h in hybrid} == {h.node_id for h in dense}
        assert any("bm25" in h.ranks for h in hybrid)
        # ... while on its own it finds a unit that dense search did not return
        alone = ix.search(question, mode="bm25", k=3)
        assert seen[-1] is None
        assert {h.node_id for h in alone} - {h.node_id for h in dense}


def _cmrc(n_docs: int):
    root = DATA / "cmrc2018_trial"
    if not root.exists():
        pytest.skip("shared/data/cmrc2018_trial is not available")
    docs = [json.loads(line) for line in (root / "corpus.jsonl").open(encoding="utf-8")][:n_docs]
    ids = {d["id"] for d in docs}
    queries = [q for q in map(json.loads, (root / "queries.jsonl").open(encoding="utf-8"))
               if q["evidence"][0]["doc_id"] in ids]
    return docs, queries


def test_bm25_finds_the_answer_passage_of_chinese_questions(tmp_path):
    docs, queries = _cmrc(12)
    with Index.open(tmp_path / "zh.db", embedder=CountingEmbedder(), strategy=CharWindows(120)) as ix:
        ix.add([Document(id=d["id"], source=d["id"], text=d["text"]) for d in docs])
        found = 0
        for q in queries:
            ev = q["evidence"][0]
            hits = ix.search(q["query"], mode="bm25", k=3)
            found += any(h.doc_id == ev["doc_id"] and h.start < ev["end"] and ev["start"] < h.end for h in hits)
    assert len(queries) >= 40
    # measured: 42 of these 44 questions have their answer in the top 3 windows of 120 characters
    assert found / len(queries) >= 0.85


def test_frequencies_count_whole_words_and_adjacent_cjk_characters():
    text = "Fox, foxes and FOX. 玩家的家玩玩家"
    assert fts.frequencies(text, ["fox", "foxes", "fo", "玩家", "家玩", "家", "玩具"]) == {
        "fox": 2, "foxes": 1, "玩家": 2, "家玩": 1, "家": 3}


def test_rescore_ranks_found_units_by_term_frequency_and_keeps_missing_ones():
    found = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6)]
    texts = {1: "a b c d", 2: "a a a z", 3: "b c d e"}  # 4: no text, keeps its score
    got = rescore(found, texts, {"a": 1.0}, avg_chars=7.0)
    once, thrice = 2.2 / (1 + 1.2), 3 * 2.2 / (3 + 1.2)
    assert got == [(2, pytest.approx(thrice)), (1, pytest.approx(once)), (4, 0.6)]  # 3: no "a" in it
    assert rescore([], {}, {"a": 1.0}, 7.0) == []


def test_term_frequency_reorders_what_the_index_finds(tmp_path):
    # every unit of 11 characters; "fox" once against three times: the index alone cannot tell
    with _words_index(tmp_path, ["fox aaaaaaa", "fox fox fox", "bbbbbbbbbbb", "ccccccccccc"]) as ix:
        assert [r for r, _ in bm25_search(ix.store, "fox", 10, 4)] == [4, 2]
