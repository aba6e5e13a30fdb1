"""Build a held-out set of contracts: eight software licences, with 26 questions and their evidence.

No contract is in ../shared/data. Licences are contracts in plain text, and every Debian system
has them in /usr/share/common-licenses: numbered clauses with and without titles, run-in titles
(Apache's ``2. Grant of Copyright License. Subject to…``), definitions, and near-copies of one
another (GPL-2, GPL-3, LGPL-2.1 and the GFDL share whole paragraphs), which a retriever must
tell apart. The questions were written from the licences themselves, each with a passage that
answers it; no rule of zoomrag was tuned on them. Evidence is found by its first and last words
(white space between words may differ), so the set is rebuilt from the system's files.

    python bench/licence_set.py                 # writes bench/out/derived/licences
    python bench/quality.py --data bench/out/derived --datasets licences --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import cli, find, write_set

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/usr/share/common-licenses")
OUT = ROOT / "out" / "derived" / "licences"
FILES = ("Apache-2.0", "Artistic", "CC0-1.0", "GFDL-1.3", "GPL-2", "GPL-3", "LGPL-2.1", "MPL-2.0")

#: (question, file, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("What does it mean to convey a work under the GPL version 3?", "GPL-3",
     'To "convey" a work means', "is not conveying."),
    ("Which parts of a program are the System Libraries under GPLv3?", "GPL-3",
     'The "System Libraries" of an executable work', "available to the public in source code form."),
    ("Can I make a product that runs GPLv3 software but refuses modified versions (tivoization)?", "GPL-3",
     "If you convey an object code work under this section in, or with, or", "been installed in ROM)."),
    ("What happens if I stop violating GPLv3 after my license was terminated?", "GPL-3",
     "However, if you cease all violation of this License, then your", "prior to 60 days after the cessation."),
    ("Do I need to accept the GPL just to run a copy of the program?", "GPL-3",
     "You are not required to accept this License in order to receive or", "run a copy of the Program."),
    ("Can I combine GPLv3 code with code under the Affero GPL?", "GPL-3",
     "Notwithstanding any other provision of this License, you have", "combination as such."),
    ("What additional terms may I add to GPLv3 code I contribute?", "GPL-3",
     "a) Disclaiming warranty or limiting liability differently", "those licensors and authors."),
    ("What notices should I put at the top of each source file to apply the GPL?", "GPL-3",
     "<one line to give the program's name and a brief idea of what it does.>",
     "along with this program.  If not, see <https://www.gnu.org/licenses/>."),
    ("Under GPLv2, how may I distribute the program in object code form without the source?", "GPL-2",
     "a) Accompany it with the complete corresponding machine-readable",
     "customarily used for software interchange; or,"),
    ("What does GPL version 2 say about warranty?", "GPL-2",
     "BECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE, THERE IS NO WARRANTY",
     "ALL NECESSARY SERVICING, REPAIR OR CORRECTION."),
    ("What is a work that uses the Library under the LGPL 2.1?", "LGPL-2.1",
     "A program that contains no derivative of any portion of the", 'is called a "work that uses the Library".'),
    ("How can I link a proprietary program with an LGPL library?", "LGPL-2.1",
     "As an exception to the Sections above, you may also combine or",
     "reverse engineering for debugging such modifications."),
    ("What is a Derivative Work under the Apache License?", "Apache-2.0",
     '"Derivative Works" shall mean any work', "the Work and Derivative Works thereof."),
    ("What must I do with the NOTICE file when I redistribute Apache-licensed code?", "Apache-2.0",
     '(d) If the Work includes a "NOTICE" text file', "as modifying the License."),
    ("Does the Apache License let me use the licensor's trademarks?", "Apache-2.0",
     "6. Trademarks. This License does not grant permission to use the trade",
     "reproducing the content of the NOTICE file."),
    ("Under Apache 2.0, are contributions I submit licensed under the same terms?", "Apache-2.0",
     "5. Submission of Contributions. Unless You explicitly state otherwise,",
     "with Licensor regarding such Contributions."),
    ("What is the Source Code Form under the Mozilla Public License?", "MPL-2.0",
     '"Source Code Form"', "means the form of the work preferred for making modifications."),
    ("Can I distribute MPL-covered code in executable form under a different license?", "MPL-2.0",
     "(b) You may distribute such Executable Form under the terms of this",
     "recipients' rights in the Source Code Form under this License."),
    ("Can I combine MPL code into a larger work under another license?", "MPL-2.0",
     "You may create and distribute a Larger Work under terms of Your choice,",
     "Larger Work may, at their option, further distribute the Covered"),
    ("How long does a contributor have to notify me before the MPL rights terminate for good?", "MPL-2.0",
     "5.1. The rights granted under this License will terminate automatically", "notice."),
    ("Which court has jurisdiction over MPL litigation?", "MPL-2.0",
     "Any litigation relating to this License may be brought only in the", "conflict-of-law provisions."),
    ("What is an Invariant Section in the GNU Free Documentation License?", "GFDL-1.3",
     'The "Invariant Sections" are certain Secondary Sections', "then there are none."),
    ("When must printed copies of a GFDL document carry the Cover Texts on their covers?", "GFDL-1.3",
     "If you publish printed copies (or copies in media that commonly have", "you as the publisher of these copies."),
    ("What happens if the CC0 waiver is found invalid?", "CC0-1.0",
     "Should any part of the Waiver for any reason be judged legally invalid",
     "Affirmer's express Statement of Purpose."),
    ("Can I charge a fee for distributing a Package under the Artistic License?", "Artistic",
     "5. You may charge a reasonable copying fee", "Package as a product of your own."),
    ("Is the name of the Copyright Holder allowed in advertising under the Artistic License?", "Artistic",
     "9. The name of the Copyright Holder may not be used", "without specific prior written permission."),
)


def build(source: Path, out: Path) -> int:
    # read as zoomrag reads a text file: universal newlines
    texts = {name: (source / name).read_text(encoding="utf-8") for name in FILES}
    write_set(out, texts, "text", [(q, name, *find(texts[name], first, last))
                                   for q, name, first, last in QUESTIONS])
    return len(QUESTIONS)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, __doc__, SOURCE, OUT, {n: n for n in FILES}, "on Debian they come with the base-files package", build)


if __name__ == "__main__":
    sys.exit(main())
