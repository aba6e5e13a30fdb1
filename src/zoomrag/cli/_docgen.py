"""Keep the generated parts of docs/ in step with the code.

docs/cli.md and docs/strategies.md are written by hand, except for regions between
``<!-- generated: KIND NAME -->`` and ``<!-- /generated -->``, which this module renders:

- ``help chunk`` (or ``help`` for the group): the command's ``--help`` at a fixed width;
- ``params fixed``: a table of the strategy's parameters (name, type, default, meaning). The
  meaning column is the one hand-written part: it is kept across regeneration, and a new
  parameter gets ``TODO`` so that tests/test_docs.py fails until someone describes it.

A command or strategy with no region yet gets a new section appended to its page.

    python -m zoomrag.cli._docgen            # rewrite docs/cli.md and docs/strategies.md
    python -m zoomrag.cli._docgen --check    # exit 1 and name the files that are out of date
"""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner

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
    from . import load_commands, main

    load_commands()
    group = group or main
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
    from . import main

    result = CliRunner().invoke(main, [*path, "--help"], prog_name="zoomrag", terminal_width=HELP_WIDTH)
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


def update_cli_doc(text: str) -> str:
    text = _REGION.sub(lambda m: _render(m, {"help": lambda name, _: _help_body(name)}), text)
    present = {m["name"] or "" for m in _REGION.finditer(text) if m["kind"] == "help"}
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
    from ..parse.registry import strategy_class

    cls = strategy_class(name)
    if not dataclasses.is_dataclass(cls):
        return []
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
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
    from ..model import CONTENT_TYPES
    from ..parse.profiles import ANY, BUILTIN, parse_profile

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
    from ..parse import strategy_names

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


DOCS: dict[str, Callable[[str], str]] = {
    "docs/cli.md": update_cli_doc,
    "docs/strategies.md": update_strategies_doc,
}


def run(root: Path, check: bool) -> list[str]:
    """Regenerate every page under ``root``; return the pages that changed (or would)."""
    stale = []
    for rel, update in DOCS.items():
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        new = update(old)
        if new != old:
            stale.append(rel)
            if not check:
                path.write_text(new, encoding="utf-8")
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
