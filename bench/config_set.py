"""Build a held-out set of a project's configuration files: Black's GitHub workflows, action,
pre-commit hooks, Read the Docs and tox settings, Dockerfile and ``pyproject.toml``, and
urllib3's ``pyproject.toml``, with 30 questions and their evidence, read twice: by their readers
(``config_files``: YAML and TOML keys and INI sections as headings, a Dockerfile as code) and as
plain ``text`` (``config_files_text``: how zoomrag read them before it had those readers).

A codebase's questions are often about how it is built, tested and released, and the answers sit
in these files. The questions were written from the files as a contributor would ask them, each
with the lines that answer it; no rule of zoomrag was tuned on them. Evidence is found by its
first and last words, so the set is rebuilt from the released source archives.

    pip download --no-deps --no-binary :all: black==24.10.0 urllib3==2.2.3 -d x
    tar -xzf x/black-24.10.0.tar.gz -C x; tar -xzf x/urllib3-2.2.3.tar.gz -C x
    python bench/config_set.py --source x
    python bench/quality.py --data bench/out/derived --datasets config_files,config_files_text --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import cli, find, write_set

from zoomrag.load.base import detect_format

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/config-sources")
OUT = ROOT / "out" / "derived" / "config_files"
_WF = "black-24.10.0/.github/workflows/"
#: document id (the file's path, so its reader and language follow from it) → file under the source
FILES = {
    path: path for path in (
        _WF + "test.yml", _WF + "docker.yml", _WF + "pypi_upload.yml", _WF + "lint.yml", _WF + "doc.yml",
        _WF + "fuzz.yml", _WF + "upload_binary.yml", _WF + "release_tests.yml", _WF + "diff_shades.yml",
        _WF + "changelog.yml", "black-24.10.0/action.yml", "black-24.10.0/.pre-commit-hooks.yaml",
        "black-24.10.0/.readthedocs.yaml", "black-24.10.0/Dockerfile", "black-24.10.0/tox.ini",
        "black-24.10.0/pyproject.toml", "urllib3-2.2.3/pyproject.toml",
    )
}
_B = "black-24.10.0/"

#: (question, file, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("Which Python versions and operating systems does Black's test workflow run on?", _WF + "test.yml",
     'python-version: ["3.9", "3.10"', "os: [ubuntu-latest, macOS-latest, windows-latest]"),
    ("How are the unit tests run on PyPy in CI?", _WF + "test.yml",
     "- name: Unit tests (pypy)", "run: tox -e ci-pypy3 -- -v --color=yes"),
    ("When is coverage uploaded to Coveralls?", _WF + "test.yml",
     "- name: Upload coverage to Coveralls", "!startsWith(matrix.python-version, 'pypy')"),
    ("Does Black test itself with uvloop installed?", _WF + "test.yml",
     "- name: Install black with uvloop", 'python -m pip install -e ".[uvloop]"'),
    ("Which platforms is the Docker image built for?", _WF + "docker.yml",
     "- name: Build and push\n", "tags: pyfound/black:latest,pyfound/black:${{ env.GIT_TAG }}"),
    ("How is the Docker image's version tag chosen?", _WF + "docker.yml",
     "- name: Check + set version tag", "latest_non_release)\" >> $GITHUB_ENV"),
    ("Which credentials log in to Docker Hub?", _WF + "docker.yml",
     "- name: Login to DockerHub", "password: ${{ secrets.DOCKERHUB_TOKEN }}"),
    ("How is the sdist uploaded to PyPI on a release?", _WF + "pypi_upload.yml",
     "- if: github.event_name == 'release'\n        name: Upload to PyPI via Twine",
     "run: twine upload --verbose -u '__token__' dist/*"),
    ("Which cibuildwheel version builds the mypyc wheels?", _WF + "pypi_upload.yml",
     "- name: Install cibuildwheel and pypyp", "pipx install pypyp==1"),
    ("Which architectures are mypyc wheels built for on macOS?", _WF + "pypi_upload.yml",
     "CIBW_ARCHS_LINUX: x86_64\n          CIBW_ARCHS_MACOS", "CIBW_ARCHS_WINDOWS: AMD64"),
    ("What happens to the stable branch after a release?", _WF + "pypi_upload.yml",
     "name: Update stable branch to release tag & push", "git push"),
    ("Why does the lint workflow fail a pull request that targets another branch?", _WF + "lint.yml",
     "- name: Assert PR target is main", "please refile targeting 'main'.\" && exit 1"),
    ("How does CI check that the generated schema is up to date?", _WF + "lint.yml",
     "- name: Regenerate schema", "git diff --exit-code"),
    ("How is the documentation built in CI?", _WF + "doc.yml",
     "- name: Build documentation", "sphinx-build -a -b html -W --keep-going docs/ docs/_build"),
    ("Which Python versions run the fuzz tests?", _WF + "fuzz.yml",
     'python-version: ["3.9", "3.10", "3.11", "3.12.4", "3.13"]', 'python-version: ["3.9", "3.10", "3.11", "3.12.4", "3.13"]'),
    ("What options does the Black GitHub Action pass by default?", _B + "action.yml",
     "options:\n    description:", 'default: "--check --diff"'),
    ("Can the action read Black's version from pyproject.toml?", _B + "action.yml",
     "use_pyproject:", 'default: "false"'),
    ("Is the black_args input of the action still supported?", _B + "action.yml",
     "black_args:", "Use `with.options` and `with.src` instead.\""),
    ("Which pre-commit hook formats Jupyter notebooks?", _B + ".pre-commit-hooks.yaml",
     "- id: black-jupyter", 'additional_dependencies: [".[jupyter]"]'),
    ("Which Python version builds the docs on Read the Docs?", _B + ".readthedocs.yaml",
     "build:\n  os: ubuntu-22.04", 'python: "3.11"'),
    ("What base image does Black's Docker image use?", _B + "Dockerfile",
     "FROM python:3.12-slim AS builder", "FROM python:3.12-slim AS builder"),
    ("Which extras are installed into the Docker image?", _B + "Dockerfile",
     "RUN . /opt/venv/bin/activate", "pip install black[colorama,d,uvloop]"),
    ("How does tox run the fuzz tests?", _B + "tox.ini",
     "[testenv:fuzz]", "coverage report"),
    ("Why is recreate set to true in tox?", _B + "tox.ini",
     "# We use `recreate=True` because", "recreate = True"),
    ("Which target version is Black configured with in its own pyproject?", _B + "pyproject.toml",
     "[tool.black]\nline-length = 88", "target-version = ['py39']"),
    ("What does the jupyter extra of Black install?", _B + "pyproject.toml",
     "jupyter = [", '"tokenize-rt>=3.2.0",\n]'),
    ("Which files are not compiled with mypyc?", _B + "pyproject.toml",
     "exclude = [\n  # There's no good reason", '"/src/black/__main__.py",\n]'),
    ("Which platforms does cibuildwheel skip?", _B + "pyproject.toml",
     'build = "cp3*"', 'skip = ["*-manylinux_i686", "*-musllinux_*", "*-win32", "pp*"]'),
    ("Which pytest markers does urllib3 define?", "urllib3-2.2.3/pyproject.toml",
     "markers = [", '"integration: Slow integrations tests not run by default",\n]'),
    ("Which extra adds zstd support to urllib3?", "urllib3-2.2.3/pyproject.toml",
     "zstd = [", '"zstandard>=0.18.0",\n]'),
)


def build(src: Path, dest: Path) -> int:
    sources = {name: (src / path).read_text(encoding="utf-8") for name, path in FILES.items()}
    found = [(q, name, *find(sources[name], first, last)) for q, name, first, last in QUESTIONS]
    write_set(dest, sources, {name: detect_format(Path(name)) for name in sources}, found)
    write_set(dest.with_name(dest.name + "_text"), sources, "text", found)
    return len(found)


if __name__ == "__main__":
    sys.exit(cli(None, __doc__, SOURCE, OUT, FILES,
                 "pip download the sdists of black==24.10.0 and urllib3==2.2.3 and untar them", build))
