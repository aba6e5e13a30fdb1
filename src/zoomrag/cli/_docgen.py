"""Keep the generated parts of docs/ in step with the code.

docs/cli.md, docs/cli-evaluation.md and docs/strategies.md are written by hand, except for regions between
``<!-- generated: KIND NAME -->`` and ``<!-- /generated -->``, which this module renders:

- ``help chunk`` (or ``help`` for the group): the command's ``--help`` at a fixed width;
- ``params fixed``: a table of the strategy's parameters (name, type, default, meaning). The
  meaning column is the one hand-written part: it is kept across regeneration, and a new
  parameter gets ``TODO`` so that tests/test_docs.py fails until someone describes it.

A command with no region on either CLI page gets a new section appended to docs/cli.md, a
strategy with none one appended to docs/strategies.md.

    python -m zoomrag.cli._docgen            # rewrite the CLI pages and docs/strategies.md
    python -m zoomrag.cli._docgen --check    # exit 1 and name the files that are out of date
"""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from collections.abc import Callable, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner

from ..model import CONTENT_TYPES
from ..parse import strategy_names
from ..parse.profiles import ANY, BUILTIN, parse_profile
from ..parse.registry import strategy_class
from ..registry import user_fields
from . import load_commands
from . import main as zoomrag_cli

#: Help is rendered at this width so the reference does not depend on the terminal.
HELP_WIDTH = 88
TODO = "TODO: describe"

_REGION = re.compile(
    r"<!-- generated: (?P<kind>\w+)(?: (?P<name>[\w-]+))? -->\n(?P<body>.*?)<!-- /generated -->",
    re.DOTALL,
)
_ROW = re.compile(r"^\| `(?P<name>[^`]+)` \| .*? \| .*? \| (?P<meaning>.*) \|$")


# -- cli.md --------------------------------------------------------------------------------
def command_paths(group: click.Group | None = None) -> list[tuple[str, ...]]:
    """``()`` for the group itself, then every (sub)command, sorted by name."""
    load_commands()
    group = group or zoomrag_cli
    out: list[tuple[str, ...]] = [()]
    for name in sorted(group.commands):
        cmd = group.commands[name]
        if isinstance(cmd, click.Group):
            out.extend((name, *p) for p in command_paths(cmd))
        else:
            out.append((name,))
    return out


def command_help(path: tuple[str, ...]) -> str:
    """What ``zoomrag PATH --help`` prints at :data:`HELP_WIDTH` columns."""
    result = CliRunner().invoke(zoomrag_cli, [*path, "--help"], prog_name="zoomrag", terminal_width=HELP_WIDTH)
    if result.exit_code != 0:
        raise RuntimeError(f"zoomrag {' '.join(path)} --help failed: {result.output}")
    return result.output


def _help_body(name: str) -> str:
    path = tuple(name.split("-")) if name else ()
    return f"```text\n{command_help(path)}```\n"


def _help_section(path: tuple[str, ...]) -> str:
    key = "-".join(path)
    title = " ".join(("zoomrag", *path))
    return f"\n## `{title}`\n\n<!-- generated: help {key} -->\n{_help_body(key)}<!-- /generated -->\n"


#: The CLI reference pages; a command documented on none gets its section on the first.
CLI_PAGES = ("docs/cli.md", "docs/cli-evaluation.md")


def help_names(text: str) -> set[str]:
    """The commands a page holds a help region for."""
    return {m["name"] or "" for m in _REGION.finditer(text) if m["kind"] == "help"}


def update_cli_doc(text: str, elsewhere: Set[str] = frozenset()) -> str:
    """``text`` with its help regions rendered, and a section appended for every command that
    has a region neither here nor ``elsewhere``."""
    text = _REGION.sub(lambda m: _render(m, {"help": lambda name, _: _help_body(name)}), text)
    present = help_names(text) | elsewhere
    for path in command_paths():
        if "-".join(path) not in present:
            text = text.rstrip("\n") + "\n" + _help_section(path)
    return text


# -- strategies.md -------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: str


