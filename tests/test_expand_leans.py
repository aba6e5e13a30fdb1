"""A context that opens with a sentence leaning on the one before ("But…", "This…") takes it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_expand_support import Trees, chars, moved_back

from zoomrag.expand import Candidate, assemble
from zoomrag.expand.bounds import clean_start, lean_start
from zoomrag.load import read_text
from zoomrag.model import Document, Hit
from zoomrag.parse import make_chunker
from zoomrag.parse.base import build_tree
from zoomrag.parse.router import chunker_for_profile
from zoomrag.text.leans import leans_back


def test_leans_back_knows_openers_that_refer_to_the_sentence_before():
    leaning = ["But it failed.", "However, it held.", "This means no.", "It’s late.", "She was told.",
               "In addition, a fee.", "On the other hand, cost.", "That’s why.", "And you’re done.", "Or, if not,", "但是这个方法不行。",
               "因此需要重启。", "这些参数可选。"]
    assert [s for s in leaning if not leans_back(s, 0)] == []
    standing = ["The cache holds vectors.", "Thesis statement.", "THE PRESIDENT: Thank you.",
                "IT staff only.", "Italy is far.", "butter is soft.", "Ordinary text.", "1. But first.",
                "本节介绍缓存。", "Über alles."]
    assert [s for s in standing if leans_back(s, 0)] == []
    text = "Words first. But then."
    assert leans_back(text, text.index("But")) and not leans_back(text, 0)


PARA = ("The cache holds the vectors of every unit. But it is cleared when the server restarts, "
        "so the first query after a restart is slow.\n\nThis is why the index warms it.\n")


def test_lean_start_takes_the_sentence_before_a_leaning_one():
    but = PARA.index("But")
    assert lean_start(PARA, but) == 0
    assert lean_start(PARA, but - 1) == 0  # the space before it is skipped
    this = PARA.index("This")
    assert lean_start(PARA, this) == but  # from the paragraph before
    assert lean_start(PARA, 0) == 0  # nothing before it
    assert lean_start(PARA, PARA.index("it is cleared")) == PARA.index("it is cleared")  # mid-sentence
    standing = "The cache holds the vectors of every unit. The server reads them at start.\n"
    assert lean_start(standing, standing.index("The server")) == standing.index("The server")


def test_lean_start_does_not_reach_into_a_list_a_table_code_or_past_a_gap():
    for text in ("- first item holds words here\nBut this follows.\n",
                 "| a | b |\n\nBut this follows the table.\n",
                 "```\nx = 1 and y = 2\n```\n\nBut this follows code.\n",
                 "Three words here.\n\n\n\nStill here, far below.\n\n",
                 "A.\n\nBut short before.\n",
                 "Long" + " words" * 80 + ".\n\nBut this follows.\n"):
        s = max(text.find("But"), text.find("Still"))
        assert lean_start(text, s) == s, text
    two = "Three words here.\n\nThen one blank line.\n"
    assert lean_start(two, two.index("Then")) == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["But it held.", "This is so.", "The cache is warm.", "- an item here",
                                 "| a | b |", "```", "", "Words go on and", "THE END", "因此需要重启。",
                                 "它很快。", "then it stops:", "x = 1"]), max_size=10), st.data())
def test_lean_start_moves_back_one_sentence_only_to_prose(lines, data):
    text, start, got = moved_back(lean_start, lines, data)
    if got < start:
        first = text.index(text[start:].lstrip()[:1], start)
        assert text[got] not in "|-`"
        if "```" in text[got:first]:  # through the code block the sentence before led into
            assert text[first].islower() or leans_back(text, first)
            assert text[got:first].rstrip().endswith("```") and text[got:first].count("```") % 2 == 0
            assert text[:got].count("```") % 2 == 0  # prose, not inside code
        else:
            assert leans_back(text, first) and clean_start(text, got) and clean_start(text, first)


FROM_TO = ("## 7.12. How do I put a package on hold?\n\nWith dpkg, export the selections with:\n\n"
           "```\ndpkg --get-selections > selections.txt\n```\n\nThen edit the resulting file, change the line "
           "containing the package, e.g. libc6, from this:\n\n```\nlibc6   install\n```\n\nto this:\n\n"
           "```\nlibc6   hold\n```\n\nSave the file, and reload it.\n")


def test_lean_start_takes_back_the_start_of_a_sentence_a_code_block_interrupted():
    rest = FROM_TO.index("to this:")
    assert lean_start(FROM_TO, rest) == FROM_TO.index("Then edit")
    # "Then" leans on what came before: the command the sentence before led into, and that sentence
    assert lean_start(FROM_TO, FROM_TO.index("Then edit")) == FROM_TO.index("With dpkg")
    save = FROM_TO.index("Save the file")
    assert lean_start(FROM_TO, save) == save  # a sentence of its own
    for text in ("Run it.\n\n```\nx\n```\n\nthen stop.\n",  # the line above the block ends a sentence
                 "Run\n\n```\nx\n```\n\n\nthen stop.\n",  # two blank lines after the block
                 "Some words run on\nthen stop.\n",  # no block between
                 "```\nx\n```\nthen stop.\n",  # nothing above the block
                 "- an item here\n```\nx\n```\nthen stop.\n"):  # a list item above it
        s = text.index("then")
        assert lean_start(text, s) == s, text
    chain = "Use\n```\nx\n```\nor\n```\ny\n```\nand done"
    assert lean_start(chain, chain.index("and")) == chain.index("or\n")
    assert lean_start(chain, chain.index("or\n")) == 0


def test_a_context_opening_with_a_leaning_sentence_takes_the_one_before_when_it_fits():
    tree = build_tree(Document(id="p", source="p.txt", text=PARA), [])
    but = PARA.index("But")
    end = PARA.index("\n\nThis")
    cand = Candidate("p", but, end, 0.9, (Hit("h", "p", but, end, 0.9),))
    [c] = assemble([cand], Trees(tree), 1000, chars, explain=True)
    assert c.text.startswith("The cache holds") and "leans on" in c.rule
    [tight] = assemble([cand], Trees(tree), end - but + 5, chars)
    assert tight.text.startswith("But it is cleared")  # no room: it stands as it was


def test_a_chain_of_leaning_sentences_is_taken_back_to_one_that_stands():
    text = ("The cache holds the vectors of every unit. It is fast on a warm server. Also it costs "
            "memory on a small one. But it is cleared when the server restarts.\n")
    tree = build_tree(Document(id="c", source="c.txt", text=text), [])
    but = text.index("But")
    cand = Candidate("c", but, len(text) - 1, 0.9, (Hit("h", "c", but, len(text) - 1, 0.9),))
    [c] = assemble([cand], Trees(tree), 1000, chars, explain=True)
    assert c.start == 0 and "leans on" in c.rule
    [part] = assemble([cand], Trees(tree), len(text) - text.index("It is") + 2, chars)
    assert part.text.startswith("It is fast")  # as far back as the budget allows


def test_a_leaning_sentence_under_a_heading_does_not_take_the_section_above():
    text = ("# Notes\n\n## Cache\n\nThe cache holds the vectors of every unit.\n\n## Restarts\n\n"
            "But a restart clears it, so the first query after one is slow and the index warms it.\n")
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(Document(id="n", source="n.md", text=text,
                                                                          format="markdown"))
    but = text.index("But")
    cand = Candidate("n", but, len(text) - 1, 0.9, (Hit("h", "n", but, len(text) - 1, 0.9),))
    [c] = assemble([cand], Trees(tree), 1000, chars)
    assert c.start >= text.index("## Restarts")


CODED = ("# Plugins\n\n" + "Custom classes load commands from a folder of plugin files at start. " * 8 + "\n\n"
         "```python\nclass MyCLI(click.MultiCommand):\n    def list_commands(self, ctx):\n        return []\n\n"
         "if __name__ == '__main__':\n    cli()\n```\n\n"
         "These custom classes can also be used with decorators, in the same way as any group is used.\n\n"
         "```python\n@click.command(cls=MyCLI)\ndef cli():\n    pass\n```\n")


def _coded_tree(text: str = CODED, fmt: str = "markdown"):
    return chunker_for_profile("default").chunk(read_text(text, format=fmt, id="c", source="c"))


def test_a_context_neither_opens_with_a_code_tail_nor_ends_with_a_code_head_its_hit_lies_outside_of():
    tree = _coded_tree()
    s, e = CODED.index("These"), CODED.index("is used.") + len("is used.")
    hit = Hit("h", "c", s, e, 0.9)
    cand = Candidate("c", CODED.index("if __name__"), CODED.index("def cli()"), 0.9, (hit,))
    [c] = assemble([cand], Trees(tree), 1000, chars)
    assert (c.start, c.end) == (s, e)


RST_CODED = ("Plugins\n=======\n\n" + "Custom classes load commands from a folder of plugin files at start. " * 8
             + "\n\n.. click:example::\n\n    cli = MyCLI(help='Loads.')\n\n    if __name__ == '__main__':\n        cli()\n\n"
             "These custom classes can also be used with decorators, in the same way as any group is used.\n")


def test_a_leaning_sentence_does_not_take_the_end_of_a_code_block_before_it():
    """Unfenced (reStructuredText) code: the lines before "These…" read as a sentence."""
    tree = _coded_tree(RST_CODED, "rst")
    s, e = RST_CODED.index("These"), RST_CODED.index("is used.") + len("is used.")
    [c] = assemble([Candidate("c", s, e, 0.9, (Hit("h", "c", s, e, 0.9),))], Trees(tree), 1000, chars)
    assert c.start == s
