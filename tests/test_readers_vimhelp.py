"""Vim help files read as the manual: titles without their tags, documented commands and options
as entries, examples as code, contents lists and navigation left out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.load import load_path, read_text

HELP = """*shelf.txt*\tKeep notes on a shelf

\t\t  SHELF REFERENCE

1. Introduction\t\t\t|shelf-intro|
2. Commands\t\t\t|shelf-commands|
   2.1 Moving notes\t\t|shelf-moving|
3. Options\t\t\t|shelf-options|

==============================================================================
1. Introduction\t\t\t\t\t*shelf-intro*

Shelf keeps short notes beside the files they are about.  See |:Shelve| to
put one away.

==============================================================================
2. Commands\t\t\t\t\t\t*shelf-commands*

\t\t\t\t\t\t\t*:Shelve*
:Shelve [name]\t\tPut the note in the current buffer on the shelf,
\t\t\tunder [name] when given.  Example: >
\t\t\t\t:Shelve todo
<\t\t\tThe note is written at once.

:Unshelve {name}\tTake the note {name} off the shelf.

2.1 Moving notes\t\t\t\t\t*shelf-moving*

Notes move with their files.

Keys ~
key\t\taction ~
<CR>\t\topen the note
dd\t\tdrop the note

==============================================================================
3. Options\t\t\t\t\t\t*shelf-options*

\t\t\t\t\t\t*'shelfdir'* *'sd'*
'shelfdir' 'sd'\t\tstring\t(default "~/.shelf")
\t\t\tglobal
\tWhere the notes are kept.  Each note is
\ta file of its own.

 Previous chapter: |usr_01.txt|  About the manuals

 vim:tw=78:ts=8:noet:ft=help:norl:
