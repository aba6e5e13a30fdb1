"""LaTeX reader: sectioning commands as heading blocks with clean titles, verbatim environments
as code, the abstract and bibliography as sections; commands in comments, verbatim text and the
preamble are no headings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from invariants import check_blocks, texts

from zoomrag import Index
from zoomrag.load import read_text
from zoomrag.load.base import detect_format
from zoomrag.load.readers.latex import latex_title
from zoomrag.parse.headings import find_headings
from zoomrag.parse.router import chunker_for_profile

DOC = r"""\documentclass{article}
\newcommand{\sect}[1]{\section{#1}}
\title{Fast \LaTeX{} Tables\thanks{Funded.}}
\begin{document}
\maketitle
\begin{abstract}
We make tables fast.
\end{abstract}

\section{Introduction}\label{sec:intro}
Tables are slow. % \section{Old title}
See \verb|\section{x}| for sections.

\subsection*{Prior work}
Others tried~\cite{a}.

  \begin{lstlisting}[language=Python]
def f():
    \section{not a title}
  \end{lstlisting}

\section[Short]{Methods --- the \emph{new} way}
We use \texttt{tabularx}.

\begin{thebibliography}{9}
\bibitem{a} A. Author.
\end{thebibliography}
\end{document}
"""


def test_sections_code_and_paper_parts_exact():
    doc = read_text(DOC, format="latex")
    assert doc.text == DOC  # kept as written: every span is into the file
    assert doc.metadata == {"title": "Fast LaTeX Tables"}
    blocks = [(b.type, b.meta.get("title", b.meta.get("language", "")), doc.text[b.start:b.end]) for b in doc.blocks]
    # the preamble and \maketitle, then the paper's parts
    assert blocks[0] == ("text", "", DOC[:DOC.index("\n\\begin{abstract}")])
    assert [(kind, said) for kind, said, _ in blocks[1:]] == [
        ("heading", "Abstract"), ("text", ""), ("heading", "Introduction"), ("text", ""), ("heading", "Prior work"),
        ("text", ""), ("code", "python"), ("heading", "Methods — the new way"), ("text", ""), ("heading", "References"),
        ("text", "")]
    assert [text for _, _, text in blocks[1:]] == [
        "\\begin{abstract}", "We make tables fast.\n\\end{abstract}", "\\section{Introduction}\\label{sec:intro}",
        "Tables are slow. % \\section{Old title}\nSee \\verb|\\section{x}| for sections.", "\\subsection*{Prior work}",
        "Others tried~\\cite{a}.",
        "  \\begin{lstlisting}[language=Python]\ndef f():\n    \\section{not a title}\n  \\end{lstlisting}",
        "\\section[Short]{Methods --- the \\emph{new} way}", "We use \\texttt{tabularx}.", "\\begin{thebibliography}{9}",
        "\\bibitem{a} A. Author.\n\\end{thebibliography}\n\\end{document}"]
    assert [(h.level, h.title) for h in find_headings(doc)] == [
        (1, "Abstract"), (1, "Introduction"), (2, "Prior work"), (1, "Methods — the new way"), (1, "References"),
    ]


def test_a_section_switched_off_with_iffalse_is_no_heading():
    text = "\\section{A}\nx\n\\iffalse\n\\section{Old draft}\ny\n\\fi\n\\section{B}\nz\n\\iffalse \\section{C}\n"
    assert [h.title for h in find_headings(read_text(text, format="latex"))] == ["A", "B", "C"]


def test_a_verbatim_environment_never_closed_is_text():
    doc = read_text("Intro.\n\n\\begin{verbatim}\nx = 1\n", format="latex")
    assert [b.type for b in doc.blocks] == ["text", "text"]


def test_levels_count_from_the_outermost_command_used():
    text = "\\chapter{One}\nA.\n\\section{Two}\nB.\n\\paragraph{Three.} C.\n"
    doc = read_text(text, format="latex")
    assert [(h.level, h.title, text[h.start:h.end]) for h in find_headings(doc)] == [
        (1, "One", "\\chapter{One}"), (2, "Two", "\\section{Two}"), (5, "Three.", "\\paragraph{Three.}"),
    ]


def test_short_verbatim_and_blank_titles_are_no_headings():
    text = ("\\MakeShortVerb{\\|}\n\\begin{document}\nWrite |\\section{<title>}| to start one.\n"
            "A heading is |\\chapter{x}| too.\n\\section{}\n\\section{Real}\nText.\n")
    doc = read_text(text, format="latex")
    assert [h.title for h in find_headings(doc)] == ["Real"]


@pytest.mark.parametrize(("raw", "title"), [
    ("The \\LaTeXe{} fonts", "The LaTeX2e fonts"),
    ("Using `docstrip' and ``doc''", "Using `docstrip' and “doc”"),
    ("The \\cs{frac} and \\cs{binom} commands", "The \\frac and \\binom commands"),
    ("Results\\footnote{See \\url{x}.}\\label{s:r}", "Results"),
    ("Costs in \\$ and \\%", "Costs in $ and %"),
    ("Time $O(n^2)$ \\\\ and space", "Time $O(n^2)$ and space"),
    ("Auto-converting to key--value~format", "Auto-converting to key–value format"),
    ("\\textbf{\\emph{Nested}} markup", "Nested markup"),
    ("\\unknown", "\\unknown"),  # nothing readable left: the title as written
])
def test_titles_are_their_text(raw, title):
    assert latex_title(raw) == title


def test_extensions_and_section_paths():
    assert detect_format(Path("paper.tex")) == detect_format(Path("x.ltx")) == "latex"
    doc = read_text(DOC, format="latex")
    tree = chunker_for_profile("default", {}).chunk(doc)
    slow = next(n for n in tree.leaves() if "Tables are slow." in n.text)
    assert slow.section_path == ("Introduction",)
    code = next(n for n in tree.nodes if "def f():" in n.text and n.kind == "code")
    assert code.text.lstrip().startswith("\\begin{lstlisting}")


def test_an_indexed_paper_returns_its_section_whole(tmp_path: Path):
    src = tmp_path / "papers"
    src.mkdir()
    methods = " ".join(f"Step {i} sorts the rows of the table by key and merges them." for i in range(30))
    results = " ".join(f"Run {i} of the benchmark took four seconds on the laptop." for i in range(30))
    (src / "p.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\section{Methods}\\label{s:m}\n" + methods
        + "\n\n\\section{Results}\n" + results + "\n\\end{document}\n")
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add(src)
        got = ix.query("how are the rows of the table sorted and merged", budget=400)
    assert got and got[0].section_path == ("Methods",)
    assert "\\section{Results}" not in got[0].text


_PIECES = st.sampled_from([
    "\\section{A}", "\\subsection*{B}", "\\section[s]{Long}", "\\chapter{C}\\label{c}", "\\begin{document}",
    "\\begin{verbatim}", "\\end{verbatim}", "\\begin{minted}{py}", "\\end{minted}", "% \\section{D}",
    "\\verb|\\section{x}|", "|\\section{y}|", "\\MakeShortVerb{\\|}", "\\begin{abstract}", "\\end{abstract}",
    "\\title{T}", "text", "", "  indented", "{", "}", "\\", "%", "\\section{", "\\section{}", "  \\section{E}",
    "\\begin{lstlisting}[language=C]", "\\end{lstlisting}", "\\paragraph{P.} text", "中文。", "\\begin{Verbatim}\r", "\\iffalse", "\\fi",
])


@settings(max_examples=200, deadline=None)
@given(st.one_of(texts, st.lists(_PIECES, max_size=40).map("\n".join)))
@example("\\begin{Verbatim}\r")  # never closed, and the newline after it is no part of a block
def test_any_text_gives_ordered_blocks_inside_it(text):
    check_blocks(read_text(text, format="latex"), text, code_may_indent=True)
