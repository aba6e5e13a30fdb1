"""Build a held-out set of source code: Black 24.10.0's own modules (file discovery, the cache,
string and comment normalisation, parallel formatting, the report, the blackd server and, as
the rest of a codebase to search, its line generator, string transformers, nodes and CLI) with
26 questions and their evidence: the lines of the function that answers each.

A codebase's questions ask where and how something is done. The questions were written from the
code as a contributor would ask them, mostly without the names the code uses; no rule of zoomrag
was tuned on them. Evidence is found by its first and last words, so the set is rebuilt from the
released source archive.

    pip download --no-deps --no-binary :all: black==24.10.0 -d x; tar -xzf x/black-24.10.0.tar.gz -C x
    python bench/code_set.py --source x
    python bench/quality.py --data bench/out/derived --datasets code_black --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import cli, find, write_set

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/config-sources")
OUT = ROOT / "out" / "derived" / "code_black"
_S = "black-24.10.0/src/"
#: document id (the file's path, so the code reader names its language) → file under the source
FILES = {p: p for p in (
    *(f"{_S}black/{m}.py" for m in ("files", "cache", "strings", "comments", "concurrency", "report", "mode",
                                    "parsing", "brackets", "nodes", "lines", "linegen", "trans", "__init__")),
    f"{_S}blackd/__init__.py",
)}
_F, _C, _ST, _CM = _S + "black/files.py", _S + "black/cache.py", _S + "black/strings.py", _S + "black/comments.py"
_CO, _R, _D = _S + "black/concurrency.py", _S + "black/report.py", _S + "blackd/__init__.py"

#: (question, file, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("How does Black decide which directory is the project root?", _F,
     "for directory in (common_base, *common_base.parents):", 'return directory, "file system root"'),
    ("Is a pyproject.toml without a [tool.black] table used to find the project root?", _F,
     'if (directory / "pyproject.toml").is_file():', 'return directory, "pyproject.toml"'),
    ("Where is the user-level configuration file looked for on Linux and on Windows?", _F,
     'if sys.platform == "win32":', 'user_config_path = Path(config_root).expanduser() / "black"'),
    ("How are option names from pyproject.toml turned into keyword names?", _F,
     'config: dict[str, Any] = pyproject_toml.get("tool", {}).get("black", {})',
     'config = {k.replace("--", "").replace("-", "_"): v for k, v in config.items()}'),
    ("How is the target version guessed from requires-python?", _F,
     'project_metadata = pyproject_toml.get("project", {})', "return None"),
    ("What happens when the .gitignore file cannot be parsed?", _F,
     "except GitWildMatchPatternError as e:", "raise"),
    ("Can the cache directory be moved with an environment variable?", _C,
     "default_cache_dir = user_cache_dir(\"black\")", "return cache_dir"),
    ("How does the cache tell that a file changed since the last run?", _C,
     "res_src = source.resolve()", "return False"),
    ("What is done with a cache file that cannot be unpickled?", _C,
     'with cache_file.open("rb") as fobj:', "return cls(mode, cache_file)"),
    ("Which hash is stored for each formatted file?", _C,
     "data = path.read_bytes()", "return hashlib.sha256(data).hexdigest()"),
    ("How is the cache written without leaving a half-written file?", _C,
     "CACHE_DIR.mkdir(parents=True, exist_ok=True)", "os.replace(f.name, self.cache_file)"),
    ("How are tabs at the start of docstring lines handled?", _ST,
     "def lines_with_leading_tabs_expanded(s: str) -> list[str]:", "return lines"),
    ("How is the common indentation removed from a docstring?", _ST,
     "# Determine minimum indentation (first line doesn't count):", 'return "\\n".join(trimmed)'),
    ("How is the prefix of a string literal such as rb or f found?", _ST,
     'prefix = ""\n    prefix_idx = 0', "return prefix"),
    ("Why are some comments not given a space after the hash sign?", _CM,
     'All comments (except for "##", "#!", "#:", \'#\'") should have a single', 'return "#" + content'),
    ("What replaces a non-breaking space at the start of a comment?", _CM,
     "NON_BREAKING_SPACE = \" \"", 'content = " " + content[1:]  # Replace NBSP by a simple space'),
    ("How many worker processes format files in parallel by default?", _CO,
     "if workers is None:", "workers = min(workers, 60)"),
    ("What happens when the system cannot start worker processes?", _CO,
     "except (ImportError, NotImplementedError, OSError):", "executor = ThreadPoolExecutor(max_workers=1)"),
    ("How are pending tasks cancelled when formatting is aborted?", _CO,
     "to_cancel = [task for task in asyncio.all_tasks(loop) if not task.done()]",
     "loop.run_until_complete(asyncio.gather(*to_cancel, return_exceptions=True))"),
    ("Which exit code does Black return when a file failed to format?", _R,
     "if self.failure_count:", "return 123"),
    ("What does Black print for a file it reformatted in check mode?", _R,
     "if changed is Changed.YES:", "self.change_count += 1"),
    ("What does blackd answer when the line length header is not a number?", _D,
     "line_length = int(headers.get(LINE_LENGTH_HEADER, black.DEFAULT_LINE_LENGTH))",
     'raise HeaderError("Invalid line length header value") from None'),
    ("Which protocol versions does the blackd server accept?", _D,
     "if request.headers.get(PROTOCOL_VERSION_HEADER, \"1\") != \"1\":",
     'status=501, text="This server only supports protocol version 1"'),
    ("Does blackd keep Windows line endings of the submitted code?", _D,
     "# Preserve CRLF line endings", "raise black.NothingChanged"),
    ("How does blackd parse a Python version such as py3.8 from the variant header?", _D,
     'for version in value.split(","):', 'raise InvalidVariantHeader("expected e.g. \'3.7\', \'py3.5\'") from None'),
    ("Which port does blackd listen on unless told otherwise?", _D,
     '"--bind-port", type=int, help="Port to listen on", default=45484, show_default=True',
     '"--bind-port", type=int, help="Port to listen on", default=45484, show_default=True'),
)


def build(src: Path, dest: Path) -> int:
    sources = {name: (src / path).read_text(encoding="utf-8") for name, path in FILES.items()}
    found = [(q, name, *find(sources[name], first, last)) for q, name, first, last in QUESTIONS]
    write_set(dest, sources, "code", found)
    return len(found)


if __name__ == "__main__":
    sys.exit(cli(None, __doc__, SOURCE, OUT, FILES,
                 "pip download the sdist of black==24.10.0 and untar it", build))
