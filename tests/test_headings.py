"""Heading detection (Markdown, plain text, reader blocks) and the section tree."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.load import read_text
from zoomrag.model import Block, Document
from zoomrag.parse import headings, plaintext
from zoomrag.parse.base import Span, build_tree
from zoomrag.parse.headings import Heading, find_headings, front_matter_end, hidden_ranges, section_spans

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def md(text: str) -> Document:
    return Document(id="d", source="t.md", text=text, format="markdown")


def plain(text: str) -> Document:
    return Document(id="d", source="t.txt", text=text, format="text")


def found(doc: Document) -> list[tuple[int, str, str]]:
    """(level, title, heading text) per heading: compact for exact assertions."""
    return [(h.level, h.title, doc.text[h.start:h.end]) for h in find_headings(doc)]


def outline(spans: list[Span], text: str, depth: int = 0) -> list[tuple]:
    out = []
    for s in spans:
        out.append((depth, s.kind, text[s.start:s.end], s.section_path))
        out += outline(s.children, text, depth + 1)
    return out


# -- Markdown ------------------------------------------------------------------------------

def test_atx_and_setext_headings():
    text = "# Title #\n\nIntro.\n\nSub\n---\n\nBody\ntext\n===\n\n###### Deep\n####### not\n#no\n"
    assert found(md(text)) == [
        (1, "Title", "# Title #"),
        (2, "Sub", "Sub\n---"),
        (1, "Body text", "Body\ntext\n==="),
        (6, "Deep", "###### Deep"),
    ]


def test_thematic_break_after_blank_line_is_not_a_heading():
    assert found(md("Para\n\n---\n\nMore\n")) == []
    assert found(md("- item\n---\n")) == []  # the underline cannot continue a list item
    assert found(md("> quote\n===\n")) == []


def test_no_headings_in_code_or_html():
    text = (
        "```python\n# not a heading\n```\n"
        "~~~~\n~~~\n# still code\n~~~~\n"
        "    # indented code\n"
        "<!--\n# comment\n-->\n"
        "<div>\n# html\n</div>\n\n"
        "# Real\n"
    )
    assert found(md(text)) == [(1, "Real", "# Real")]
    # Everything but the real heading is hidden from heading detection.
    assert [text[s:e].split("\n")[0] for s, e in hidden_ranges(md(text))] == ["```python", "~~~~", "<!--", "<div>"]


def test_unclosed_fence_runs_to_the_end():
    assert found(md("# A\n```\n# B\n")) == [(1, "A", "# A")]


def test_front_matter_is_skipped():
    text = "---\ntitle: x\n---\n# H\n"
    assert front_matter_end(text) == len("---\ntitle: x\n---")
    assert found(md(text)) == [(1, "H", "# H")]
    assert front_matter_end("+++\ntitle = 'x'\n+++\nbody") == len("+++\ntitle = 'x'\n+++")
    # A document that merely starts with a thematic break has no front matter.
    assert front_matter_end("---\nJust a paragraph\n---\n") == 0
    assert front_matter_end("---\ntitle: never closed\n") == 0


_MD_PIECES = [
    "# A", "## B c ##", "### x #", "#no", "#", "\t# tab", "Title", "two words", "===", "=",
    "---", "--", "-", "- - -", "***", "", "", "```", "```py", "~~~", "    indented", "- item",
    "* star", "1. one", "2) two", "> quote", "<!-- c -->", "<!--", "-->", "<div>", "</div>",
    "<pre>", "</pre>", "<span>x</span>", "---\ntitle: t\n---",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_MD_PIECES + [
    "第一章 概述", "一、总则", "（二）范围", "1.1 Scope", "12 Monkeys", "= = Title = =", "== A ==",
    "Chapter 3", "§ 12 Terms", "  2. Two", " -- Function: int f (x)", "int f (x) [Function]"]), texts),
    max_size=20), st.integers(0, 40))
def test_line_patterns_find_what_a_multiline_caret_finds(lines, start):
    # The heading scans look for their patterns at line starts only (after a newline, which
    # ``re`` finds fast); the matches must be those of the plain ^-anchored multiline pattern.
    text = "\n".join(lines)
    start = min(start, len(text))
    for pattern in (plaintext.PLAIN, plaintext.WIKI, plaintext.DEFINITION):
        mine = [(ls, m.start(m.lastgroup or 0) if m.lastgroup else None, m.end(), m.lastgroup)
                for ls, m in pattern.finditer(text, start)]
        plain = [(m.start(), m.start(m.lastgroup or 0) if m.lastgroup else None, m.end(), m.lastgroup)
                 for m in pattern.first.finditer(text, start)]
        assert mine == plain


_LINE_PIECES = _MD_PIECES + [
    "第一章 概述", "第3节 x", "一、总则", "（二）范围", "(三) 三", "1.1 Scope", "12 Monkeys", "3．5 x",
    "= = Title = =", "== A ==", "Chapter 3", "CHAPTER IV: x", "Part 2", "Book I", "Art. 5", "Article 7",
    "Section 3.1a", "Sec. 4", "§ 12 Terms", "§§ 3", "  2. Two", "\u3000一、x", "\t1. x", "Partial",
    "Sections", "١ x", "۲. x", "四川", "《书》", "<br>x", "__init__", "~~~~", "**bold**", "___", " _ _ _",
    "7.3.\u00a0Why", "\u00a0\u00a0 1. x", "第 1 章 定义", "第 9 章使您", "第 2 节", "Chapter\u00a03",
    "5 Page headers", "6 Results 12", "2.1 Data . . . . 3", "\f", "(see", "7 Results",
    " -- Function: int f (x)", "int f (x) [Function]", "[Variable]", "x [Macro]", " -- Macro: m",
    "Kapitel 1. Grundlagen", "KAPITEL 2", "Глава 3. Выбор", "Chapitre\u00a04.\u00a0x", "Teil II", "Kapitelweise",
    "Раздел 2.1 Как", "Artículo 5", "Hoofdstuk", "Deelnemers 3",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_LINE_PIECES), texts), max_size=20))
def test_the_first_character_guards_change_no_match(lines):
    # _PLAIN tests a line's first character before trying each family; without that test it
    # must match the same lines, the same way.
    text = "\n".join(lines)
    pattern = plaintext.PLAIN
    unguarded = re.compile(pattern.first.pattern.replace(f"(?={plaintext.PLAIN_FIRST})", "", 1), re.MULTILINE)
    assert unguarded.pattern != pattern.first.pattern
    assert ([(m.span(), m.lastgroup, m.groupdict()) for m in pattern.first.finditer(text)]
            == [(m.span(), m.lastgroup, m.groupdict()) for m in unguarded.finditer(text)])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.sampled_from(_LINE_PIECES), texts).map(lambda t: t.replace("\n", " ")))
def test_a_line_passed_over_has_no_headings(line):
    if headings._no_heading_line(line):
        assert plaintext.plain_headings(line, []) == []
        assert headings._markdown_headings(line)[0] == []
    for doc in (plain(line), md(line)):  # and the documents' headings are those of the full scan
        assert find_headings(doc) == [h for h in _find_without_the_check(doc)]


def _find_without_the_check(doc: Document) -> list[Heading]:
    check = headings._no_heading_line
    headings._no_heading_line = lambda text: False
    try:
        return find_headings(doc)
    finally:
        headings._no_heading_line = check


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, st.text(alphabet="a中😀\u0301 ", max_size=100)))
def test_too_wide_is_the_width_test(s):
    def width(s):  # display columns, read character by character: CJK characters count twice
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)

    assert plaintext._too_wide(s) == (width(s) > plaintext.MAX_WIDTH)
    for k in (39, 40, 41, 80, 81):
        t = ("中" * k + s)[:k]
        assert plaintext._too_wide(t) == (width(t) > plaintext.MAX_WIDTH)


# -- plain text ----------------------------------------------------------------------------

def test_chinese_headings():
    text = "第一章 总则\n\n本法适用于……\n\n第一节 范围\n一、基本原则\n内容。\n（一）细则\n内容。\n第二章 附则\n内容。"
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "第一章 总则"), (2, "第一节 范围"), (3, "一、基本原则"), (4, "（一）细则"), (1, "第二章 附则"),
    ]


#: The Debian FAQ's text version (DocBook through a text browser): a table of contents first,
#: then the chapters, their titles spaced ("第 1 章 …") and numbered titles after a no-break space.
FAQ_TEXT = (
    "Debian FAQ\n\n目录\n\n1. 定义和概览\n    1.1. 本 FAQ 文档是什么？\n    1.2. 什么是 Debian？\n"
    "    1.3. 一个很长的标题，它在目录里折行\n    到了下一行？\n2. 获取和安装 Debian\n    2.1. 最新版本是哪个？\n\n"
    "---\n\n第 1 章 定义和概览\n\n1.1.\u00a0本 FAQ 文档是什么？\n\n\u00a0\u00a0\u00a0 本文档提供了常见问题。请阅读第 2 章和\n"
    "第 9 章使您的系统保持最新状态。\n\n1.2.\u00a0什么是 Debian？\n\n一个发行版。\n\n"
    "1.3.\u00a0一个很长的标题，它在目录里折行到了下一行？\n\n说明。\n\n"
    "第 2 章 获取和安装 Debian\n\n2.1.\u00a0最新版本是哪个？\n\n版本 11。\n"
)


def test_a_table_of_contents_is_not_the_outline_and_spaced_chapters_are():
    """Left as headings, the contents' last entry held the whole body; the body's own headings,
    after a no-break space, and its spaced chapter titles were not found at all."""
    doc = plain(FAQ_TEXT)
    assert [(h.level, h.title) for h in find_headings(doc)] == [
        (1, "第 1 章 定义和概览"), (2, "1.1. 本 FAQ 文档是什么？"), (2, "1.2. 什么是 Debian？"),
        (2, "1.3. 一个很长的标题，它在目录里折行到了下一行？"), (1, "第 2 章 获取和安装 Debian"),
        (2, "2.1. 最新版本是哪个？"),
    ]
    # the same numbered lines without a later twin are headings: a contents needs its chapters
    alone = FAQ_TEXT[:FAQ_TEXT.index("---")]
    assert [h.title for h in find_headings(plain(alone))][:2] == ["1. 定义和概览", "1.1. 本 FAQ 文档是什么？"]


def test_chapters_named_in_other_languages():
    """A translated manual's text version names its chapters in its language: they were body
    text, and the first numbered section stood for its chapter."""
    text = ("Kapitel 1. Grundlagen\n\n1.1. Was ist das?\n\nEin Werkzeug.\n\nKapitel 2. Mehr\n\n"
            "2.1. Wie?\n\nSo.\n\nГлава 3. Выбор\n\n3.1. Как?\n\nТак.\n\nKapitelweise geht es weiter.\n")
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "Kapitel 1. Grundlagen"), (2, "1.1. Was ist das?"), (1, "Kapitel 2. Mehr"), (2, "2.1. Wie?"),
        (1, "Глава 3. Выбор"), (2, "3.1. Как?")]


def test_chinese_list_sentences_are_not_headings():
    text = "一、加强组织领导，明确工作责任。\n二、完善制度建设；\n"
    assert find_headings(plain(text)) == []
    # a numbered step told in a sentence pauses at a comma; a question title may
    steps = ("第一章 简介\n1.1 历史回顾\n正文。\n4. 用 GSview 打开上面生成的 EPS，不用理会警告，Options\n"
             "1.2 为什么用它，而不用别的？\n正文。\n")
    assert [(h.level, h.title) for h in find_headings(plain(steps))] == [
        (1, "第一章 简介"), (2, "1.1 历史回顾"), (2, "1.2 为什么用它，而不用别的？")]


def test_numbered_headings_but_not_lists_or_sentences():
    text = (
        "1. Introduction\n\nSome text here.\n\n1.1 Scope\n\nMore text.\n\n1.1.1 Terms\n\nx.\n\n"
        "2. Methods\n\nShopping:\n1. Buy milk\n2. Eggs\n\n3. We went home. It rained.\n\n"
        "4. lowercase start\n\n3.50 dollars\n\n12 Monkeys\n"
    )
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "1. Introduction"), (2, "1.1 Scope"), (3, "1.1.1 Terms"), (1, "2. Methods"),
    ]


def test_sections_numbered_without_a_stop_as_latex_sets_them():
    # Text from a typeset PDF: "1 Introduction" has no stop, a contents gives page numbers and
    # no blank line, and a page break (form feed) is the only thing between it and the body.
    text = (
        "Contents\n1 Introduction 2\n1.1 Scope . . . . . . . . 2\n2 Methods 3\n"
        "2.1 Data . . . . . . . . 3\n3 Results 4\n\f\n"
        "1 Introduction\nThis paper shows a thing.\n1.1 Scope\nWe look at one part.\n"
        "2 Methods\nThere are two things to know:\n"
        "1. The margins on the left are not called this, but\nthat, on even pages.\n"
        "2. Most of them should not change.\n2.1 Data\nWe took it from a survey.\n"
        "3 Results\nIt worked (see\nSection 2.1.\nThat is all.\n"
    )
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "1 Introduction"), (2, "1.1 Scope"), (1, "2 Methods"), (2, "2.1 Data"), (1, "3 Results"),
    ]
    # Three in turn with text between are sections without subsections too.
    text = "1 Introduction\nSome text.\n2 Background\nMore text.\n3 Method\nEven more.\n"
    assert [h.title for h in find_headings(plain(text))] == ["1 Introduction", "2 Background", "3 Method"]


def test_a_subsection_may_exclaim_but_a_numbered_line_does_not():
    text = "6 Upgrading\n\nText.\n\n6.1 Try it first!\n\nRun it.\n\n3. Do not do it!\n\nReally.\n"
    assert [h.title for h in find_headings(plain(text))] == ["6 Upgrading", "6.1 Try it first!"]


def test_a_footnote_with_a_link_or_a_step_of_an_algorithm_is_no_title():
    text = ("1. Introduction\n\nText.\n\n1. See http://www.ctan.org/pkg/l2tabu\n\n"
            "2. Methods\n\nText.\n\n1. For k = 1 to maximum number of iterations\n\nDo it.\n")
    assert [h.title for h in find_headings(plain(text))] == ["1. Introduction", "2. Methods"]


def test_a_title_wrapped_in_a_narrow_column_is_read_whole():
    text = ("8 CCS CONCEPTS AND USER-DEFINED\nKEYWORDS\nTwo elements of the class help readers.\n"
            "8.1 Not balancing the\ncolumns\nAlthough this package was written to balance them.\n"
            "8.2 Support for right-\nto-left typesetting\nIn such typesetting the order changes.\n"
            "9 RESULTS\nIt worked, and the reader can see why.\n9.1 Data\nWe took the figures from a survey.\n")
    assert [h.title for h in find_headings(plain(text))] == [
        "8 CCS CONCEPTS AND USER-DEFINED KEYWORDS", "8.1 Not balancing the columns",
        "8.2 Support for right-to-left typesetting", "9 RESULTS", "9.1 Data"]


def test_a_running_head_of_title_and_page_is_no_title_nor_makes_the_titles_a_contents():
    # A typeset book heads each page with its section's title and the page number; read from a
    # PDF, with no blank line between, the heads made the true titles look like a contents.
    text = ("第二章 入门\n2.1 你好\n示例。\n2.2 格式及其转换\n页面描述语言是一种语言。\n\f\n"
            "2.2 格式及其转换 9\n我们也可以把它转为 PS。\n2.3 语句\n每一行称作一条语句。\n\f\n"
            "2.3 语句 11\n源文件的结构分三部分。\n2.4 文档结构\n文档类、序言、正文。\n")
    assert [h.title for h in find_headings(plain(text))] == [
        "第二章 入门", "2.1 你好", "2.2 格式及其转换", "2.3 语句", "2.4 文档结构"]


def test_a_numbered_line_of_a_listing_is_no_section_and_a_lower_case_name_may_be_a_title():
    text = ("1 Windows 系统\n1.1 安装\n在命令行执行\n1 C:\\texlive\\2022\\uninst.bat\n之后清理注册表\n"
            "1 HKEY_LOCAL_MACHINE\\Classes\\TL.view\n2 HKEY_LOCAL_MACHINE\\Classes\\TL.edit\n"
            "1.2.2 手动卸载\n删除文件夹。\n2 Ubuntu 系统\n2.1 安装\n运行脚本。\n3 macOS 系统\n3.1 安装\n下载。\n")
    assert [h.title for h in find_headings(plain(text))] == [
        "1 Windows 系统", "1.1 安装", "1.2.2 手动卸载", "2 Ubuntu 系统", "2.1 安装", "3 macOS 系统", "3.1 安装"]


def test_lines_numbered_without_a_stop_that_are_no_sections():
    text = ("12 Monkeys\nA film.\n\n1 Alice\n2 Bob\n3 Carol\n\n"  # alone; a list with nothing between
            "216 \\def\\x{1}\nSome text.\n217 \\def\\y{2}\nMore.\n218 \\def\\z{3}\n")  # numbered code
    assert find_headings(plain(text)) == []


def test_a_numbered_list_led_in_by_a_colon_is_no_run_of_sections():
    text = ("Installing the tool\n\nThere are three ways to install it:\n\n1. Download the installer\n"
            "from the website.\n\n2. Build from source\nwith make.\n\n3. Use your package manager\n"
            "such as apt.\n\nAfter installing, run the tool once to set it up.\n\n"
            "1. Settings\nThe settings live in your home folder.\n\n2. Updates\nThe tool updates itself.\n")
    # the list's items stay in its text; the sections after it, not led in, are still sections
    assert [h.title for h in find_headings(plain(text))] == ["1. Settings", "2. Updates"]


def test_legal_sections():
    text = "Article 5\nGeneral.\nSection 1. Definitions\nText.\n§ 12 Remedies\nText.\nSection 2: Scope\n"
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "Article 5"), (2, "Section 1. Definitions"), (2, "§ 12 Remedies"), (2, "Section 2: Scope"),
    ]


def test_wiki_headings():
    text = " = Title = \n text \n = = Sub = = \n more \n == Other == \n = Position ; GP = \n"
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "Title"), (2, "Sub"), (2, "Other"),
    ]


def test_markdown_without_markdown_headings_uses_plain_patterns():
    text = "第一章 概述\n\n```\n第二章 代码\n```\n"
    assert [h.title for h in find_headings(md(text))] == ["第一章 概述"]


def test_a_parsed_markdown_document_without_heading_blocks_uses_plain_patterns():
    # The reader's blocks say there is no Markdown heading; plain-text heading lines count,
    # except inside code (fenced or indented) and raw HTML.
    text = "Chapter 1 Scope\n\n```\nChapter 2 Code\n```\n\n    Chapter 3 Indented\n\n<div>\nChapter 4 Html\n</div>\n"
    doc = read_text(text, format="markdown", id="d", source="t.md")
    assert [b.type for b in doc.blocks if b.type == "heading"] == []
    assert [h.title for h in find_headings(doc)] == ["Chapter 1 Scope"]


def test_a_heading_in_a_list_item_or_quote_opens_no_section():
    text = "- item\n\n  # Inside the item\n\n> # Quoted\n\n# Top\n"
    assert [h.title for h in find_headings(md(text))] == ["Top"]


# Title lines around the width a kept setext heading may have, lines blank or not to markdown-it,
# and lines that end a block so that a paragraph starts on the next line.
_TITLE_PIECES = ["x" * 80, "x" * 81, " " + "y" * 80 + " ", "word " * 17, "\t", "  ", "\x0b", "\u3000", "\x00",
                 "Title", "two words", "[a]:", "[a]: /url", "foo", "comment -->", "- ```", "  x", "1. # h", "ν"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_MD_PIECES + _TITLE_PIECES), texts), max_size=20))
def test_markdown_is_parsed_only_when_a_kept_heading_may_be_there(lines):
    text = "\n".join(lines)
    if not headings._may_hold_markdown_headings(text):
        assert [h for h in headings._markdown_headings(text)[0]
                if plaintext.title_like(h.title, "markdown") and text.count("\n", h.start, h.end) <= 1] == []


def test_plain_text_with_markdown_headings():
    assert [(h.level, h.title) for h in find_headings(plain("# A\n\ntext\n\n## B\n"))] == [(1, "A"), (2, "B")]
    # A stray "=" line under a long paragraph is not a heading in a plain file.
    long = "word " * 100
    assert find_headings(plain(f"{long}\n=\n")) == []
    assert not headings._may_hold_markdown_headings(f"{long}\n=\n\n\n---\n")  # not even parsed
    assert [h.title for h in find_headings(plain(f"{long}\n\nShort title\n=\n"))] == ["Short title"]


def test_code_and_tables_have_no_headings():
    for fmt in ("code", "csv"):
        assert find_headings(Document(id="d", source="x", text="# comment\n", format=fmt)) == []


def test_reader_heading_blocks_win():
    text = "Intro\n\n## Sub ##\n\nUnder\n====\n"
    blocks = (Block(0, 5, "text"), Block(7, 16, "heading", 2), Block(18, 28, "heading", 1))
    doc = Document(id="d", source="x", text=text, format="markdown", blocks=blocks)
    assert find_headings(doc) == [Heading(7, 16, 2, "Sub"), Heading(18, 28, 1, "Under")]


# -- sections ------------------------------------------------------------------------------

def test_section_tree():
    text = "---\ntitle: x\n---\nIntro text.\n\n# A\n\nalpha\n\n## B\n\nbeta\n\n### C\ngamma\n## D\ndelta\n# E\n"
    assert outline(section_spans(md(text)), text) == [
        (0, "front_matter", "---\ntitle: x\n---", ()),
        (0, "preamble", "Intro text.", ()),
        (0, "section", "# A\n\nalpha\n\n## B\n\nbeta\n\n### C\ngamma\n## D\ndelta", ("A",)),
        (1, "intro", "# A\n\nalpha", ("A",)),
        (1, "section", "## B\n\nbeta\n\n### C\ngamma", ("A", "B")),
        (2, "intro", "## B\n\nbeta", ("A", "B")),
        (2, "section", "### C\ngamma", ("A", "B", "C")),
        (1, "section", "## D\ndelta", ("A", "D")),
        (0, "section", "# E", ("E",)),
    ]


def test_section_levels_may_skip_and_max_level_ignores_deeper():
    text = "# A\n### deep\nx\n## B\ny\n"
    assert [(d, k, p) for d, k, _, p in outline(section_spans(md(text)), text)] == [
        (0, "section", ("A",)), (1, "intro", ("A",)), (1, "section", ("A", "deep")),
        (1, "section", ("A", "B")),
    ]
    assert [(k, p) for _, k, _, p in outline(section_spans(md(text), max_level=1), text)] == [
        ("section", ("A",)),
    ]


def test_no_headings_gives_one_preamble_and_empty_gives_nothing():
    assert outline(section_spans(plain("  just text  \n")), "  just text  \n") == [
        (0, "preamble", "just text", ()),
    ]
    assert section_spans(plain("")) == []
    assert section_spans(plain(" \n\t ")) == []


@settings(max_examples=200, deadline=None)
@given(texts, st.sampled_from(["markdown", "text"]))
def test_section_tree_invariants(text, fmt):
    doc = Document.from_text(text, format=fmt)
    headings = find_headings(doc)
    for a, b in zip(headings, headings[1:]):
        assert a.end <= b.start
    for h in headings:
        assert 0 <= h.start < h.end <= len(doc.text) and 1 <= h.level <= 6
    tree = build_tree(doc, section_spans(doc))
    check_tree(tree, partition=True)
    again = build_tree(doc, section_spans(doc))
    assert [n.id for n in again] == [n.id for n in tree]
    for node in tree:
        if node.kind == "section":
            assert node.text.startswith(doc.text[node.start:next(h.end for h in headings if h.start == node.start)])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_MD_PIECES + ["text line.", "第一章 概述", "1.1 Scope", "= = W = ="]),
                max_size=40))
def test_section_tree_invariants_on_structured_text(lines):
    for fmt in ("markdown", "text"):
        doc = Document.from_text("\n".join(lines), format=fmt)
        check_tree(build_tree(doc, section_spans(doc)), partition=True)


# -- realistic fixture ---------------------------------------------------------------------

def _wikitext() -> tuple[dict, list[dict]]:
    folder = DATA / "wikitext_md"
    if not folder.is_dir():
        pytest.skip("shared/data/wikitext_md is not present")
    doc = json.loads((folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[0])
    queries = [json.loads(x) for x in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines() if x]
    return doc, queries


def test_wikitext_md_headings_and_paths():
    raw, queries = _wikitext()
    doc = md(raw["text"])
    headings = find_headings(doc)
    expected = [(m.start(), len(m.group(1)), m.group(2))
                for m in re.finditer(r"^(#{1,6}) (.*)$", doc.text, re.MULTILINE)]
    assert len(expected) == 77
    assert [(h.start, h.level, h.title) for h in headings] == expected
    assert [h.level for h in headings].count(1) == 10 and [h.level for h in headings].count(4) == 1

    tree = build_tree(doc, section_spans(doc))
    check_tree(tree, partition=True)
    sections = [n for n in tree if n.kind == "section"]
    assert len(sections) == 77

    def path_at(pos: int) -> tuple[str, ...]:
        inside = [n for n in sections if n.start <= pos < n.end]
        return max(inside, key=lambda n: n.level).section_path if inside else ()

    checked = 0
    for q in queries:
        for ev, path in zip(q["evidence"], q["evidence_sections"]):
            assert path_at(ev["start"]) == tuple(path)
            checked += 1
    assert checked == 249
    music = next(n for n in sections if n.section_path[-1] == "Music")
    assert music.section_path == ("Valkyria Chronicles III", "Development", "Music")


def test_wikitext_plain_version_has_the_same_headings():
    folder = DATA / "chroma_general"
    if not folder.is_dir():
        pytest.skip("shared/data/chroma_general is not present")
    raw_md, _ = _wikitext()
    for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["id"] == "wikitexts":
            break
    else:
        pytest.skip("wikitexts is not in chroma_general")
    plain_titles = [(h.level, h.title) for h in find_headings(plain(rec["text"]))]
    md_titles = [(h.level, h.title) for h in find_headings(md(raw_md["text"]))]
    assert plain_titles == md_titles


def test_section_path_titles_lose_badges_images_links_and_emphasis():
    from zoomrag.load import read_text
    from zoomrag.parse import chunker_for_profile
    from zoomrag.parse.titles import clean_title

    assert clean_title("zoomrag [![PyPI](https://img.shields.io/pypi/v/x.svg)](https://pypi.org/x) "
                       "[![CI](b.svg)](c)") == "zoomrag PyPI CI"
    assert clean_title("Install **now** with `pip` {#install}") == "Install now with pip"
    assert clean_title('Logo <img src="l.png" alt="the logo">') == "Logo the logo"
    assert clean_title("![](x.png)") == "![](x.png)"  # nothing readable left: the title as it is
    # names and generics are text, not emphasis or HTML
    assert clean_title("pub fn with_capacity_in(n: usize) -> Vec<T, A>") == (
        "pub fn with_capacity_in(n: usize) -> Vec<T, A>")
    assert clean_title("impl<T> From<T> for _Private") == "impl<T> From<T> for _Private"
    assert clean_title("The _quick_ guide to snake_case") == "The quick guide to snake_case"
    # a Python dunder name is a name, not bold: help()'s and API references' entries
    assert clean_title("__exit__(self, type, value, traceback, /)") == "__exit__(self, type, value, traceback, /)"
    assert clean_title("x __init__.py and _em_") == "x __init__.py and em"
    assert clean_title("__Bold__ title") == "Bold title"
    # character references and backslash escapes are the characters they stand for
    assert clean_title("Anyhow&ensp;¯\\\\\\_(ツ)\\_/¯") == "Anyhow ¯\\_(ツ)_/¯"
    assert clean_title("R&amp;D for AT&T: \\*not\\* bold") == "R&D for AT&T: *not* bold"
    # a badge by shortcut reference, as crates' READMEs write them
    assert clean_title("Serde JSON [![Build Status]][travis] [![Latest Version]][crates.io]") == (
        "Serde JSON Build Status Latest Version")
    # reStructuredText roles: their text, without a link target or a tilde
    assert clean_title(":mod:`json` --- JSON encoder") == "json --- JSON encoder"
    assert clean_title("See :ref:`the guide <guide-start>` and :py:func:`~json.dumps`") == (
        "See the guide and json.dumps")
    # wiki links (Obsidian, Foam): the alias, else the target; an embed shows no name; an index is text
    assert clean_title("Notes on [[Kafka migration|the move]] and [[Payments#Refunds]]") == (
        "Notes on the move and Payments > Refunds")
    assert clean_title("![[diagram.png]] Overview of [[Infra]]") == "Overview of Infra"
    assert clean_title("Indexing `arr[[0, 1]]`") == "Indexing arr[[0, 1]]"
    assert clean_title(":[range]ret[ab][!] [new_tabstop]") == ":[range]ret[ab][!] [new_tabstop]"
    assert clean_title(":[range]~[&][flags] [count]") == ":[range]~[&][flags] [count]"
    assert clean_title("(see [the guide][g])") == "(see the guide)"
    assert clean_title("See [the guide][g]") == "See the guide"
    doc = read_text("# Tool [![CI](b.svg)](c)\n\n## See [the docs](d.md)\n\ntext here\n", format="markdown")
    tree = chunker_for_profile("default").chunk(doc)
    assert max((n.section_path for n in tree.nodes), key=len) == ("Tool CI", "See the docs")


def test_texinfo_definitions_head_their_descriptions_titled_by_the_name_they_define():
    # a GNU manual as a PDF gives its text (TeX sets the category at the right margin), and as
    # makeinfo's plain text (the category leads); a reference made from comments names each
    # function over its definition with spaces for underscores
    pdf = ("4 Function reference\n\n4.1 Schema functions\n\nasn1 parser2tree\n"
           "int asn1_parser2tree (const char * file, asn1 node * [Function]\ndefinitions, char * error)\n"
           "Reads FILE.\n\nint opterr [Variable]\nSet to zero to be quiet.\n")
    assert [(h.level, h.title, pdf[h.start:h.end]) for h in find_headings(plain(pdf))] == [
        (1, "4 Function reference", "4 Function reference"), (2, "4.1 Schema functions", "4.1 Schema functions"),
        (3, "asn1_parser2tree",
         "asn1 parser2tree\nint asn1_parser2tree (const char * file, asn1 node * [Function]"),
        (3, "opterr", "int opterr [Variable]")]
    info = ("Chapter 1 Parsing\n\n -- Function: int foo_parse (const char *S)\n     Parses S.\n\n"
            " -- Macro: FOO_MAX\n     The longest input.\n")
    assert [(h.level, h.title, info[h.start:h.end]) for h in find_headings(plain(info))] == [
        (1, "Chapter 1 Parsing", "Chapter 1 Parsing"), (2, "foo_parse", "-- Function: int foo_parse (const char *S)"),
        (2, "FOO_MAX", "-- Macro: FOO_MAX")]
    # at the margin too (a text makeinfo wrote without its indent)
    margin = "Chapter 1 Parsing\n\n-- Function: int foo_parse (const char *S)\n     Parses S.\n"
    assert [h.title for h in find_headings(plain(margin))] == ["Chapter 1 Parsing", "foo_parse"]
    # brackets and dashes in prose are no definitions
    prose = "See the note [Function] below.\nA line -- Function: this is prose.\n"
    assert find_headings(plain(prose)) == []


# -- manual pages and pydoc text --------------------------------------------------------------
PYDOC = """Help on module shapes:

