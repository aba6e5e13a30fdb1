"""Configuration files: YAML keys, TOML tables and INI sections as heading blocks with the rest as
code in the file's language, the text kept as written; Makefiles and Dockerfiles as code."""

from __future__ import annotations

from pathlib import Path

from cli_support import index_folder, top_context
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_blocks, texts

from zoomrag.load import read_text
from zoomrag.load.base import detect_format, is_lined
from zoomrag.parse.headings import find_headings
from zoomrag.parse.router import chunker_for_profile

WORKFLOW = """\
# Runs on every push.
name: ci
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      # the browser test needs it
      - name: Install chromium
        run: apt-get install -y chromium
      - if: github.event_name == 'push'
        name: Run the suite
        run: make test
        env:
          CI: "1"
"""


def _outline(doc) -> list[tuple[str, int, str]]:
    return [(b.meta["title"], b.level, doc.text[b.start:b.end]) for b in doc.blocks if b.type == "heading"]


def _code(doc) -> list[str]:
    return [doc.text[b.start:b.end] for b in doc.blocks if b.type == "code"]


def test_yaml_keys_and_named_steps_are_headings_the_rest_yaml_code():
    doc = read_text(WORKFLOW, format="yaml", source="ci.yml")
    check_blocks(doc, WORKFLOW, code_may_indent=True)
    assert _outline(doc) == [
        ("on", 1, "on:"),
        ("jobs", 1, "jobs:"),
        ("test", 2, "test:"),
        ("steps", 3, "steps:"),
        # a comment right above a step opens its section; a step is named by its name, after `if:`
        ("Install chromium", 4, "# the browser test needs it\n      - name: Install chromium"),
        ("Run the suite", 4, "- if: github.event_name == 'push'"),
    ]
    assert _code(doc) == [
        "# Runs on every push.\nname: ci",
        "  push:\n    branches: [main]\n  pull_request:",
        "    runs-on: ubuntu-24.04",
        "      - uses: actions/checkout@v4",
        "        run: apt-get install -y chromium",
        "        name: Run the suite\n        run: make test\n        env:\n          CI: \"1\"",
    ]
    assert all(b.meta["language"] == "yaml" for b in doc.blocks if b.type == "code")
    assert doc.metadata["title"] == "ci"


def test_each_document_of_a_manifest_is_a_section_named_by_its_kind_and_name():
    text = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\n"
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - port: 80\n"
            "      targetPort: 8080\n      protocol: TCP\n")
    doc = read_text(text, format="yaml")
    assert _outline(doc) == [
        ("Deployment web", 1, "apiVersion: apps/v1"),
        ("metadata", 2, "metadata:"),
        ("Service web", 1, "---\napiVersion: v1"),  # the marker opens the document it marks
        ("spec", 2, "spec:"),
        ("ports", 3, "ports:"),
    ]
    assert "title" not in doc.metadata


def test_small_values_deep_keys_and_flow_style_stay_code():
    text = "a:\n  b: 1\nc: {x: 1, y: 2}\nd:\n" + "".join(f"  k{i}:\n    v:\n      w:\n        z: {i}\n        q: 1\n        r: 2\n" for i in range(2))
    doc = read_text(text, format="yaml")
    # `a` has one line under it; `v` is level 3, `w` level 4, `z` deeper than MAX_LEVEL
    assert [(t, lv) for t, lv, _ in _outline(doc)] == [("d", 1), ("k0", 2), ("v", 3), ("w", 4),
                                                       ("k1", 2), ("v", 3), ("w", 4)]


def test_what_follows_a_deeper_section_is_not_part_of_it():
    text = ("services:\n  db:\n    image: pg\n    healthcheck:\n      test: [pg_isready]\n      interval: 5s\n"
            "      retries: 10\n    restart: always\nvolumes:\n  data: {}\nsteps:\n  - name: Build\n    run: make\n"
            "  - uses: actions/upload-artifact@v4\n    with:\n      path: dist\n")
    doc = read_text(text, format="yaml")
    assert [(t, lv, line) for t, lv, line in _outline(doc)] == [
        ("services", 1, "services:"), ("db", 2, "db:"), ("healthcheck", 3, "healthcheck:"),
        ("restart", 3, "restart: always"),  # after a heading, every later key is one
        ("volumes", 1, "volumes:"), ("steps", 1, "steps:"), ("Build", 2, "- name: Build"),
        ("uses: actions/upload-artifact@v4", 2, "- uses: actions/upload-artifact@v4"),
    ]


def test_an_unnamed_play_is_titled_by_its_first_line_and_a_small_unnamed_item_is_code():
    text = ("- hosts: web\n  become: true\n  vars:\n    port: 80\n  tasks:\n    - name: Install\n"
            "      yum: {name: httpd}\n    - debug: {msg: hi}\n- hosts: db\n  tasks: []\n")
    doc = read_text(text, format="yaml", source="site.yml")
    assert [(t, lv) for t, lv, _ in _outline(doc)] == [
        ("hosts: web", 1), ("tasks", 2), ("Install", 3),
        ("debug: {msg: hi}", 3),  # after a heading every item is one
        ("hosts: db", 1),
    ]


