"""Context shape metrics on hand-made returned spans (exact counts)."""

from __future__ import annotations

from zoomrag.evaluate.shape import measure_shape

TEXT = ("The river rises in the hills north of the town and runs south to the sea. "
        "Farmers along its banks grow rice and beans in the wet season every year.\n")
TABLE = "| code | name |\n|---|---|\n| 200 | OK and all is well with the request as it was sent to us |\n"
TINY = "Short note.\n"
TEXTS = {"t": TEXT, "tab": TABLE, "tiny": TINY}


def test_fragments_mid_sentence_edges_and_contexts_per_query():
    second = TEXT.index("Farmers")
    results = [
        [("t", 0, second - 1)],                    # one whole sentence of 16 words: clean
        [("t", 4, 30), ("tiny", 0, 11)],           # a fragment cut at both ends; a tiny whole document
        [("tab", 0, 26), ("tab", 27, len(TABLE) - 1)],  # a header row, then its row: one context
    ]
    s = measure_shape(results, TEXTS)
    assert (s.contexts, s.queries) == (4, 3)
    assert (s.fragments, s.mid_starts, s.mid_ends) == (1, 1, 1)
    assert s.fragment_rate == 0.25 and s.contexts_per_query == 4 / 3
    assert s.to_dict()["mid_start_rate"] == 0.25
    assert s.leaning_starts == 0 and s.cells() == ["25.0%", "25.0%", "25.0%", "0.0%", "1.3"]


def test_contexts_opening_on_a_sentence_they_lean_on_are_counted():
    text = ("The cache holds the vectors of every unit. But it is cleared when the server restarts.\n\n"
            "This is why the index warms it. A restart takes a minute on a large index.\n")
    but, this = text.index("But"), text.index("This")
    results = [[("t", but, this - 2)], [("t", this, len(text) - 1)], [("t", 0, but - 1)],
               [("t", text.index("A restart"), len(text) - 1)], [("t", but + 4, this - 2)]]
    s = measure_shape(results, {"t": text})
    # "But…" and "This…" lean; the document's start and "A restart…" stand; a mid-sentence start
    # is counted as that alone
    assert (s.leaning_starts, s.mid_starts, s.contexts) == (2, 1, 5)
    assert s.to_dict()["leaning_start_rate"] == 0.4


def test_code_files_are_measured_by_lines_as_assembly_cuts_them():
    code = ("def area(r):\n    total = compute(r, r,\n        scale, offset)\n"
            "    return total * 3.14159 + correction_for_the_radius_in_metres(r) - 0.0\n")
    start = code.index("scale")  # a line that continues the statement (and, as prose, the sentence)
    spans = [[("c", start, len(code) - 1)]]
    assert measure_shape(spans, {"c": code}).mid_starts == 1  # by sentences: mid-sentence
    assert measure_shape(spans, {"c": code}, lined={"c"}).mid_starts == 0  # by lines: a clean start
    inside = [[("c", code.index("offset"), len(code) - 1)]]
    assert measure_shape(inside, {"c": code}, lined={"c"}).mid_starts == 1  # mid-line stays mid


NOTED = ("The river rises in the hills north of the town.[^1]\nIt runs south to the sea past farms and mills\n"
         "and three old bridges built of stone.\n\n" + "Unrelated words about the weather here. " * 5
         + "\n\n[^1]: Eight hundred metres up.\n\n[^2]: Not cited by anything at all.\n")


def test_a_footnote_and_its_citation_are_one_context():
    note = NOTED.index("[^1]:")
    note_end = NOTED.index("up.") + 3
    cite_end = NOTED.index("stone.") + 6
    other = NOTED.index("[^2]:")
    results = [
        [("n", 0, cite_end), ("n", note, note_end)],    # three lines citing a note, then the note
        [("n", other, len(NOTED) - 1)],                # a note nothing returned with it cites
    ]
    s = measure_shape(results, {"n": NOTED})
    assert (s.contexts, s.fragments) == (2, 1)


def test_a_signature_and_the_code_from_inside_its_definition_are_one_context():
    code = ("def send(self, request,\n         timeout=None,\n         retries=3):\n"
            + "".join(f"    step_{i} = prepare(request, {i})\n" for i in range(6)))
    head_end = code.index("retries=3):") + len("retries=3):")
    body = code.index("    step_1") + 4
    s = measure_shape([[("c", 0, head_end), ("c", body, len(code) - 1)]], {"c": code}, lined={"c"})
    assert (s.contexts, s.fragments) == (1, 0)


def test_a_comment_and_the_c_declaration_it_leads_into_are_one_context():
    header = ("/*\n" + "".join(f"** The busy handler sleeps for a while, step {i} of the wait.\n" for i in range(6))
              + "*/\nSQLITE_API int sqlite3_busy_timeout(sqlite3*, int ms);\n")
    middle = header.index("** The busy handler sleeps for a while, step 2")
    decl = header.index("SQLITE_API")
    spans = [("h", middle, header.index("step 5") + 6), ("h", decl, len(header) - 1)]
    s = measure_shape([spans], {"h": header}, lined={"h"})
    assert (s.contexts, s.fragments) == (1, 0)


def test_rows_of_one_table_carried_with_a_note_are_one_context():
    text = ("| System | Support |\n| --- | --- |\n| Windows | Experimental[^4] |\n| Linux | Tier 1 |\n"
            "| macOS | Tier 1 [^5] |\n\nSome words about the table and what it shows to every reader of it.\n\n"
            "[^4]: Tests only run on WoW64 for now.\n\n[^5]: Built for 10.15 and later releases.\n")
    def line(start: str) -> tuple[str, int, int]:
        s = text.index(start)
        return ("t", s, text.index("\n", s))
    header = ("t", 0, text.index("| --- | --- |") + 13)
    main = ("t", text.index("[^4]:"), len(text) - 1)
    s = measure_shape([[header, line("| Windows"), line("| macOS"), main]], {"t": text})
    assert (s.contexts, s.fragments) == (1, 0)


def test_a_restructured_text_note_and_its_citation_are_one_context():
    text = ("The limit was raised to forty [#]_.\nIt holds for every worker started after the change\n"
            "and for the ones restarted by the supervisor.\n\n" + "Other words here. " * 10 + "\n\n"
            ".. [#] Since version two.\n")
    cite_end = text.index("supervisor.") + len("supervisor.")
    note = text.index(".. [#]")
    s = measure_shape([[("r", 0, cite_end), ("r", note, len(text) - 1)]], {"r": text})
    assert (s.contexts, s.fragments) == (1, 0)
