"""Upper-level vectors in the index (``levels=True``) and the multilevel policy end to end."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from click.testing import CliRunner

from zoomrag import Index
from zoomrag.cli import main
from zoomrag.errors import ConfigError
from zoomrag.expand import parent_vectors
from zoomrag.model import Document

TEXT = "\n\n".join(
    f"# Part {i}\n\n" + " ".join(f"Sentence {j} of part {i} is about topic {i}{j}." for j in range(8))
    for i in range(3)
)
HIER = {"sizes": (60, 20), "unit": "tokens"}


def upper_vectors(ix: Index) -> dict[str, np.ndarray]:
    """Vectors stored for nodes that are not units, by node id."""
    rows = ix.store.conn.execute(
        "SELECT n.row, v.vec FROM nodes n JOIN vectors v ON v.key = n.vec WHERE n.unit = 0").fetchall()
    found = ix.store.units(r for r, _ in rows)
    return {found[r].node_id: np.frombuffer(blob, dtype="<f4") for r, blob in rows}


def test_levels_store_the_mean_of_the_children_and_search_finds_them(tmp_path):
    with Index.open(tmp_path / "ix.db", embedder="hash", strategy="hierarchical", params=HIER,
                    levels=True) as ix:
        ix.add(Document.from_text(TEXT, id="doc"))
        tree = ix.tree("doc")
        upper = upper_vectors(ix)
        leaves = {n.id: ix.embedder.embed_documents([n.embed_text or n.text])[0] for n in tree.leaves()}
        expected = parent_vectors(tree, leaves)
        assert set(upper) == set(expected) and upper  # every node between the root and the leaves
        for nid, v in expected.items():
            np.testing.assert_allclose(upper[nid], v, atol=1e-6)
        hits = ix.search("part 1 topic", mode="dense", k=200)
        levels = {tree[h.node_id].level for h in hits}
        assert len(levels) > 1  # leaves and upper nodes ranked together
        contexts = ix.query("topic 13", mode="dense", expand="multilevel", budget=200, top=None)
        spans = sorted((c.start, c.end) for c in contexts)
        assert all(a[1] <= b[0] for a, b in pairwise(spans))
        assert ix.check().ok


def test_levels_are_pinned_and_an_index_without_them_says_how_to_rebuild(tmp_path):
    with Index.open(tmp_path / "a.db", embedder="hash", strategy="hierarchical", params=HIER, levels=True) as ix:
        ix.add(Document.from_text(TEXT, id="doc"))
    with Index.open(tmp_path / "a.db") as ix:  # pinned: later additions get upper vectors too
        ix.add(Document.from_text(TEXT + " More.", id="doc2"))
        assert any(nid in {n.id for n in ix.tree("doc2").nodes} for nid in upper_vectors(ix))
    with Index.open(tmp_path / "b.db", embedder="hash", strategy="hierarchical", params=HIER) as ix:
        ix.add(Document.from_text(TEXT, id="doc"))
        assert upper_vectors(ix) == {}
    with pytest.raises(ConfigError, match=r"built without upper-level vectors; rebuild it with zoomrag index "
                                          r"--reindex --levels"):
        Index.open(tmp_path / "b.db", levels=True)


def test_index_levels_flag_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.md").write_text(TEXT, encoding="utf-8")
    r = CliRunner().invoke(main, ["index", "d.md", "--embedder", "hash", "--strategy", "hierarchical",
                                  "--set", "sizes=60,20", "--levels", "-q"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["query", "topic 21", "--mode", "dense", "--expand", "multilevel", "--explain",
                                  "--budget", "100"])
    assert r.exit_code == 0, r.output
    assert "rule: level " in r.stdout