def test_an_alias_is_no_heading_where_it_is_used():
    text = ("defaults: &d\n  image: pg\n  restart: always\n  ports: [80]\nweb:\n  base: *d\n  extra:\n"
            "    a: 1\n    b: 2\n    c: 3\n  more: *d\nlist:\n  - *d\n  - *d\n")
    doc = read_text(text, format="yaml")
    check_blocks(doc, text, code_may_indent=True)
    assert [(t, lv, line) for t, lv, line in _outline(doc)] == [
        ("defaults", 1, "defaults: &d"), ("web", 1, "web:"), ("extra", 2, "extra:"),
        ("more", 2, "more: *d"),  # after a heading, on its own line
        ("list", 1, "list:")]


def test_yaml_that_does_not_parse_is_one_code_block_with_nothing_lost():
    text = "spec:\n  replicas: {{ .Values.replicas }}\n  image: \"{{ .Values.image }}\n"
    doc = read_text(text, format="yaml", source="deployment.yaml")
    assert [(b.type, b.start, b.end) for b in doc.blocks] == [("code", 0, len(text.rstrip()))]


def test_toml_tables_nest_under_the_table_they_extend():
    text = ('# Settings.\nname = "x"\n\n[project]\ndependencies = [\n  "a",\n[1, 2],\n]\n'
            'notes = """\n[not.a.table]\n"""\n\n# Lint settings.\n[tool.ruff]\nline-length = 110\n'
            "[tool.ruff.lint]\nselect = ['E']\n[[tool.mypy.overrides]]\nmodule = 'x'\n[tool.mypy.overrides.more]\n")
    doc = read_text(text, format="toml", source="pyproject.toml")
    check_blocks(doc, text, code_may_indent=True)
    assert _outline(doc) == [
        ("project", 1, "[project]"),
        ("tool.ruff", 1, "# Lint settings.\n[tool.ruff]"),
        ("lint", 2, "[tool.ruff.lint]"),
        ("tool.mypy.overrides", 1, "[[tool.mypy.overrides]]"),
        ("more", 2, "[tool.mypy.overrides.more]"),
    ]
    assert _code(doc)[0] == '# Settings.\nname = "x"'
    assert [h.title for h in find_headings(doc)] == ["project", "tool.ruff", "lint", "tool.mypy.overrides", "more"]


def test_ini_sections_at_the_line_start_are_headings_nested_by_their_dotted_names():
    text = "[tox]\nenvlist = py311\n\n; the tests\n[testenv]\ncommands =\n    pytest\n    [not a section]\n"
    doc = read_text(text, format="ini", source="tox.ini")
    assert _outline(doc) == [("tox", 1, "[tox]"), ("testenv", 1, "; the tests\n[testenv]")]
    assert _code(doc) == ["envlist = py311", "commands =\n    pytest\n    [not a section]"]
    cfg = "[options]\nzip_safe = 0\n[options.extras_require]\ndev = pytest\n[tool:pytest]\naddopts = -q\n"
    assert [(t, lv) for t, lv, _ in _outline(read_text(cfg, format="ini", source="setup.cfg"))] == [
        ("options", 1), ("extras_require", 2), ("tool:pytest", 1)]


def test_formats_by_extension_and_by_file_name():
    assert [detect_format(Path(p)) for p in ("a/ci.yml", "b.yaml", "pyproject.toml", "tox.ini", "setup.cfg",
                                             "Makefile", "x/Dockerfile", "rules.mk", "notes.txt")] == [
        "yaml", "yaml", "toml", "ini", "ini", "code", "code", "code", "text"]
    assert all(is_lined(f) for f in ("yaml", "toml", "ini", "code", "csv")) and not is_lined("markdown")
    make = read_text("test: venv\n\tpytest\n", format="code", source="/src/Makefile")
    docker = read_text("FROM python:3.11\n", format="code", source="Dockerfile")
    assert (make.metadata["language"], docker.metadata["language"]) == ("makefile", "dockerfile")


def test_a_step_is_found_under_its_trail_and_cut_at_lines(tmp_path: Path):
    folder = tmp_path / "repo"
    folder.mkdir()
    steps = "".join(f"      - name: Step {i}\n        run: echo step {i} of the build\n" for i in range(30))
    (folder / "ci.yml").write_text(WORKFLOW + steps.replace("Step 7", "Upload the chromium coverage"))
    (folder / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.ruff]\nline-length = 110\n")
    index = index_folder(folder, tmp_path)
    got = top_context(index, "chromium coverage upload", "--budget", "60")
    assert got["section_path"] == ["jobs", "test", "steps", "Upload the chromium coverage"]
    # whole steps: from a step's first line to the end of the matched one's
    assert got["text"].startswith("- name: Step ") and got["text"].endswith("echo step 7 of the build")
    ruff = top_context(index, "ruff line-length", "--budget", "60")
    assert ruff["section_path"] == ["tool.ruff"] and "line-length = 110" in ruff["text"]


_LINES = st.sampled_from(["a:", "  b:", "    - name: x", "      run: y", "---", "# c", "[t]", "[[t.u]]",
                          "k = [", "]", '"""', "  [s]", "x: |", "  text", "{{ v }}", "", "- item", ": bad"])


@settings(max_examples=200, deadline=None)
@given(st.one_of(texts, st.lists(_LINES, max_size=40).map("\n".join)), st.sampled_from(["yaml", "toml", "ini"]))
def test_any_text_gives_ordered_trimmed_blocks_and_a_tree(text, fmt):
    doc = read_text(text, format=fmt, source=f"f.{fmt}")
    check_blocks(doc, text, code_may_indent=True)
    covered = " ".join(doc.text[b.start:b.end] for b in doc.blocks)
    assert sorted(covered.split()) == sorted(doc.text.split())  # every word is in a block: nothing lost
    chunker_for_profile("default", {}).chunk(doc)