"""


def test_a_help_file_reads_as_its_manual():
    doc = read_text(HELP, format="text", source="doc/shelf.txt")
    assert doc.format == "vimhelp"
    assert doc.text == (
        "# Keep notes on a shelf\n\n"
        "## 1. Introduction\n\n"
        "Shelf keeps short notes beside the files they are about. See :Shelve to put one away.\n\n"
        "## 2. Commands\n\n"
        "### :Shelve [name]\n\n"
        "Put the note in the current buffer on the shelf, under [name] when given. Example:\n\n"
        "```\n:Shelve todo\n```\n\n"
        "The note is written at once.\n\n"
        "### :Unshelve {name}\n\n"
        "Take the note {name} off the shelf.\n\n"
        "### 2.1 Moving notes\n\n"
        "Notes move with their files.\n\n"
        "#### Keys\n\n"
        "```\nkey             action\n<CR>            open the note\ndd              drop the note\n```\n\n"
        "## 3. Options\n\n"
        "### 'shelfdir' 'sd' string (default \"~/.shelf\")\n\n"
        "global\n\n"
        "Where the notes are kept. Each note is a file of its own."
    )
    assert dict(doc.metadata) == {"title": "Keep notes on a shelf", "help_file": "shelf.txt"}
    check_rendered_blocks(doc)


def test_a_help_file_is_found_by_its_modeline_and_titled_by_its_centred_line():
    text = ("Set your settings\n\nVim can be tuned.\n\n" + "=" * 78 + "\n*05.1*\tThe vimrc file\t\t*vimrc-intro*\n\n"
            "Put your settings in it.\n\n vim:tw=78:ts=8:ft=help:norl:\n")
    doc = read_text(text, format="text")
    assert doc.format == "vimhelp"
    assert doc.text == "Set your settings\n\nVim can be tuned.\n\n## 05.1 The vimrc file\n\nPut your settings in it."
    user = read_text("*usr_05.txt*\tFor Vim version 9.0.  Last change: 2019 May 23\n\n"
                     "\t\t     VIM USER MANUAL - by Bram Moolenaar\n\n\t\t\t      Set your settings\n\n\n"
                     "Vim can be tuned.\n", format="text")
    assert user.text == "# Set your settings\n\nVim can be tuned."


def test_columns_aligned_by_spaces_keep_their_lines_with_a_wrapped_cell():
    text = ("*shelf.txt*\tShelf\n\n\t\t\t\t\t\t*'shelfkind'*\n'shelfkind'\tstring\t(default \"plain\")\n"
            "\tKinds are:\n\t   plain      the note as written\n\t   wrapped    lines kept to the\n"
            "\t\t      width of the window\n\t   md         markdown\n\tSet it per note.\n")
    doc = read_text(text, format="text")
    assert doc.text.endswith(
        "Kinds are:\n\n```\nplain      the note as written\nwrapped    lines kept to the\n"
        "           width of the window\nmd         markdown\n```\n\nSet it per note.")


def test_a_plugins_head_headlines_and_lead_ins_read_as_written():
    text = ("*shelf.txt*\tShelf\n\nFor instructions on installing this file, type\n\t`:help shelf-install`\n"
            "inside Vim.\n\nFor Vim version 8.2.  Last change:  2021 Dec 24\n\n\t\t  VIM REFERENCE MANUAL    by A. Author\n\n"
            + "=" * 78 + "\nMODES:\t\t\t*shelf-modes*\n\nIt works in Visual mode.  Example: >\n\tvip:Shelve\n"
            "<  shelved ~\n\nSee |shelf-intro|.\n\nLANGUAGES:\t\t*shelf-languages*\n\nShell and Vim.\n")
    doc = read_text(text, format="text")
    assert doc.text == ("# Shelf\n\nFor instructions on installing this file, type\n\n`:help shelf-install`\n\n"
                        "inside Vim.\n\n## MODES:\n\nIt works in Visual mode. Example:\n\n```\nvip:Shelve\n```\n\n"
                        "shelved\n\nSee shelf-intro.\n\n### LANGUAGES:\n\nShell and Vim.")


def test_a_plugin_written_with_spaces_has_its_commands_as_entries():
    # most plugins' docs are written with 'expandtab': spaces where Vim's own use tabs
    text = ("*myplug.txt*  Git from inside Vim\n\nCOMMANDS" + " " * 40 + "*myplug-commands*\n\n" + " " * 48
            + "*myplug-:Gstatus*\n:Gstatus                Bring up a summary window.\n" + " " * 24
            + "Press g? for help.\n\n" + " " * 48 + "*myplug-:Gcommit*\n:Gcommit [args]         A wrapper "
            "around git-commit.  Example: >\n" + " " * 28 + ":Gcommit -m \"fix\"\n<\nThese maps work in the "
            "summary.  They\nwork in every window.\n\n vim:tw=78:et:ft=help:norl:\n")
    doc = read_text(text, format="text")
    assert doc.text == (
        "# Git from inside Vim\n\n### COMMANDS\n\n#### :Gstatus\n\nBring up a summary window. Press g? for help.\n\n"
        "#### :Gcommit [args]\n\nA wrapper around git-commit. Example:\n\n```\n:Gcommit -m \"fix\"\n```\n\n"
        "### COMMANDS\n\nThese maps work in the summary. They work in every window.")


def test_neovims_examples_name_their_language():
    text = ("*lsp.txt*  LSP client\n\n" + "=" * 78 + "\nQUICKSTART\t\t\t\t\t\t*lsp-quickstart*\n\n"
            "Start a client in your config: >lua\n    vim.lsp.start({ name = 'x' })\n<\nIt attaches to the buffer.\n\n"
            " vim:tw=78:ts=8:sw=4:sts=4:et:ft=help:norl:\n")
    doc = read_text(text, format="text")
    assert doc.text == ("# LSP client\n\n## QUICKSTART\n\nStart a client in your config:\n\n"
                        "```lua\nvim.lsp.start({ name = 'x' })\n```\n\nIt attaches to the buffer.")


def test_text_that_only_mentions_a_help_tag_is_plain_text():
    text = "Notes.\n\nType *help.txt* to see how vim:ft=help works.\n"
    doc = read_text(text, format="text")
    assert doc.format == "text" and doc.text == text


def test_a_question_about_an_option_is_answered_by_its_entry(tmp_path):
    from zoomrag import Index

    doc = tmp_path / "doc"
    doc.mkdir()
    options = "".join(
        f"\t\t\t\t\t\t*'opt{n}'*\n'opt{n}'\t\tnumber\t(default {n})\n\t\t\tglobal\n"
        f"\tHow many {word} the shelf keeps before it folds them away.\n\n"
        for n, word in enumerate(["notes", "drafts", "letters", "lists", "sketches", "plans"]))
    (doc / "shelf.txt").write_text(HELP.replace("==============================================================================\n3.",
                                                options + "=" * 78 + "\n3."))
    with Index.open(tmp_path / "i.db") as index:
        index.add(doc)
        hits = index.query("how many sketches does the shelf keep", budget=80, top=1)
    assert "'opt4' number (default 4)" in hits[0].section_path[-1]
    assert "sketches" in hits[0].text


_LINES = st.lists(st.one_of(
    st.sampled_from(["*x.txt*\tTitle", "=" * 20, "-" * 20, "1. Intro\t\t*x-intro*", "\t\t*tag*", "Heading ~",
                     "a\tb ~", "\tcode >", "<\tafter", ">", "'opt'\tnumber", "\t\tglobal", "\tdescribed here.",
                     "1. One\t|x-one|", "2. Two\t|x-two|", " vim:ft=help:", "ITEMS\t\t*x-items*", "", "or"]),
    st.text(alphabet="ab *|'<>~\t.", max_size=15)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_LINES)
def test_any_help_text_reads_to_blocks_inside_its_text(lines):
    text = "*x.txt*\n" + "\n".join(lines)
    doc = read_text(text, format="text", source="x.txt")
    if doc.format == "vimhelp":
        check_rendered_blocks(doc)


def test_a_help_file_is_read_from_a_folder_by_its_first_line(tmp_path):
    (tmp_path / "shelf.txt").write_text(HELP)
    assert load_path(tmp_path / "shelf.txt").format == "vimhelp"
