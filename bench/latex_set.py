"""Build a held-out set of LaTeX sources: ten papers and guides as their authors wrote them, with
26 questions and their evidence, read twice: as ``latex`` (the reader's sections) and as plain
``text`` (what a LaTeX source was before zoomrag had a reader for it).

Papers often reach a retriever as their sources (arXiv gives them). These come with Debian's TeX
documentation: the LaTeX team's guides for class writers, authors and fonts, the amsmath guide,
and the sample papers and author guides of ACM, AAS, MNRAS, Springer LNCS, PMLR and Elsevier:
sections, an abstract, verbatim examples, comments, macros and mathematics. The questions were
written from the sources as an author would ask them, each with a passage that answers it; no
rule of zoomrag was tuned on them. Evidence is found by its first and last words, so the set is
rebuilt from the packages' files.

    apt-get download texlive-latex-base-doc texlive-publishers-doc
    dpkg-deb -x texlive-latex-base-doc_*.deb x; dpkg-deb -x texlive-publishers-doc_*.deb x
    python bench/latex_set.py --source x/usr/share/doc/texlive-doc/latex
    python bench/quality.py --data bench/out/derived --datasets latex_papers,latex_papers_text --peers
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from heldout import cli, find, write_set

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/usr/share/doc/texlive-doc/latex")
OUT = ROOT / "out" / "derived" / "latex_papers"
#: name → file under the source folder (Debian compresses the larger ones)
FILES = {
    "clsguide": "base/clsguide.tex.gz", "usrguide": "base/usrguide.tex.gz", "fntguide": "base/fntguide.tex.gz",
    "amsldoc": "amsmath/amsldoc.tex.gz", "mnras_guide": "mnras/mnras_guide.tex.gz",
    "sample631": "aastex/sample631.tex.gz", "sample-sigconf": "acmart/samples/sample-sigconf.tex.gz",
    "llncsdoc": "llncs/llncsdoc.tex.gz", "pmlr-sample": "jmlr/pmlr-sample.tex.gz",
    "elsarticle-template-num": "elsarticle/elsarticle-template-num.tex.gz",
}

#: (question, file, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("How can my class build on the article class instead of being written from scratch?", "clsguide",
     "A \\LaTeX{} class can load one other class as follows:", "writing a new class from scratch."),
    ("What happens when someone passes my package an option it never declared, and can I make it a warning?",
     "clsguide", "Sometimes a user will request an option which the class", "Unknown option `foo'.}"),
    ("Should my new commands go into a document class or into a package?", "clsguide",
     "The rule of thumb is:", "then make them a class."),
    ("Can a command's optional argument contain another command with an optional argument?", "usrguide",
     "In contrast to commands created using", "\\foo[\\baz[stuff]]{more stuff}"),
    ("How do I check whether the optional argument was given to my command?", "usrguide",
     "tests are used to check if \\meta{argument}", "is given than if it is not present."),
    ("How can an environment get its whole body as an argument?", "usrguide",
     "This is achieved by ending the argument specification with~\\texttt{b}",
     "suppresses space-trimming."),
    ("Why use \\MakeUppercase instead of TeX's \\uppercase?", "usrguide",
     "provides two primitives \\cs{uppercase} and \\cs{lowercase}", "can be used in moving arguments."),
    ("Can I put text between \\fontseries and \\selectfont?", "fntguide",
     "There \\emph{must} be a |\\selectfont| command immediately",
     "|\\font<parameter>| command (or |\\linespread|) and a |\\selectfont|."),
    ("How do I load a Cyrillic font encoding together with T1?", "fntguide",
     "Users can select new font encodings using the |fontenc| package.", "\\usepackage[OT2,T1]{fontenc}"),
    ("Which font is used when font substitution itself fails?", "fntguide",
     "Declares \\m{encoding}\\m{family}\\m{series}\\m{shape} to be the font shape", "\\DeclareErrorFont{OT1}{cmr}{m}{n}{10}"),
    ("How do I choose the fonts for emphasis nested inside emphasis?", "fntguide",
     "This declaration takes a comma separated list of font declarations", "small capitals for the third level."),
    ("How do I number equations within sections, resetting the counter in each section?", "amsldoc",
     "This works pretty well, except that the equation counter won't be reset", "\\numberwithin{equation}{section}"),
    ("Which matrix environments come with their own delimiters?", "amsldoc",
     "The \\nipkg{amsmath} package provides some environments for", "by default you can have up to 10 centered columns."),
    ("How do I put a line of text between the lines of an align without losing the alignment?", "amsldoc",
     "The command \\cn{intertext} is used for a short interjection", "\\cn{\\\\} or \\cn{\\\\*} command."),
    ("How do I draw a box around an equation?", "amsldoc",
     "The command \\cn{boxed} puts a box around its", "\\boxed{\\eta \\leq C(\\delta(\\eta) +\\Lambda_M(0,\\delta))}"),
    ("How do I give the short author list for the page headers in MNRAS?", "mnras_guide",
     "Like the title, there are two forms of author list:", "correspond to the list of institutions below the author list."),
    ("Is there a word limit for the abstract in MNRAS?", "mnras_guide",
     "Note that there is a word limit on the length of abstracts.", "see the journal instructions to authors"),
    ("Where do appendices go in an MNRAS paper and how do I start one?", "mnras_guide",
     "To start an appendix, simply place the", "should be placed \\textit{after} the list of references."),
    ("How do I mark text I added or deleted for the referee in AASTeX?", "sample631",
     "The first method is through a new set of editing mark up commands", "must be used in the"),
    ("How should I cite software and data that live in a repository?", "sample631",
     "The AAS Journals would like to encourage authors to change software", "credit\nwill be given to the appropriate people."),
    ("Where do I get the rights commands for an ACM paper?", "sample-sigconf",
     "Authors of any work published by ACM will need to complete a rights", "add formatted text to several areas of the final"),
    ("How do I choose CCS concepts for my ACM paper?", "sample-sigconf",
     "The ACM Computing Classification System ---", "generate the\ncommands to be included in the \\LaTeX\\ source."),
    ("How do I add a figure that spans the page right under the author list?", "sample-sigconf",
     "A ``teaser figure'' is an image, or set of images in one figure", "\\end{teaserfigure}"),
    ("My paper is in French with English and German abstracts; how do I declare the languages?", "sample-sigconf",
     "Papers may be written in languages other than English", "main language of the paper."),
    ("The title is too long for the running head in LNCS; what do I do?", "llncsdoc",
     "If a long title does not fit in the", "\\titlerunning{<Your abbreviated contribution title>}"),
    ("How do I add my ORCID to a Springer LNCS paper?", "llncsdoc",
     "ORCID identifiers can be included with", "include it in their papers."),
)


def _read(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def build(src: Path, dest: Path) -> int:
    sources = {name: _read(src / path) for name, path in FILES.items()}
    found = [(q, name, *find(sources[name], first, last)) for q, name, first, last in QUESTIONS]
    write_set(dest, sources, "latex", found)
    write_set(dest.with_name(dest.name + "_text"), sources, "text", found)
    return len(found)


if __name__ == "__main__":
    sys.exit(cli(None, __doc__, SOURCE, OUT, FILES,
                 "apt-get download texlive-latex-base-doc texlive-publishers-doc and dpkg-deb -x them", build))
