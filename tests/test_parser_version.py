"""The guard of :data:`zoomrag.parse.PARSER_VERSION`: the trees the default profile makes of a few
hand-made files of each format, hashed. When a reader or a chunker changes them, this test fails
until the version is bumped (an index then reads such files again) and the new hash recorded."""

from __future__ import annotations

import hashlib
import json

import pytest

from zoomrag.load import read_text
from zoomrag.parse import PARSER_VERSION
from zoomrag.parse.router import chunker_for_profile
from zoomrag.text.wordpiece import minilm_counter

#: ``(PARSER_VERSION, hash of the trees)`` as last recorded.
RECORDED = (90, "21dbd41f001ef73b2c798fcd294105e2933354b03ed5a3e41423fe267d3add6f")

_LONG = " ".join(f"Sentence {i} of the long part tells how step {i} feeds step {i + 1} of the pipeline."
                 for i in range(60))

FILES = {
    "guide.md": ("markdown", "---\ntitle: The guide\n---\n# Guide\n\nIntro with *emphasis* and a [link](x).\n\n"
                 "## Install [[Setup#Pip|with pip]]\n\n- pip install it\n- check the version\n  - nested item\n\n"
                 "```python\ndef f():\n    return 1\n```\n\n| Name | Role |\n|------|------|\n| Ann | lead |\n"
                 "| Bob | dev |\n\n## Long part\n\n" + _LONG + "\n\n### Deeper\n\nShort closing words.\n\n```python\n"
                 "def add(values):\n" + "".join(f"    total += values[{i}] * weight_{i}\n" for i in range(40)) + "```\n"),
    "myst.md": ("markdown", "(options)=\n\n# Options\n\n```{eval-rst}\n.. currentmodule:: click\n```\n\nUse the "
                "{func}`option` decorator.\n\n```{contents}\n:depth: 2\n```\n\n## Required\n\nSet it like this:\n\n"
                "```{code-block} python\n@click.option('--n', required=True)\n```\n\n```{note}\nA flag is never "
                "required.\n```\n\n```{versionadded} 8.0\n```\n"),
    "notes.txt": ("text", "NOTES\n\nFirst paragraph, two lines\nof plain text.\n\n1. one\n2. two\n\n" + _LONG
                  + "\n\nThere are two ways:\n\n1. Download the installer\nfrom the site.\n\n2. Build it\nwith make."
                  + "\n\nLast words.\n"),
    "page.html": ("html", "<html><head><title>Team &amp; roles</title></head><body><nav><a href='/'>Home</a></nav>"
                  "<h1>Our team</h1><p>We are three people.</p><ul><li>Alice</li><li>Bob<ul><li>intern</li>"
                  "</ul></li></ul><h2>Table</h2><table><tr><th>Name</th><th>Role</th></tr><tr><td>Alice</td>"
                  "<td>lead</td></tr></table><pre><code class='language-python'>x = 1</code><code>y = 2</code><button>copy</button></pre>"
                  "<dl class='py function'><dt class='sig sig-object py' id='team.add'><span class='sig-name'>"
                  "add</span>(name)<a href='_modules/team.html'>[source]</a></dt><dd><p>Adds a member.</p><div class='admonition note'><p class="
                  "'admonition-title'>Note</p><p>Names are unique.</p></div></dd></dl>"
                  "<div class='navfooter'><table><tr><td>Prev chapter</td></tr></table></div>"
                  "<div class='tip'><h3 class='title'>Tip</h3><p>Ask Bob.</p></div>"
                  "<dl><dt>-v</dt><dt>--verbose</dt><dd><p>Talk more.</p></dd></dl>"
                  "<ol><li><p>Build it:</p><pre>make all\n\nmake install</pre></li><li><ul><li>or</li></ul></li><li>Done</li></ol>"
                  "<p>Aliases<a class='footnote-reference brackets' href='#n1' role='doc-noteref'>[1]</a>.</p>"
                  "<aside class='footnote brackets' id='n1' role='note'><span class='label'>[1]</span>"
                  "<p><a href='https://u.org/A.txt'>https://u.org/A.txt</a></p></aside>"
                  "<p>See <a class='footnote' href='#n'>the small print</a>.</p>"
                  f"<p>{_LONG}</p></body></html>"),
    "Runbook_98306.html": ("html", "<title>Ops : Runbook</title><ol id='breadcrumbs'><li>Ops</li></ol><h1 id='title-heading'>"
                           "<span id='title-text'>Ops : Runbook</span></h1><div class='page-metadata'>Created by "
                           "<span class='author'>Tom</span> on Mar 12, 2024</div><div id=\"main-content\"><p>"
                           f"{_LONG}</p><h2>Promote</h2><pre class='syntaxhighlighter-pre' data-syntaxhighlighter-"
                           "params='brush: bash'>aws rds promote</pre></div><div class='pageSection'><h2 "
                           "class='pageSectionTitle'>Attachments:</h2><a href='a.png'>a.png</a></div>"),
    "filing.htm": ("html", "<div style='display:none'><ix:header>0000012345</ix:header></div>"
                   "<p><b>PART I</b></p><p><b>Item 1.</b> <b>Business</b></p><p><b><i>Overview</i></b></p>"
                   f"<p>{_LONG}</p><p style='text-align:center'>3</p><hr style='page-break-after:always'>"
                   "<table><tr><td>Sales</td><td>$</td><td>1,234</td><td></td><td>(12</td><td>)</td></tr>"
                   "<tr><td></td><td></td><td></td><td></td><td></td><td></td></tr></table>"),
    "filing.txt": ("text", "<SEC-DOCUMENT>x.txt\n<SEC-HEADER>\nCONFORMED SUBMISSION TYPE:\t10-K\n"
                   "COMPANY CONFORMED NAME:\tACME INC\n</SEC-HEADER>\n<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n"
                   f"<html><p><b>Item 1. Business</b></p><p>{_LONG}</p></html>\n</TEXT>\n</DOCUMENT>\n"
                   "<DOCUMENT>\n<TYPE>GRAPHIC\n<FILENAME>a.jpg\n<TEXT>\nbegin 644 a.jpg\nM86)C\nend\n</TEXT>\n</DOCUMENT>\n"),
    "ref.html": ("html", "<title>VACUUM</title><h2>VACUUM</h2><p>VACUUM — garbage-collect.</p><h2>Parameters</h2>"
                 "<dl><dt>FULL</dt><dd><p>Selects full vacuum.</p></dd><dt>Is it slow?</dt><dd><p>Yes.</p></dd><dt>稳定版</dt><dd><p>久经测试。</p></dd><dt>last</dt><dd></dd><dt><a href='g.html'>gn</a></dt><dd><p>A meta-build system.</p></dd></dl><p>Footer.</p>"
                 "<span class='rightside'><span class='since'>1.0.0</span> · <a class='src'>Source</a></span>"
                 "<h3>fn vacuum()</h3><pre>VACUUM<br>  FULL</pre><p>Vacuums.</p><p>Takes a lock.<a class='footnote' href='#ftn.l'><sup>[1]</sup>"
                 "</a></p><div class='footnote' id='ftn.l'><p><a class='para' href='#l'><sup class='para'>[1] </sup>"
                 "</a>A share lock.</p></div><table><tr><th>Mode</th></tr><tr><td>ROW<a class='footnoteref' "
                 "href='#ftn.t'><sup>[a]</sup></a></td></tr><tbody class='footnotes'><tr><td><div class='footnote' "
                 "id='ftn.t'><p><a class='para' href='#t'><sup class='para'>[a] </sup></a>Rows only.</p></div></td>"
                 "</tr></tbody></table>"),
    "paper.txt": ("text", "A Study of Things\nAnn Author\nContents\n1 Introduction 1\n1.1 Scope . . . . . 1\n"
                  "2 Methods 2\n\f\n1 Introduction\nWe study things (see\nSection 2.).\n1.1 Scope\nSome.\n"
                  "2 Methods\nThere are two:\n1. The first is done on the left, and\nthe second on the right.\n"
                  "2. Both are done.\n\n1Our note.\n\n" + _LONG + "\n"),
    "faq.txt": ("text", "FAQ\n\n1. Basics\n    1.1. What is it?\n    1.2. Why?\n2. More\n    2.1. How?\n\n"
                "Chapter\u00a01. Basics\n\n1.1.\u00a0What is it?\n\nA tool.\n\n1.2.\u00a0Why?\n\nSpeed.\n\n"
                "第 2 章 More\n\n2.1.\u00a0How?\n\nLike so.\n\n3. 打开文件，打印到虚拟打印机\n"),
    "manual.rst": ("rst", "Manual\n======\n\nIntro text.\n\nUsage\n-----\n\nRun it with care::\n\n    tool --go\n\n=====  =======\nFlag   Meaning\n=====  =======\n-g     go\n=====  =======\n\n"
                   "* a bullet\n* another\n\n.. x:example::\n\n    @tool.command()\n    def go():\n        run()\n\n.. function:: go(speed)\n\n   Goes.\n\nDetails\n~~~~~~~\n\n" + _LONG + "\n"),
    "vim.txt": ("text", "*shelf.txt*\tNotes on a shelf\n\n1. Intro\t|shelf-intro|\n2. Use\t|shelf-use|\n\n" + "=" * 78
                + "\n1. Intro\t\t*shelf-intro*\n\n" + _LONG + "\n\n\t\t\t*:Shelve*\n:Shelve [name]\tPut it away.  Like: >\n"
                "\t:Shelve todo\n<\tDone.\n\nKeys ~\nkey\taction ~\ndd\tdrop\n\n vim:tw=78:ft=help:\n"),
    "libfoo.txt": ("text", "1 Functions\n\n1.1 Parsing\n\n -- Function: int foo_parse (const char *s)\n     Parses S.\n\n"
                   "foo parse tree\nint foo_parse_tree (node *n, const [Function]\nchar *s)\n" + _LONG + "\n"),
    "help.txt": ("text", "Help on module shapes:\n\nNAME\n    shapes\n\nCLASSES\n    class Circle(builtins.object)\n"
                 "     |  Circle(r)\n     |  \n     |  Methods defined here:\n     |  \n     |  area(self)\n"
                 "     |      The area.\n     |  \n     |  " + "-" * 70 + "\n     |  Data descriptors defined here:\n"
                 "     |  \n     |  name\n\nFUNCTIONS\n    unit()\n        A circle of radius one.\n"),
    "licence.txt": ("text", "                        THE SAMPLE LICENCE\n\n" + "   1. Definitions.\n\n"
                    "      \"Work\" means the text under this Licence, as shared by its authors.\n\n"
                    "   2. Grant of Rights. Subject to the terms of this Licence, you may copy the Work\n"
                    "      and share it, in any medium, with or without changes to it.\n\n"
                    "Section 3. Notices. Every copy keeps this Licence and the names of its authors.\n\n"
                    "ARTICLE 4\nGOVERNING LAW\n\nThe law of the place where the authors live applies.\n\n"
                    + _LONG + "\n"),
    "paper.tex": ("latex", "\\documentclass{article}\n\\title{A \\LaTeX{} Paper}\n\\begin{document}\n"
                  "\\begin{abstract}\nShort.\n\\end{abstract}\n\\section{Intro}\\label{s:i}\nText % \\section{No}\n"
                  "\\subsection*{More --- here}\n" + _LONG + "\n\\begin{verbatim}\n\\section{x}\n\\end{verbatim}\n"
                  "\\begin{thebibliography}{9}\n\\bibitem{a} A.\n\\end{thebibliography}\n\\end{document}\n"),
    "notes.org": ("org", "#+TITLE: Notes\n* TODO [#A] Backups :ops:\n  SCHEDULED: <2026-01-02>\n  :PROPERTIES:\n"
                  "  :ID: 42\n  :END:\nRun them nightly.\n|------+------|\n| Name | Role |\n|------+------|\n"
                  "| Ann  | lead |\n|------+------|\n#+BEGIN_SRC sh\npg_dump app\n#+END_SRC\n** Restore\n" + _LONG + "\n"),
    "tickets.jsonl": ("jsonl", json.dumps({"id": 1, "subject": "Printer jams", "body": "It jams.\n\n" + _LONG,
                                            "meta": {"tags": ["hw"], "owner": {"name": "Zoë"}}}) + "\n"
                      + json.dumps([{"a": 1, "b": "x"}, {"a": 2}]) + "\n"),
    "ci.yml": ("yaml", "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-24.04\n    steps:\n"
               "      - uses: actions/checkout@v4\n      - name: Run the suite\n        run: make test\n"
               "        env:\n          CI: 1\n---\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n"
               "    - port: 80\n      targetPort: 8080\n"),
    "pyproject.toml": ("toml", "[project]\nname = 'x'\ndependencies = [\n  'a',\n[1],\n]\n[tool.ruff]\n"
                       "line-length = 110\n[tool.ruff.lint]\nselect = ['E']\nx = \"\"\"\n[not.a.table]\n\"\"\"\n"),
    "tox.ini": ("ini", "[tox]\nenvlist = py311\n\n[testenv]\ncommands =\n    pytest\n    [not a section]\n"),
    "Makefile": ("code", "VENV := .venv\n\ntest: venv\n\t$(VENV)/bin/pytest\n\nvenv:\n\tpython3 -m venv $(VENV)\n"),
    "lib.rs": ("code", "// Copyright 2024 The Authors\n// Licensed under the MIT licence.\n\nuse std::fmt;\n\n"
               "impl Command {\n    /// Adds an [argument].\n    ///\n    /// # Examples\n    ///\n"
               "    /// ```\n    /// Command::new(\"x\")\n    /// ```\n    #[must_use]\n"
               "    pub fn arg<F>(self, f: F) -> Self\n    where\n        F: Fn(),\n    {\n"
               + "".join(f"        self.count += {i};\n" for i in range(30)) + "    }\n}\n"),
    "schema.graphql": ("code", '"""\nAutogenerated input type of AddStar\n"""\ninput AddStarInput {\n  """\n'
                       '  The Starrable ID to star.\n  """\n  starrableId: ID!\n\n  """\n  A unique identifier.\n'
                       '  """\n  clientMutationId: String\n}\n\n"""\nThe root query.\n"""\ntype Mutation {\n  """\n'
                       '  Adds a star to a Starrable.\n  """\n  addStar(input: AddStarInput!): AddStarPayload\n}\n'),
    "api.yaml": ("yaml", "openapi: 3.0.0\npaths:\n  /servers:\n    get:\n      description: Returns all servers.\n"
                 "      responses:\n        '200':\n          content:\n            application/json:\n"
                 "              schema:\n                $ref: '#/components/schemas/Server'\n"
                 "      summary: Get all Servers\ncomponents:\n  schemas:\n    Server:\n      properties:\n"
                 "        id:\n          type: integer\n"),
    "api.h": ("code", "/*\n * Copyright (C) the authors.\n */\n#ifndef API_H\n#define API_H\n\n/**\n * Clone a remote.\n"
              " */\nGIT_EXTERN(int) git_clone(\n\tgit_repository **out,\n\tconst char *url);\n\n"
              "ZEXTERN uLong ZEXPORT crc32 OF((uLong crc, const Bytef *buf));\n/*\n     Update a CRC-32.\n*/\n\n"
              "typedef enum {\n  /* Time-out connect operations */\n  CURLOPT(CURLOPT_CONNECTTIMEOUT, LONG, 78),\n"
              "  /* Store headers */\n  CURLOPT(CURLOPT_HEADERFUNCTION, FUNC, 79),\n} CURLoption;\n"
              "#define MAX_OF(a, b) ((a) > (b) ? (a) : (b))\n#endif\n"),
    "json.hpp": ("code", "class basic_json\n{\n  public:\n    /// @brief access an element\n"
                 "    template<class KeyType, detail::enable_if_t<\n        is_key<KeyType>::value, int> = 0>\n"
                 "    reference operator[](KeyType && key)\n    {\n#if JSON_DIAGNOSTICS\n        set_parents();\n"
                 "#endif\n" + "".join(f"        m_count += {i};\n" for i in range(30)) + "    }\n};\n"),
    "tool.js": ("code", "const fs = require('fs')\n\nclass Tool extends Base {\n  static name = 'tool'\n\n"
                "  async exec () {\n    await this.run()\n    return 1\n  }\n\n  usage () {\n    return `Usage:\n"
                "- tool [options]\n`\n  }\n\n  stop () {\n" + "".join(f"    this.count += {i}\n" for i in range(40))
                + "  }\n}\n\nfunction helper (x) {\n"
                "  return x + 1\n}\n\nmodule.exports = Tool\n\n/**\n * Adds one.\n */\n\nexports.inc =\n"
                "exports.plusOne = function (x) {\n"
                + "".join(f"  total += x * weight{i} + offset{i}\n" for i in range(30)) + "  return total\n}\n"),
    "manual.xml": ("xml", "<?xml version='1.0'?><!DOCTYPE book [<!ENTITY p 'Frob'>]><book><info><title>&p; guide</title>"
                   "</info><chapter><title>Install</title><para>Run <command>make</command>:<programlisting>make all"
                   "\nmake install</programlisting>then check it&mdash;twice.</para><note><para>Root is needed.</para>"
                   "</note><variablelist><varlistentry><term>--fast</term><listitem><para>Skips checks.</para>"
                   "</listitem></varlistentry></variablelist><table><title>Codes</title><tgroup cols='2'><thead><row>"
                   "<entry>Code</entry><entry>Meaning</entry></row></thead><tbody><row><entry>0</entry><entry>ok"
                   "</entry></row></tbody></tgroup></table></chapter></book>\n"),
    "pom.xml": ("xml", "<project>\n  <groupId>org.example</groupId>\n  <dependencies>\n    <dependency>\n"
                "      <artifactId>junit</artifactId>\n    </dependency>\n  </dependencies>\n</project>\n"),
    "sync.vtt": ("vtt", "WEBVTT - Sync\n\n00:00:01.000 --> 00:00:04.000\n<v Ann>We ship on Friday\nif QA agrees.\n\n"
                 "00:00:04.500 --> 00:00:06.000\n<v Bo>QA agrees.\n"),
    "general/2024-03-05.json": ("json", '[{"type": "message", "user": "U1", "ts": "1709640000.0001", "text": '
                                '"Staging is down <@U2>", "user_profile": {"real_name": "Ann"}}, {"type": "message", '
                                '"user": "U2", "ts": "1709640300.0002", "thread_ts": "1709640000.0001", "text": '
                                '"Replica too?", "user_profile": {"real_name": "Bo"}}]'),
    "ls.1": ("man", ".TH LS 1 2024 coreutils\n.SH NAME\nls \\- list directory contents\n.SH DESCRIPTION\n"
             "List the FILEs.\n.TP\n\\fB\\-a\\fR, \\fB\\-\\-all\\fR\ndo not ignore entries starting with .\n"
             ".SS Exit status\n.TS\nl l.\n0\tOK\n.TE\n.nf\nls \\-la\n.fi\n"),
    "demo.info": ("info", "\x1f\nFile: demo.info,  Node: Top,  Up: (dir)\n\nDemo\n****\n\nIt lists files.\n\n"
                  "‘-a’\n     Show all.\n\n          ls -a\n\n* Menu:\n\n* Top::\n"),
    "Tool.pod": ("pod", "=head1 NAME\n\nTool - does things\n\n=head1 FUNCTIONS\n\n=over\n\n=item run EXPR\n\n"
                 "Runs C<EXPR>.\n\n    run(1);\n\n=item stop\n\nStops.\n\n=back\n"),
    "tool.texi": ("texinfo", "@node Top\n@top Tool\n\nIt runs @code{tool @var{file}}.\n\n@table @option\n"
                  "@item -v\nTalk more.\n@end table\n\n@deffn Command run @var{x}\nRuns.\n@end deffn\n"),
    "hinweise.md": ("markdown", "# Hinweise\n\n" + " ".join(
        f"Schritt {i} nutzt z. B. das Paket gcc bzw. Kap. {i} der Anleitung. Am {i % 28 + 1}. Oktober "
        f"erschien die Version {i}, d. h. eine neue Ausgabe." for i in range(40)) + "\n"),
    "faq.de.txt": ("text", "Die FAQ\n\nKapitel 1. Grundlagen\n\n1.1. Was ist das?\n\nEin Werkzeug.\n\n"
                   "Kapitel 2. Mehr\n\n2.1. Wie?\n\nSo.\n\nГлава 3. Выбор\n\n3.1. Как?\n\nТак.\n"),
    "people.csv": ("csv", "name,role,city\n" + "".join(f"person {i},role {i % 4},city {i % 7}\n" for i in range(80))),
    "javadoc.html": ("html", "<!-- Generated by javadoc --><main><div class='header'><div class='sub-title'><span>"
                     "Package</span> <a href='p.html'>org.x</a></div><h1 class='title'>Class Range</h1></div>"
                     "<div class='block'><h2>Usage</h2><p>Fit values.</p></div><ul class='summary-list'><li>"
                     "<section class='method-summary'><h2>Method Summary</h2><p>Rows.</p></section><section>"
                     "<h2>Classes</h2>"
                     "<div class='summary-table two-column-summary'><div class='table-header col-first'>Method</div>"
                     "<div class='table-header col-last'>Description</div><div class='col-first'>fit(T)</div>"
                     "<div class='col-last'>Fits it.</div></div></section></li><li><section><h2>Method Details</h2>"
                     f"<h3>fit</h3><p>{_LONG}</p><dl><dt>See Also:</dt><dd><a href='#c'>contains(T)</a></dd></dl>"
                     "</section></li></ul></main>"),
    "Range.src.html": ("html", "<html><head><meta name='description' content='source: package: org.x, class: "
                       "Range'></head><body><div class='source-container'><pre>"
                       + "\n".join(f"<span class='source-line-no'>{i:03}</span><span>{line}</span>" for i, line in
                                   enumerate(["package org.x;", "public class Range {", "    /** Fits. */",
                                              "    public int fit(int v) {", "        return v;", "    }", "}"], 1))
                       + "</pre></div></body></html>"),
    "group.dox.html": ("html", "<!-- Generated by Doxygen 1.9.4 --><div id='top'>GLFW 3.3</div><div class='header'>"
                       "<div class='headertitle'><div class='title'>Window reference</div></div></div>"
                       "<div class='contents'><table class='memberdecls'><tr class='heading'><td colspan='2'><h2 "
                       "class='groupheader'>Functions</h2></td></tr><tr class='memitem:a'><td class='memItemLeft'>"
                       "void</td><td class='memItemRight'><a class='el' href='#a'>glfwHint</a> (int v)</td></tr>"
                       "</table><h2 class='groupheader'>Function Documentation</h2><div class='memitem'><div "
                       "class='memproto'><table class='memname'><tr><td class='memname'>void glfwHint</td><td>(</td>"
                       "<td class='paramtype'>int</td><td class='paramname'>v</td><td>)</td></tr></table></div>"
                       f"<div class='memdoc'><p>{_LONG}</p><div class='fragment'><div class='line'>glfwHint(1);</div>"
                       "</div><dl class='params'><dt>Parameters</dt><dd><table class='params'><tr><td "
                       "class='paramname'>v</td><td>The value.</td></tr></table></dd></dl></div></div></div>"),
    "tool.py": ("code", '"""A small tool."""\n\nimport os\n\n\nclass Tool:\n    """Does things."""\n\n'
                "    def run(self, x):\n        return x + 1\n\n    def stop(self):\n        pass\n\n\n"
                "def outer(url):\n    \"\"\"Checks a URL.\"\"\"\n\n    def get(key):\n        return key.upper()\n\n"
                + "".join(f"    if url.startswith('scheme{i}://host/path'):\n        return get('value number {i}')\n"
                          for i in range(20)) + "\n\n"
                + "".join(f"def step_{i}(value):\n    # step {i}\n    return value * {i}\n\n\n" for i in range(40))),
}


def trees_hash() -> str:
    """The hash of every node's kind, level, span, heading trail and embedded text, of each file."""
    chunker = chunker_for_profile("default", {})
    h = hashlib.sha256()
    for name, (fmt, text) in sorted(FILES.items()):
        tree = chunker.chunk(read_text(text, format=fmt, id=name, source=name))
        for n in tree.nodes:
            h.update(json.dumps([name, n.kind, n.level, n.start, n.end, n.section_path, n.embed_text]).encode())
    return h.hexdigest()


def test_the_parser_version_is_bumped_whenever_the_trees_change():
    if minilm_counter() is None:
        pytest.skip("the trees are sized by the MiniLM tokenizer, which is not installed here")
    now = trees_hash()
    version, recorded = RECORDED
    if PARSER_VERSION == version:
        hint = (f"the readers or chunkers now make other trees from the same files: bump PARSER_VERSION in "
                f"src/zoomrag/parse/__init__.py to {version + 1} (an index reads such files again), then record "
                f"RECORDED = ({version + 1}, {now!r}) here")
    else:
        hint = f"PARSER_VERSION is {PARSER_VERSION}: record RECORDED = ({PARSER_VERSION}, {now!r}) here"
    assert (PARSER_VERSION, now) == RECORDED, hint
