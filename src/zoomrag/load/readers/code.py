"""Source code by file extension: the whole text is one ``code`` block tagged with its language.

Language names follow the common fence info strings (``python``, ``javascript``, ...), and
:func:`language_name` maps fence aliases (``py``, ``js``, ``sh``) onto them, so a Python file and
a ```` ```py ```` fence in markdown both reach the code strategy as ``python``.
"""

from __future__ import annotations

from pathlib import PurePath
from types import MappingProxyType

from ...model import Block, Document
from ..spans import trim

#: Extension -> language.
LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescript",
    ".java": "java", ".go": "go", ".rs": "rust",
    ".c": "c", ".h": "c",
    ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell",
    ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".scala": "scala", ".sql": "sql",
    ".lua": "lua", ".pl": "perl", ".pm": "perl", ".r": "r", ".dart": "dart", ".jl": "julia",
    ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".clj": "clojure",
    ".ml": "ocaml", ".fs": "fsharp", ".zig": "zig", ".nim": "nim", ".ps1": "powershell",
    ".m": "objectivec", ".mm": "objectivec", ".vb": "vbnet", ".groovy": "groovy",
    ".mk": "makefile", ".dockerfile": "dockerfile", ".cmake": "cmake", ".tf": "hcl", ".hcl": "hcl",
    ".proto": "protobuf", ".graphql": "graphql", ".graphqls": "graphql", ".gql": "graphql", ".css": "css", ".scss": "scss", ".gradle": "groovy", ".xsl": "xslt", ".xslt": "xslt",
}

#: Files named for their job rather than by an extension -> language.
FILE_NAMES: dict[str, str] = {
    "Makefile": "makefile", "makefile": "makefile", "GNUmakefile": "makefile",
    "Dockerfile": "dockerfile", "Containerfile": "dockerfile", "CMakeLists.txt": "cmake",
    "Jenkinsfile": "groovy", "Vagrantfile": "ruby", "Gemfile": "ruby", "Rakefile": "ruby",
    "go.mod": "gomod", "go.work": "gomod",  # a Go module's requirements, not prose
}

#: Fence info strings and other spellings -> the names above.
_ALIASES: dict[str, str] = {
    "py": "python", "python3": "python", "py3": "python",
    "js": "javascript", "node": "javascript", "jsx": "javascript",
    "ts": "typescript", "tsx": "typescript",
    "golang": "go", "rs": "rust", "c++": "cpp", "cxx": "cpp", "hpp": "cpp",
    "cs": "csharp", "c#": "csharp", "rb": "ruby",
    "sh": "shell", "bash": "shell", "zsh": "shell", "console": "shell", "shell-session": "shell",
    "kt": "kotlin", "objc": "objectivec", "objective-c": "objectivec", "ps": "powershell",
    "ps1": "powershell", "pwsh": "powershell", "make": "makefile", "mk": "makefile",
    "docker": "dockerfile", "terraform": "hcl", "tf": "hcl", "yml": "yaml",
}


def language_name(name: str) -> str:
    """A language or fence alias in canonical form (``"Py"`` -> ``"python"``); unknown names are
    returned lower-cased, empty stays empty."""
    low = name.strip().lower()
    return _ALIASES.get(low, low)


def read_code(text: str, *, doc_id: str, source: str, language: str = "") -> Document:
    """The language is ``language``, else from the source's name or extension (empty when
    unknown, e.g. ``<text>``)."""
    path = PurePath(source)
    language = language or FILE_NAMES.get(path.name) or LANGUAGES.get(path.suffix.lower(), "")
    # One block from the first non-blank line's start (keeping its indentation) to the last
    # non-whitespace character: the code strategy finds the definitions inside it.
    s, e = trim(text, 0, len(text))
    meta = MappingProxyType({"language": language})
    blocks = (Block(text.rfind("\n", 0, s) + 1, e, "code", meta=meta),) if s < e else ()
    return Document(id=doc_id, source=source, text=text, format="code", metadata=meta, blocks=blocks)


