"""Sphinx's directives by what their body holds, for both the ways of writing them
(reStructuredText's ``.. note::``, MyST's ```` ```{note} ````): one vocabulary for the readers.
"""

from __future__ import annotations

__all__ = ["ADMONITIONS", "MARKUP", "NOT_CODE", "PROSE", "TITLED", "VERSIONS"]

#: Admonitions: read with their name as the lead (``Note:``).
ADMONITIONS = frozenset("attention caution danger error hint important note tip warning".split())
#: Boxes whose argument is their title (``{admonition} Why not argparse?``).
TITLED = frozenset("admonition topic sidebar rubric dropdown tab-item card grid-item-card margin".split())
#: Version notes: their lead, then the version given.
VERSIONS = {"versionadded": "New in version", "versionchanged": "Changed in version",
            "versionremoved": "Removed in version", "deprecated": "Deprecated since version"}
#: Directives whose body is text, tables or boxes of text.
PROSE = ADMONITIONS | TITLED | frozenset(VERSIONS) | frozenset("""
    seealso epigraph highlights pull-quote glossary tab tab-set tabs grid grid-item container only figure
    table list-table csv-table centered hlist compound
""".split())
#: Directives with nothing to read on the page they sit in.
MARKUP = frozenset("""
    contents toctree include literalinclude currentmodule module autofunction autoclass automodule
    autodata automethod autoattribute autoexception autoproperty autodecorator autosummary image
    towncrier-draft-entries tableofcontents program index highlight default-domain default-role
""".split())
#: Directives whose body is never code, whatever it looks like (formulas, raw output, grammars too).
NOT_CODE = PROSE | MARKUP | frozenset({"math", "raw", "productionlist"})
