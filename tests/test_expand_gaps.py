"""Two pieces of one function (or one paragraph) become one context when the text between them fits."""

from __future__ import annotations

import pytest

from zoomrag import Index
from zoomrag.expand import Candidate, assemble
from zoomrag.model import Hit
from zoomrag.text.tokens import default_counter

STEPS = "\n".join(f"    step_{i} = prepare_value_{i}(texts, cache)  # computation number {i} of the encoder"
                  for i in range(40))
OTHER = "\n".join(f"    total += weight_{i} * value_{i}  # weighted sum term {i} of the scorer" for i in range(10))
SOURCE = (f'"""Caching."""\n\n\ndef cached_encoder(texts, cache, model):\n    """Encode texts."""\n{STEPS}\n'
          "    return model.encode(texts)\n\n\ndef score(weights, values):\n    \"\"\"Weighted sum.\"\"\"\n    total = 0\n"
          f"{OTHER}\n    return total\n")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gaps")
    (folder / "enc.py").write_text(SOURCE, encoding="utf-8")
    with Index.open(folder / "i.db", embedder="hash") as ix:
        ix.add([folder / "enc.py"])
        [doc] = ix.documents()
        tree = ix.tree(doc.id)
    assert [n.kind for n in tree.nodes if n.level == 1] == ["code", "function", "function"]
    return tree


DOC = "enc.py"


class Trees:
    def __init__(self, tree):
        self.t = tree

    def tree(self, doc_id):
        return self.t


def piece(text: str, score: float) -> Candidate:
    s = SOURCE.index(text)
    e = SOURCE.index("\n", s)
    return Candidate(DOC, s, e, score, (Hit(f"h{s}", DOC, s, e, score),), rule="unit")


def count(text: str) -> int:
    return default_counter().count(text)


def test_two_pieces_of_one_function_join_when_the_gap_fits(tree):
    first, last = piece("    step_2 ", 0.9), piece("    step_37 ", 0.8)
    [ctx] = assemble([first, last], Trees(tree), 2000, count, fill=True, explain=True)
    *head, (s, e) = ctx.parts()
    assert s <= SOURCE.index("step_2 ") and e >= last.end  # lines whole, indentation aside
    assert [SOURCE[a:b] for a, b in head] == ["def cached_encoder(texts, cache, model):"]  # its signature
    assert ctx.text == "\n".join(SOURCE[a:b] for a, b in ctx.parts()) and len(ctx.hits) == 2
    assert "the text between two pieces of one unit filled" in ctx.rule
    # the gap does not fit: two contexts, each as it was
    assert count(SOURCE[first.end:last.start]) > 200
    out = assemble([first, last], Trees(tree), 200, count, fill=False)
    assert len(out) == 2 and not any(c.start <= SOURCE.index("step_20 ") < c.end for c in out)


def test_pieces_of_two_functions_stay_apart(tree):
    first, last = piece("    step_39 ", 0.9), piece("    total += weight_5 ", 0.8)
    out = assemble([first, last], Trees(tree), 2000, count, fill=False)
    assert len(out) == 2
