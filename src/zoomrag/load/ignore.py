"""Which files a folder walk leaves out: the ``.gitignore`` files over and in the folder, and
the user's include and exclude patterns, all in gitignore syntax (read by pathspec).

A codebase's ``build/``, ``dist/``, ``site/`` and virtual environments hold copies of its
sources and thousands of files nobody asks about; git's own rules already name them, so a walk
follows them as git does (a folder left out is not entered, a deeper ``.gitignore`` overrides
the ones above it, ``!pattern`` takes a file back) and says what it left out and by which rule.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["FileRules", "FolderRules"]

GITIGNORE = ".gitignore"
#: A larger ``.gitignore`` is not read (real ones are a few kB; each pattern is tried on each path).
MAX_GITIGNORE = 100_000


@dataclass(frozen=True)
class FileRules:
    """Which of the files found by walking a folder are read (a file named on its own always is).

    Patterns are gitignore's, relative to the folder given: ``*.csv`` at any depth, ``/notes.md``
    at the top only, ``drafts/`` a folder and all in it, ``!keep.csv`` takes a file back. A file
    is read when no ``.gitignore`` leaves it out (with ``gitignore``), no ``exclude`` pattern
    matches it and, when ``include`` is given, one of its patterns does. Hidden files and folders
    (``.github/``) are read only with ``hidden``; a repository's ``.git`` never is. Pictures
    (PNG, JPEG, …) are read, by OCR, only with ``pictures``.
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    hidden: bool = False
    pictures: bool = False

    def __post_init__(self) -> None:
        for what, patterns in (("include", self.include), ("exclude", self.exclude)):
            if not isinstance(patterns, tuple) or not all(isinstance(p, str) for p in patterns):
                raise ConfigError(f"{what}={patterns!r}: give a tuple of patterns, e.g. {what}=('*.md',), "
                                  "or use FileRules.of")
            _user_spec(patterns, what)

    @classmethod
    def of(cls, include: Iterable[str] | str = (), exclude: Iterable[str] | str = (),
           gitignore: bool = True, hidden: bool = False, pictures: bool = False) -> FileRules:
        """The rules from a pattern or patterns each (``exclude="*.csv"`` is one pattern)."""
        return cls(_tuple(include, "include"), _tuple(exclude, "exclude"), gitignore, hidden, pictures)

    def path_left_out(self, rel: str) -> str | None:
        """Why the include and exclude patterns leave out the path ``rel`` (relative to what was
        given, its folders parted by ``/``: a web page's), or None; the folders above it count as
        the walk's do. A folder's own page (``guide/``) is its ``index.html``, as a server
        answers it. No ``.gitignore`` applies."""
        if not rel.strip("/"):
            return None  # the page of what was given itself
        parts = (rel + "index.html" if rel.endswith("/") else rel).strip("/").split("/")
        paths = [("/".join(parts[:i]), True) for i in range(1, len(parts))]
        paths.append(("/".join(parts), False))
        if self.exclude:
            exclude = _Layer(_user_spec(self.exclude, "exclude"), "exclude")
            if any(exclude.check(p, is_dir) for p, is_dir in paths):
                return _matched("an exclude pattern", self.exclude)
        if self.include:
            include = _Layer(_user_spec(self.include, "include"), "include")
            if not any(include.check(p, is_dir) for p, is_dir in paths):
                return _matched("no include pattern", self.include)
        return None


def _matched(what: str, patterns: tuple[str, ...]) -> str:
    return f"matches {what} ({', '.join(patterns)})"


def _tuple(patterns: Iterable[str] | str, what: str) -> tuple[str, ...]:
    found = (patterns,) if isinstance(patterns, str) else tuple(patterns)
    if not all(isinstance(p, str) for p in found):
        raise ConfigError(f"{what}={patterns!r}: patterns are strings, e.g. {what}=['*.md']")
    return found


@lru_cache(maxsize=64)
def _user_spec(patterns: tuple[str, ...], what: str) -> GitIgnoreSpec:
    import pathspec  # only a walk of a folder needs it

    for p in patterns:
        if not p.strip() or p.lstrip().startswith("#"):
            raise ConfigError(f"{what} pattern {p!r} matches nothing; give a pattern such as '*.md' or 'drafts/'")
    try:
        return pathspec.GitIgnoreSpec.from_lines(patterns)
    except ValueError as e:
        raise ConfigError(f"{what} pattern: {e}; write it as in a .gitignore file, e.g. '*.md' or 'drafts/'") from None


#: The group pathspec's regexes mark a match by a folder with (``build/`` in ``build/x``).
_DIR_MARK = "ps_d"