NAME
    shapes - Plane figures.

CLASSES
    builtins.object
        Circle

    class Circle(builtins.object)
     |  Circle(r)
     |
     |  Methods defined here:
     |
     |  area(self)
     |      The area.
     |
     |  ----------------------------------------------------------------------
     |  Data descriptors inherited from Shape:
     |
     |  name

FUNCTIONS
    unit() -> Circle
        A circle of radius one.
"""

MAN = """LS(1)                 User Commands                LS(1)

NAME
       ls - list directory contents

OPTIONS
   Sorting
       -t     sort by time

   Display
       -l     use a long listing format
"""


def test_pydoc_text_has_sections_classes_and_member_groups():
    assert found(plain(PYDOC)) == [
        (1, "NAME", "NAME"), (1, "CLASSES", "CLASSES"),
        (2, "class Circle(builtins.object)", "class Circle(builtins.object)"),
        (3, "Methods defined here", "|  Methods defined here:"),
        (4, "area(self)", "|  area(self)"),  # described: an entry of its own
        (3, "Data descriptors inherited from Shape", "|  Data descriptors inherited from Shape:"),
        (1, "FUNCTIONS", "FUNCTIONS"),
        (4, "unit() -> Circle", "unit() -> Circle"),
    ]
    leaf = next(n for n in tree_of(PYDOC).leaves() if n.text == "area.")
    assert leaf.section_path == ("CLASSES", "class Circle(builtins.object)", "Methods defined here", "area(self)")
    # the class's own signature line, before its first group, and a member without a
    # description, are text
    assert "Circle(r)" not in [h.title for h in find_headings(plain(PYDOC))]
    assert "name" not in [h.title for h in find_headings(plain(PYDOC))]


def test_a_manual_page_has_sections_and_subsections():
    assert found(plain(MAN)) == [(1, "NAME", "NAME"), (1, "OPTIONS", "OPTIONS"), (2, "Sorting", "Sorting"),
                                 (2, "Display", "Display")]


def test_capitals_lines_of_other_texts_are_not_taken_for_a_manual_page():
    contract = "TERMS\n\nDEFINITIONS\n    The words below mean this.\n\nPAYMENT\n    Pay on time.\n"
    assert found(plain(contract)) == []
    # help() on one class: no sections, the class is the outermost heading
    one = PYDOC[PYDOC.index("    class"):PYDOC.index("FUNCTIONS")]
    assert [h[:2] for h in found(plain("Help on class Circle:\n\n" + one))] == [
        (1, "class Circle(builtins.object)"), (2, "Methods defined here"), (3, "area(self)"),
        (2, "Data descriptors inherited from Shape")]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["NAME", "CLASSES", "    class A(B)", "     |  Methods defined here:",
                                 "     |  text", "", "    ", "   Sub part", "       body", "plain",
                                 "     |  area(self)", "     |      The area.", "FUNCTIONS", "    unit()"]),
                max_size=25))
def test_manual_page_headings_are_ordered_spans_of_their_titles(lines):
    text = "\n".join(lines)
    hs = find_headings(plain(text))
    assert all(0 <= h.start < h.end <= len(text) and h.title in text[h.start:h.end] for h in hs)
    assert [h.start for h in hs] == sorted(h.start for h in hs) and all(1 <= h.level <= 6 for h in hs)
    check_tree(tree_of(text))


def tree_of(text: str):
    from zoomrag.parse import make_chunker

    return make_chunker("hierarchical", {"sizes": (32, 8), "unit": "chars"}).chunk(plain(text))


def test_a_dotted_number_heading_may_ask_a_question_and_a_list_of_questions_is_no_heading():
    text = "1. Introduction\n\n1.1. Version\n\nText.\n\n1.2. What is this spec?\n\nMore text.\n"
    assert [t for _, t, _ in found(plain(text))] == ["1. Introduction", "1.1. Version", "1.2. What is this spec?"]
    quiz = "Questions\n\n3. Why?\n\nBecause.\n"
    assert found(plain(quiz)) == []


# -- licences and contracts ------------------------------------------------------------------

_WRAP = "a line as long as the lines a plain text is wrapped at, about 72"


def test_a_licence_clause_title_may_end_in_a_full_stop():
    text = (
        "                    THE EXAMPLE LICENSE\n\n"
        f"  0. Definitions.\n\n  \"This License\" refers to the license, and\n{_WRAP}.\n\n"
        f"  1. Source Code.\n\n  The \"source code\" for a work means\n{_WRAP}.\n\n"
        f"1. Install the package.\n\n{_WRAP}.\n"
    )
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [(1, "0. Definitions"), (1, "1. Source Code")]


def test_a_run_in_clause_title_is_the_phrase_before_its_full_stop():
    text = (
        "   1. Definitions.\n\n      \"License\" shall mean the terms and conditions for use.\n\n"
        "   2. Grant of Copyright License. Subject to the terms and conditions of\n"
        "      this License, each Contributor hereby grants to You a license.\n\n"
        "   3. Open the file. Then read it.\n"
    )
    assert [t for _, t, _ in found(plain(text))] == ["1. Definitions", "2. Grant of Copyright License"]


def test_a_named_clause_may_have_a_run_in_title():
    text = ("Section 1. Definitions. In this Agreement the following words have the meanings below.\n\n"
            "Section 2. Payment Terms. The Buyer shall pay the Seller within thirty days of each invoice.\n\n"
            "ARTICLE IV\n\n4.1 Term. This Agreement starts on the Effective Date and runs for three years.\n\n"
            "ARTICLE V\nTERMINATION\n\nEither party may end it.\n\nChapter 6\nit was raining.\n")
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (3, "Section 1. Definitions"), (3, "Section 2. Payment Terms"), (2, "ARTICLE IV"), (4, "4.1 Term"),
        (2, "ARTICLE V TERMINATION"),  # the title on the line under a bare marker
        (1, "Chapter 6"),  # not a sentence under it
    ]


def test_a_numbered_paragraph_is_a_clause_titled_by_its_first_line_marked_as_cut():
    text = (
        f"{_WRAP}.\n\n"
        "  0. This License applies to any program or other work which contains\n"
        "a notice placed by the copyright holder saying it may be distributed.\n\n"
        "  5. A program that contains no derivative of any portion of the\n"
        "Library, but is designed to work with the Library, is a work that uses it.\n\n"
        "  15. BECAUSE THE LIBRARY IS LICENSED FREE OF CHARGE, THERE IS NO\n"
        "WARRANTY FOR THE LIBRARY, TO THE EXTENT PERMITTED BY APPLICABLE LAW.\n\n"
        "Section 6 states terms for distribution of such executables.\n\n"
        "1.1. \"Contributor\"\n    means each individual or legal entity that creates it.\n"
    )
    assert [t for _, t, _ in found(plain(text))] == [
        "0. This License applies to any program or other work which contains…",
        "5. A program that contains no derivative of any portion of the…",
        "15. BECAUSE THE LIBRARY IS LICENSED FREE OF CHARGE, THERE IS NO…",
        '1.1. "Contributor"',
    ]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([
    "", "                    TERMS AND CONDITIONS", "          Version 3, 29 June 2007", "  0. Definitions.",
    "   2. Grant of Rights. Subject to the terms", "  7.  This requirement modifies the requirement in",
    "\t\t\t\tPreamble", "\f", "1.1. \"Contributor\"", "    means each one", _WRAP, "Section 6 states terms."]),
    max_size=30))
def test_licence_headings_are_ordered_spans_inside_the_text(lines):
    text = "\n".join(lines)
    hs = find_headings(plain(text))
    assert all(0 <= h.start < h.end <= len(text) and h.title for h in hs)
    assert all(a.end <= b.start for a, b in zip(hs, hs[1:])) and all(1 <= h.level <= 6 for h in hs)
    check_tree(tree_of(text))


def test_a_filing_in_plain_text_is_outlined_by_its_parts_and_items():
    text = ("ACME WIDGETS, INC.\n\nPART I\n\nITEM 1. BUSINESS\n\nAcme makes widgets for aircraft.\n\n"
            "Item 1A. Risk Factors\n\nItem 3 is described in the notes and applies to all segments.\n\n"
            "PART II\n\nItem 7. Management's Discussion and Analysis\n\nSales grew.\n")
    assert [(h.level, h.title) for h in find_headings(plain(text))] == [
        (1, "PART I"), (2, "ITEM 1. BUSINESS"), (2, "Item 1A. Risk Factors"),  # not "Item 3 is …"
        (1, "PART II"), (2, "Item 7. Management's Discussion and Analysis"),
    ]