def strategy_params(name: str) -> list[Param]:
    """The constructor parameters of a registered strategy, defaults written as for ``--set``."""
    cls = strategy_class(name)
    if not dataclasses.is_dataclass(cls):
        return []
    hints = typing.get_type_hints(cls)
    out = []
    for f in user_fields(cls):
        if f.default is not dataclasses.MISSING:
            default = cli_value(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            default = cli_value(f.default_factory())
        else:
            default = "required"
        out.append(Param(f.name, _type_name(hints.get(f.name, Any)), default))
    return out


def cli_value(value: Any) -> str:
    """A value as one would write it after ``--set key=``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ",".join(cli_value(v) for v in value) or '""'
    return str(value) or '""'


def _type_name(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "")


def _params_body(name: str, old_body: str) -> str:
    params = strategy_params(name)
    if not params:
        return "No parameters.\n"
    meanings = {m["name"]: m["meaning"] for m in map(_ROW.match, old_body.splitlines()) if m}
    rows = ["| parameter | type | default | meaning |", "| --- | --- | --- | --- |"]
    for p in params:
        meaning = meanings.get(p.name, TODO)
        rows.append(f"| `{p.name}` | {p.type.replace('|', '&#124;')} | `{p.default}` | {meaning} |")
    return "\n".join(rows) + "\n"


def _params_section(name: str) -> str:
    return (f"\n## `{name}`\n\n{TODO}: what it does and when to use it.\n\n"
            f"<!-- generated: params {name} -->\n{_params_body(name, '')}<!-- /generated -->\n")


def _profiles_body(_name: str, _old: str) -> str:
    """The built-in profiles: which strategy each content type gets."""
    rows = ["| profile | " + " | ".join(CONTENT_TYPES) + " | what it is for |",
            "| --- |" + " --- |" * (len(CONTENT_TYPES) + 1)]
    for name in sorted(BUILTIN):
        profile = parse_profile(name, BUILTIN[name], "built-in")
        cells = []
        for ctype in CONTENT_TYPES:
            route = profile.route(ctype)
            args = ", ".join(f"{k}={cli_value(v)}" for k, v in route.params.items())
            explicit = ctype in profile.routes or ANY in profile.routes
            shown = f"`{route.strategy}{f' {args}' if args else ''}`"
            cells.append(shown if explicit else f"{shown} (as text)")
        rows.append(f"| `{name}` | " + " | ".join(cells) + f" | {profile.description} |")
    return "\n".join(rows) + "\n"


def update_strategies_doc(text: str) -> str:
    text = _REGION.sub(lambda m: _render(m, {"params": _params_body, "profiles": _profiles_body}), text)
    present = {m["name"] for m in _REGION.finditer(text) if m["kind"] == "params"}
    for name in strategy_names():
        if name not in present:
            text = text.rstrip("\n") + "\n" + _params_section(name)
    return text


# -- shared --------------------------------------------------------------------------------
def _render(m: re.Match[str], renderers: dict[str, Callable[[str, str], str]]) -> str:
    render = renderers.get(m["kind"])
    if render is None:
        return m.group(0)
    name = m["name"] or ""
    return f"<!-- generated: {m['kind']}{' ' + name if name else ''} -->\n{render(name, m['body'])}<!-- /generated -->"


def run(root: Path, check: bool) -> list[str]:
    """Regenerate every page under ``root``; return the pages that changed (or would)."""
    pages = {rel: (root / rel).read_text(encoding="utf-8") if (root / rel).exists() else ""
             for rel in (*CLI_PAGES, "docs/strategies.md")}
    new = {"docs/strategies.md": update_strategies_doc(pages["docs/strategies.md"])}
    for rel in CLI_PAGES:
        # the first CLI page takes the commands no page holds; the others render what they hold
        others = ({"-".join(p) for p in command_paths()} if rel != CLI_PAGES[0] else
                  set().union(*(help_names(pages[o]) for o in CLI_PAGES if o != rel)))
        new[rel] = update_cli_doc(pages[rel], others)
    stale = [rel for rel in pages if new[rel] != pages[rel]]
    if not check:
        for rel in stale:
            (root / rel).write_text(new[rel], encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    root = Path(__file__).resolve().parents[3]
    stale = run(root, check)
    for rel in stale:
        print(f"{rel}: {'out of date' if check else 'rewritten'}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