@dataclass(frozen=True)
class _Layer:
    """One ``.gitignore`` (or the user's patterns): the path relative to its folder is
    ``prefix`` + the walk-relative path without ``strip``."""

    spec: GitIgnoreSpec
    label: str
    prefix: str = ""
    strip: str = ""

    def check(self, rel: str, is_dir: bool) -> bool | None:
        """Whether the last pattern of this layer that matches the path itself (not a folder
        above it: the walk does not enter a folder left out) is a pattern (True) or a
        ``!pattern`` (False); None when none does. As git matches: ``build/`` matches a folder
        only, ``docs/**`` what is inside ``docs`` but not ``docs``."""
        key = self.prefix + rel[len(self.strip):]
        verdict = None
        for pattern in self.spec.patterns:
            if pattern.include is not None and pattern.regex is not None and _matches(pattern.regex, key, is_dir):
                verdict = bool(pattern.include)
        return verdict


def _matches(regex: re.Pattern[str], key: str, is_dir: bool) -> bool:
    m = regex.search(key)
    if m is not None and not m.groupdict().get(_DIR_MARK):
        return True  # the whole path, not a folder above it
    if is_dir:  # a folder pattern (``build/``) ending where the folder does
        end = len(key) + 1
        return any(m.groupdict().get(_DIR_MARK) and m.end(_DIR_MARK) == end for m in regex.finditer(key + "/"))
    return False


class FolderRules:
    """The rules of one walk from ``root``: fed each folder as the walk enters it (top down), it
    says why a file or folder in it is left out, or None."""

    def __init__(self, root: Path, rules: FileRules) -> None:
        self.rules = rules
        self.exclude = _Layer(_user_spec(rules.exclude, "exclude"), "exclude") if rules.exclude else None
        self.include = _Layer(_user_spec(rules.include, "include"), "include") if rules.include else None
        self._chains: dict[str, list[_Layer]] = {"": _outer_layers(root) if rules.gitignore else []}

    def enter(self, rel_dir: str, folder: Path, filenames: Iterable[str]) -> None:
        """Take in the folder ``rel_dir`` (``""``: the root) before its entries are asked about."""
        chain = list(self._chains.get(rel_dir.rpartition("/")[0], []))
        if self.rules.gitignore and GITIGNORE in filenames:
            spec = _read_gitignore(folder / GITIGNORE)
            if spec is not None:
                where = f"{rel_dir}/{GITIGNORE}" if rel_dir else GITIGNORE
                chain.append(_Layer(spec, where, strip=f"{rel_dir}/" if rel_dir else ""))
        self._chains[rel_dir] = chain

    def folder_left_out(self, rel_dir: str, rel: str) -> str | None:
        return self._why(rel_dir, rel, is_dir=True)

    def file_left_out(self, rel_dir: str, rel: str) -> str | None:
        why = self._why(rel_dir, rel, is_dir=False)
        if why is None and self.include is not None:
            if not self.include.check(rel, False):  # no pattern, or a !pattern, matched
                return _matched("no include pattern", self.rules.include)
        return why

    def _why(self, rel_dir: str, rel: str, is_dir: bool) -> str | None:
        decided: _Layer | None = None
        for layer in self._chains.get(rel_dir, []):
            matched = layer.check(rel, is_dir)
            if matched is not None:  # a deeper file's verdict overrides those above it
                decided = layer if matched else None
        if decided is not None:
            return f"ignored by {decided.label} (read with --no-gitignore)"
        if self.exclude is not None and self.exclude.check(rel, is_dir):
            return _matched("an exclude pattern", self.rules.exclude)
        return None


def _read_gitignore(path: Path) -> GitIgnoreSpec | None:
    """The patterns of a ``.gitignore``; lines git would not take (a trailing backslash) are
    passed over as git passes them. One that is unreadable, no regular file (a link to a device)
    or over :data:`MAX_GITIGNORE` leaves nothing out: more is read, nothing lost."""
    import pathspec

    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_GITIGNORE:
            return None
        lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    except OSError:  # missing (no .git/info/exclude) or unreadable
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:
        kept = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except ValueError:
                continue
            kept.append(line)
        return pathspec.GitIgnoreSpec.from_lines(kept)


def _outer_layers(root: Path) -> list[_Layer]:
    """The ``.gitignore`` files above ``root`` up to its repository's top (the folder holding
    ``.git``), and the repository's ``.git/info/exclude``: git applies them to ``root``'s files
    too. Outside a repository there are none."""
    try:
        start = root.resolve()
    except (OSError, RuntimeError):
        return []
    above = [start, *start.parents]
    top = next((i for i, d in enumerate(above) if (d / ".git").exists()), None)
    if top is None:
        return []
    layers: list[_Layer] = []
    for i in range(top, -1, -1):  # the repository's top first: deeper files override it
        folder = above[i]
        prefix = start.relative_to(folder).as_posix() + "/" if i else ""
        sources = [folder / ".git" / "info" / "exclude"] if i == top else []
        if i:  # root's own .gitignore is read by the walk
            sources.append(folder / GITIGNORE)
        for source in sources:
            spec = _read_gitignore(source)
            if spec is not None:
                layers.append(_Layer(spec, os.path.relpath(source, start), prefix=prefix))
    return layers
