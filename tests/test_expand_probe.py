"""The probe: ``auto``'s policy per kind of document, chosen from questions made of the corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zoomrag import Document, Index, make_chunker
from zoomrag.cli import main
from zoomrag.evaluate.probe import (
    CANDIDATES,
    DEFAULT,
    MARGIN,
    MIN_QUERIES,
    PER_KIND,
    probe_expansion,
    probe_questions,
)
from zoomrag.expand.auto import PROBE_KEY, document_kind

pytestmark = pytest.mark.xdist_group("probe")

TOPICS = [("Apples", "orchard", "cider", "blossom"), ("Glaciers", "ice", "valley", "moraine"),
          ("Volcanoes", "lava", "crater", "ash"), ("Rivers", "delta", "current", "bank"),
          ("Deserts", "dune", "cactus", "oasis"), ("Forests", "canopy", "fern", "moss"),
          ("Oceans", "tide", "reef", "salt"), ("Mountains", "summit", "ridge", "snow"),
          ("Islands", "lagoon", "palm", "coral"), ("Caves", "stalactite", "bat", "echo"),
          ("Meadows", "clover", "bee", "hay"), ("Swamps", "heron", "reed", "peat")]
PEOPLE = ["my aunt", "the miller", "a surveyor", "the teacher", "an old sailor", "the priest"]


def paragraph(topic: tuple[str, str, str, str], i: int) -> str:
    name, a, b, c = topic
    p = PEOPLE[i % len(PEOPLE)]
    return (f"In the {i}th account, {p} wrote that the {a} near the {name.lower()} changed with the seasons. "
            f"According to {p}, the {b} was visible only in dry weather, and the {c} followed it closely. "
            f"Later readers of the {i}th account argued about the {a} and about the {c} for decades.")


def headed() -> str:
    """A Markdown document: twelve sections of three paragraphs."""
    parts = ["# Field notes\n"]
    for t in TOPICS:
        parts.append(f"## {t[0]} of the {t[1]}\n")
        parts += [paragraph(t, i) + "\n" for i in range(3)]
    return "\n".join(parts)


FILL = ["Nobody in the village could say when this began", "It rained for most of that week",
        "The records from those years are incomplete", "Several visitors came from the coast",
        "Prices at the market rose sharply", "A new road was built to the north"]


def flat() -> str:
    """Prose without headings: twelve paragraphs of eight sentences."""
    out = []
    for name, a, b, _ in TOPICS:
        sents = [f"The {a} near the {name.lower()} was measured by {PEOPLE[k % 6]} in the {k}th year."
                 if k % 2 == 0 else FILL[k // 2] + f" and the {b} stayed quiet." for k in range(8)]
        out.append(" ".join(sents))
    return "\n\n".join(out) + "\n"


DOCS = [Document(id="notes.md", source="notes.md", text=headed(), format="markdown"),
        Document(id="walks.txt", source="walks.txt", text=flat(), format="text")]
#: Parents of about 1,024 tokens over 128-token chunks: the tree the probe measures on.
STRATEGY = "parent-child"
#: Probe questions per kind in the module's probe: more than the default, so that parents' lead
#: on flat prose at small budgets is beyond noise.
QUESTIONS = 64
#: The probe's seed in the module's probe: a sample on which parents' lead on flat prose at small
#: budgets is beyond one candidate's noise but not the best of five's (on most seeds it is not:
#: a corpus this small decides little), so that a choice other than the default is made,
#: recorded and used.
SEED = 6
#: What the probe measured on this corpus and tree (hash embedder, hybrid search).
FLAT_WHY = ("parent (recall 0.953 against density's 0.897 on 64 probe questions, 512-1024 tokens; "
            "gain at least +0.008 at 95 %)")
FLAT_LARGE_WHY = ("density (trim=0.04) kept (recall 1.000 on 64 probe questions, 2048-4096 tokens; "
                  "best other density (score_decay=1.0) +0.000, under the 0.02 margin)")
HEADED_WHY = ("density kept (recall 0.969 on 64 probe questions, 512-1024 tokens; best other density "
              "(score_decay=1.0) +0.000, under the 0.02 margin)")
#: What ``zoomrag index`` (24 questions per kind, seed 0) measures on it: nothing leads by the margin.
INDEX_FLAT_WHY = ("density kept (recall 0.956 on 24 probe questions, 512-1024 tokens; best other density "
                  "(trim=0.04) +0.002, under the 0.02 margin)")


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    path = tmp_path_factory.mktemp("probe") / "i.db"
    # One candidate's 95 % bound (1.96), not the best-of-five one: on a corpus this small no lead
    # clears that, and these tests are about a choice being made, recorded and used.
    with pytest.MonkeyPatch.context() as mp, Index.open(path, embedder="hash", strategy=STRATEGY) as ix:
        mp.setattr("zoomrag.evaluate.probe.Z", 1.96)
        ix.add(DOCS)
        report = probe_expansion(ix, per_kind=QUESTIONS, seed=SEED)
    return path, report


def test_the_best_of_five_must_lead_beyond_a_wider_bound(tmp_path):
    with Index.open(tmp_path / "i.db", embedder="hash", strategy=STRATEGY) as ix:
        ix.add(DOCS)
        report = probe_expansion(ix, per_kind=QUESTIONS, seed=SEED, record=False)
    flat = next(k for k in report.kinds if k.kind == "flat")
    # parent's lead of +0.057 is beyond one candidate's 95 % bound (the fixture above) but not
    # beyond the bound for the best of five candidates
    assert flat.choice.label == "density"
    assert flat.choice.why.startswith("density kept (recall 0.897 on 64 probe questions, 512-1024 tokens; "
                                      "best other parent +0.057, not beyond noise (95 % bound -0.")


def test_documents_are_grouped_by_kind(tmp_path):
    folder = write_corpus(tmp_path / "docs")
    (folder / "t.csv").write_text("name,age\nTom,3\nAnn,5\n", encoding="utf-8")
    (folder / "m.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
                                 encoding="utf-8")
    code = "".join(f"def step_{i}(value):\n    return value * {i}\n\n\n" for i in range(12))
    # a reference page whose examples are most of its text is read as prose with headings
    (folder / "ref.md").write_text(f"# Steps\n\n## step_1\n\nMultiplies.\n\n```python\n{code}```\n",
                                   encoding="utf-8")
    (folder / "snippet.md").write_text(f"```python\n{code}```\n", encoding="utf-8")
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add([folder])
        assert {d.id: document_kind(ix.tree(d.id)) for d in ix.documents()} == {
            "notes.md": "headed", "walks.txt": "flat", "t.csv": "table", "m.py": "code",
            "ref.md": "headed", "snippet.md": "code"}


def test_probe_questions_are_made_from_the_corpus_and_are_the_same_every_run(tmp_path):
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add(DOCS)
        trees = [ix.tree(d.id) for d in ix.documents()]
    first = probe_questions(trees)
    assert first == probe_questions(list(reversed(trees)))
    assert first != probe_questions(trees, seed=1)
    assert {k: len(v) for k, v in first.items()} == {"headed": PER_KIND, "flat": PER_KIND, "table": 0, "code": 0}
    headings = [q for q in first["headed"] if q.id.endswith("-heading")]
    assert headings and all(q.query.startswith("Field notes ") for q in headings)
    text = DOCS[0].text
    for q in headings:  # a heading's question is its trail, its evidence the section's body
        (e,) = q.evidence
        title = q.query.removeprefix("Field notes ")
        assert text[:e.start].rstrip().endswith(f"## {title}") and text[e.start:e.start + 9] == "In the 0t"
    for q in first["flat"]:  # the content words of a sentence, without stop words; its paragraph
        (e,) = q.evidence
        para = DOCS[1].text[e.start:e.end]
        assert "\n\n" not in para and para.endswith("stayed quiet.")
        assert set(q.query.split()) <= set(para.replace(",", " ").replace(".", " ").split())
        assert not {"the", "and", "of", "was"} & set(q.query.split())


def test_a_passage_in_two_places_asks_no_question():
    """A licence copied into every package: a question from it has one copy as its evidence, and
    whichever copy a policy returns, the other would count as missed."""
    walks = DOCS[1].text
    first = walks.split("\n\n")[0]
    own = "A heron nested in the reeds by the mill for three summers and then never came back again."
    copy = Document(id="copy.txt", source="copy.txt", format="text", text=walks.replace(first, own))
    trees = [make_chunker("sentences").chunk(d) for d in (DOCS[1], copy)]
    questions = probe_questions(trees)["flat"]
    assert {(q.evidence[0].doc_id, q.evidence[0].start) for q in questions} == {("walks.txt", 0), ("copy.txt", 0)}


def test_adding_a_document_changes_no_question_drawn_from_the_others(tmp_path):
    """Each candidate question's place in the sample is a hash of its document and span, so an
    edit elsewhere in the corpus does not redraw the sample (nor swing the probe's choice)."""
    extra = Document(id="more.md", source="more.md", format="markdown",
                     text=headed().replace("Field notes", "More notes").replace("account", "report"))
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add([*DOCS, extra])
        trees = [ix.tree(d.id) for d in ix.documents()]
    without = probe_questions([t for t in trees if t.document.id != "more.md"])
    with_it = probe_questions(trees)
    for kind, questions in with_it.items():
        others = {(q.query, q.evidence) for q in questions if q.evidence[0].doc_id != "more.md"}
        assert others <= {(q.query, q.evidence) for q in without[kind]}
    assert {q.evidence[0].doc_id for q in with_it["headed"]} == {"notes.md", "more.md"}
    assert with_it["flat"] and with_it["flat"] == without["flat"]


def test_each_kind_gets_the_policy_the_probe_measured_best(probed):
    path, report = probed
    by_kind = {k.kind: k for k in report.kinds}
    assert set(by_kind) == {"headed", "flat"}
    for k in by_kind.values():
        assert set(k.recall) == set(CANDIDATES) and k.queries == QUESTIONS
        best = max(k.recall.values())
        chosen = next(n for n, (p, prm) in CANDIDATES.items() if (p, dict(prm)) == (k.choice.policy, dict(k.choice.params)))
        if chosen == DEFAULT:  # kept: nothing beat it by the margin, or not beyond noise
            assert "kept" in k.choice.why
        else:
            assert "gain at least" in k.choice.why and best - k.recall[DEFAULT] >= MARGIN / 2
    # what was measured on this corpus, exactly: headings keep density, prose gets its parents
    # at small budgets and density from 2048 tokens on
    assert by_kind["headed"].choice.why == HEADED_WHY
    assert by_kind["flat"].choice.label == "parent" and by_kind["flat"].choice.why == FLAT_WHY
    assert {b: c.why for b, c in by_kind["flat"].bands.items()} == {2048: FLAT_LARGE_WHY}
    assert report.summary().splitlines()[2:] == [f"flat: {FLAT_WHY}", f"flat from 2048 tokens: {FLAT_LARGE_WHY}"]
    with Index.open(path, create=False) as ix:
        choice = ix.auto_choice()
        assert {k: c.label for k, c in choice.probed.items()} == {
            "headed": "density", "headed@2048": "density (trim=0.04)", "flat": "parent",
            "flat@2048": "density (trim=0.04)"}
        [ctx] = ix.query("dune deserts measured teacher", budget=300, top=1, mode="bm25", explain=True,
                         doc="walks.txt")
        assert ctx.rule.startswith("auto (probed for flat: parent): ")
        ctxs = ix.query("dune deserts measured teacher", budget=2048, mode="bm25", explain=True, doc="walks.txt")
        assert ctxs[0].rule.startswith("auto (probed for flat: density (trim=0.04)): ")
        # set by the caller: wins over the probe
        [ctx] = ix.query("dune deserts measured teacher", budget=300, top=1, mode="bm25", explain=True,
                         doc="walks.txt", params={"flat": "window"})
        assert ctx.rule.startswith("auto (flat prose: window): ")
        [ctx] = ix.query("orchard apples seasons", budget=300, top=1, mode="bm25", explain=True, doc="notes.md")
        assert ctx.rule.startswith("auto (probed for headed: density): ")


def test_the_probe_is_deterministic(probed):
    path, report = probed
    with Index.open(path, create=False) as ix:
        again = probe_expansion(ix, record=False, candidates=["density", "density-sharp"], per_kind=QUESTIONS,
                                seed=SEED)
    assert [(k.kind, {n: k.recall[n] for n in ("density", "density-sharp")}) for k in report.kinds] == \
        [(k.kind, dict(k.recall)) for k in again.kinds]
    with Index.open(path, create=False) as ix:  # record=False wrote nothing
        assert ix.auto_choice().probed["flat"].label == "parent"


def test_a_pin_from_labelled_questions_wins_over_the_probe(probed, tmp_path):
    path = tmp_path / "copy.db"
    path.write_bytes(probed[0].read_bytes())
    with Index.open(path, create=False) as ix:
        ix.pin_expansion("window", {"n": 0})
        ix.record_probe(ix.auto_choice().probed)  # probing again does not undo the pin
        assert ix.auto_choice().pinned.label == "window (n=0)" and ix.auto_choice().probed
        [ctx] = ix.query("dune deserts measured teacher", budget=300, top=1, mode="bm25", explain=True,
                         doc="walks.txt")
        assert ctx.rule.startswith("auto (pinned window): window of 0")


def test_a_corpus_too_small_for_a_probe_keeps_the_default_and_says_so(tmp_path):
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add([Document(id="a.md", source="a.md", text="# A\n\nApples are red and grow on trees in orchards.\n",
                         format="markdown")])
        report = probe_expansion(ix)
        assert report.choices == {}
        assert report.summary() == (
            f"headed: 1 probe question(s) from 1 document(s), fewer than {MIN_QUERIES}: too few to choose, "
            "auto uses its default\ncorpus too small for a probe: auto uses its defaults (density)")
        choice = ix.auto_choice()
        assert choice.probed == {} and choice.note.startswith("corpus too small")
        [ctx] = ix.query("apples", budget=100, explain=True)
        assert ctx.rule.startswith("auto (headings: density): ")


# -- CLI ----------------------------------------------------------------------------------------

def invoke(*args: object) -> object:
    r = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return r


def write_corpus(folder: Path) -> Path:
    folder.mkdir()
    for d in DOCS:
        (folder / d.id).write_text(d.text, encoding="utf-8")
    return folder


def test_zoomrag_index_probes_and_query_explain_names_the_probed_policy(tmp_path):
    folder = write_corpus(tmp_path / "docs")
    index = tmp_path / "i.db"
    r = invoke("index", folder, "--index", index, "--embedder", "hash", "--strategy", STRATEGY)
    assert r.exit_code == 0, r.output
    assert "auto probed in " in r.output and f"flat: {INDEX_FLAT_WHY}" in " ".join(r.output.split())
    r = invoke("query", "dune deserts measured teacher", "--index", index, "--mode", "bm25", "--explain", "--top",
               "1", "--doc", "walks.txt", "--no-server")
    assert r.exit_code == 0, r.output
    assert "rule: auto (probed for flat: density (trim=0.04)): " in r.output
    # what the user sets wins over what the probe chose
    r = invoke("query", "dune deserts measured teacher", "--index", index, "--mode", "bm25", "--explain", "--top",
               "1", "--doc", "walks.txt", "--no-server", "--set", "flat=parent")
    assert r.exit_code == 0, r.output
    assert "rule: auto (flat prose: parent): parent of " in r.output
    r = invoke("stats", "--index", index)
    assert "auto, probed per kind of document:" in r.output and "headed: density kept" in r.output
    payload = json.loads(invoke("stats", "--index", index, "--json").output)
    assert payload["probe"]["kinds"]["flat"] == {"policy": "density", "params": {}, "why": INDEX_FLAT_WHY}
    # nothing changed: no second probe
    r = invoke("index", folder, "--index", index)
    assert r.exit_code == 0 and "auto probed" not in r.output


def test_zoomrag_index_no_probe_and_recommend_probe(tmp_path):
    folder = write_corpus(tmp_path / "docs")
    index = tmp_path / "i.db"
    r = invoke("index", folder, "--index", index, "--embedder", "hash", "--strategy", STRATEGY, "--no-probe")
    assert r.exit_code == 0 and "auto probed" not in r.output
    with Index.open(index, create=False) as ix:
        assert PROBE_KEY not in ix.store.meta() and ix.auto_choice().probed == {}
    r = invoke("recommend", "--probe", index)
    assert r.exit_code == 0, r.output
    assert "probed in " in r.output and "(hybrid):" in r.output
    assert "flat recall: density 0.978, density-large 0.979, " in r.output
    assert f"recorded in {index}: `zoomrag query --expand auto` uses it from now on" in r.output
    with Index.open(index, create=False) as ix:
        assert ix.auto_choice().probed["flat"].why == INDEX_FLAT_WHY
    r = invoke("recommend", "--probe", tmp_path / "nothing.db")
    assert r.exit_code == 1 and "no index here; build it first with zoomrag index" in r.output
    r = invoke("recommend", "--probe", index, "--data", tmp_path)
    assert r.exit_code == 2 and "--probe measures without labelled questions" in r.output


def test_the_probe_runs_again_only_once_a_share_of_the_index_was_written_since(tmp_path):
    from zoomrag.evaluate.probe import STALE_SHARE, probe_due

    docs = [Document.from_text(f"Note {i} says the river rises in spring number {i}.", id=f"n{i}.md") for i in range(40)]
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add(docs)
        assert probe_due(ix) == (True, "")  # never probed
        probe_expansion(ix)
        assert ix.auto_choice().documents == 40
        ix.add([Document.from_text("Note 0 now says the river falls.", id="n0.md")])
        due, why = probe_due(ix)
        assert not due and why.startswith("auto: the probe of 40 documents is kept (1 written since;")
        for i in range(1, int(STALE_SHARE * 40) + 1):
            ix.add([Document.from_text(f"Note {i} now says the river falls.", id=f"n{i}.md")])
        assert probe_due(ix) == (True, "")
