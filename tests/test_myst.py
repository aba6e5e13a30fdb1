"""MyST (the Markdown Sphinx reads): directives as blocks of what they hold, and a unit's
embedded text, a title, as the built page reads — notes with their lead, roles as their text,
tables of contents and target labels as nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.load import read_text
from zoomrag.parse.titles import clean_title
from zoomrag.text import myst, roles
from zoomrag.text.markup import as_read

PAGE = """\
(options)=

# Options

```{eval-rst}
.. currentmodule:: click
```

Use the {func}`option` decorator; see {ref}`the prompts <prompts>`.

```{contents}
:depth: 2
:local: true
```

## Required

```{code-block} python
@click.option("--name", required=True)
```

```{note}
A flag is never required.
```

```{versionadded} 8.0
```

```{admonition} Why not argparse?
:class: tip

It cannot nest commands.
```

```{eval-rst}
.. click:example::

    @click.command()
    def hello():
        pass
```
"""


def _blocks(text: str) -> list[tuple[str, str, dict]]:
    doc = read_text(text, format="markdown")
    return [(b.type, doc.text[b.start:b.end].split("\n")[0], dict(b.meta)) for b in doc.blocks]


def test_directives_are_blocks_of_what_they_hold():
    assert _blocks(PAGE) == [
        ("heading", "# Options", {}),
        ("text", "Use the {func}`option` decorator; see {ref}`the prompts <prompts>`.", {}),
        ("heading", "## Required", {}),
        ("code", "```{code-block} python", {"language": "python", "info": "{code-block} python"}),
        ("text", "```{note}", {"directive": "note"}),
        ("text", "```{versionadded} 8.0", {"directive": "versionadded"}),
        ("text", "```{admonition} Why not argparse?", {"directive": "admonition"}),
        ("code", "```{eval-rst}", {"language": "", "info": "{eval-rst}"}),
    ]


def test_a_plain_fence_is_still_code_of_its_language():
    assert _blocks("```python\nx = 1\n```\n") == [("code", "```python", {"language": "python", "info": "python"})]


def test_units_read_as_the_built_page():
    assert as_read("Use the {func}`option` decorator; see {ref}`the prompts <prompts>` and "
                   "{meth}`~Context.invoke`.") == "Use the option decorator; see the prompts and Context.invoke."
    assert as_read("```{note}\nA flag is never required.\n```\n") == "Note:\nA flag is never required.\n"
    assert as_read("Before.\n\n```{versionadded} 8.0\n```\n") == "Before.\n\nNew in version 8.0.\n"
    assert as_read("```{admonition} Why not argparse?\n:class: tip\n\nIt cannot nest commands.\n```") == (
        "Why not argparse?\nIt cannot nest commands.")
    assert as_read("(options)=\n\n# Options\n\n```{contents}\n:depth: 2\n```\n\nText.") == "\n\n# Options\n\n\nText."
    assert as_read("```{eval-rst}\n.. currentmodule:: click\n```\n\nText.") == "\nText."
    code = "```{code-block} python\nx = {func}`f`\n```\n"
    assert as_read(code) == code  # code keeps what it says
    assert as_read("```{contents}\n:depth: 2\n```") == "```{contents}\n:depth: 2\n```"  # nothing else: kept


def test_roles_of_both_syntaxes_read_as_their_text():
    assert roles.as_text(":func:`json.dumps` and {py:meth}`!Path.glob` or :ref:`the guide <guide>`") == (
        "json.dumps and Path.glob or the guide")
    assert clean_title("The {class}`File` type") == "The File type"
    assert roles.as_text("`code` stays") == "`code` stays"


def test_directive_kinds():
    assert myst.kind("python") is None and myst.kind("") is None
    assert myst.kind("{warning}") == "prose" and myst.kind("{py:currentmodule} x") == "markup"
    assert myst.kind("{mermaid}") == "code"  # not known: as a fence is
    assert myst.kind("{eval-rst}", ".. autoclass:: Context\n   :members:\n") == "markup"
    assert myst.kind("{eval-rst}", ".. click:example::\n\n    x = 1\n") == "code"
    assert myst.code_language("{doctest}") == "python" and myst.code_language("{code-cell} ipython3") == "ipython3"


_PIECES = st.sampled_from(["```{note}", "```", "````{warning}", "````", ":class: tip", "(x)=", "{func}`f`",
                           "{ref}`a <b>`", "text.", "\n", " ", "```{versionadded} 1.0", "```python"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("\n".join))
def test_reading_keeps_every_sentence_and_never_empties_a_unit(text):
    read = as_read(text)
    assert read.strip() or not text.strip()
    assert read.count("text.") == text.count("text.")  # markup goes, words stay
    assert read.count("{func}`") <= text.count("{func}`")
