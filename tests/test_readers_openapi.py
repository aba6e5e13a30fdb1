"""OpenAPI and Swagger descriptions, in YAML and in JSON: each operation a section titled by its
method, its path and its summary, wherever the summary stands among its keys."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import index_folder, top_context
from invariants import check_blocks

from zoomrag.load import read_text
from zoomrag.parse.headings import find_headings
from zoomrag.parse.router import chunker_for_profile

# keys in alphabetical order, as converters write them: each operation's summary comes last
API = {
    "openapi": "3.0.0",
    "info": {"title": "Cloud API", "version": "1.0.0"},
    "paths": {
        "/servers": {
            "get": {"description": "Returns all existing Server objects.", "parameters": [
                {"description": "Filter by name", "in": "query", "name": "name", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "The servers"}}, "summary": "Get all Servers"},
            "post": {"description": "Creates a new Server.\nReturns preliminary information about it.",
                     "responses": {"201": {"description": "The server"}}, "summary": "Create a Server"},
        },
        "/servers/{id}/actions/shutdown": {
            "post": {"description": "Shuts down a Server gracefully by sending an ACPI shutdown request.",
                     "operationId": "shutdown_server", "responses": {"201": {"description": "The action"}}},
        },
    },
    "components": {"schemas": {"Server": {"properties": {"id": {"description": "ID of the Server",
                                                                 "type": "integer"}}, "type": "object"}}},
}

YAML = """openapi: 3.0.0
info:
  title: Cloud API
  version: 1.0.0
paths:
  /servers:
    get:
      description: Returns all existing Server objects.
      parameters:
      - description: Filter by name
        in: query
        name: name
        schema:
          type: string
      responses:
        '200':
          description: The servers
      summary: Get all Servers
    post:
      description: |
        Creates a new Server.
        Returns preliminary information about it.
      responses:
        '201':
          description: The server
      summary: Create a Server
  /servers/{id}/actions/shutdown:
    post:
      description: Shuts down a Server gracefully by sending an ACPI shutdown request.
      operationId: shutdown_server
      responses:
        '201':
          description: The action
components:
  schemas:
    Server:
      properties:
        id:
          description: ID of the Server
          type: integer
      type: object
"""


def _headings(doc) -> list[tuple[int, str, str]]:
    return [(h.level, h.title, doc.text[h.start:h.end]) for h in find_headings(doc)]


def test_a_yaml_apis_operations_are_headed_on_their_paths_line_by_method_path_and_summary():
    doc = read_text(YAML, format="yaml", source="api.yaml")
    check_blocks(doc, YAML, code_may_indent=True)
    heads = [(level, title, line) for level, title, line in _headings(doc) if level <= 2]
    assert heads == [
        (1, "paths", "paths:"),
        # the path's first operation is headed on the path's line, the next on its method's
        (2, "GET /servers — Get all Servers", "/servers:"),
        (2, "POST /servers — Create a Server", "post:"),
        (2, "POST /servers/{id}/actions/shutdown — shutdown_server", "/servers/{id}/actions/shutdown:"),
        (1, "components", "components:"),
        (2, "schemas", "schemas:"),
    ]
    assert doc.metadata["title"] == "Cloud API"
    # a unit inside an operation carries its title, summary and all, in its trail
    tree = chunker_for_profile("default").chunk(doc)
    inside = next(n for n in tree.leaves() if "ACPI shutdown" in n.text)
    assert inside.section_path[:2] == ("paths", "POST /servers/{id}/actions/shutdown — shutdown_server")


def test_a_large_yaml_api_is_outlined_where_other_yaml_of_its_size_is_not():
    filler = "".join(f"  /items/{i}:\n    get:\n      summary: Get item {i}\n      description: {'x' * 900}\n"
                     for i in range(1200))
    text = "openapi: 3.1.0\npaths:\n" + filler
    assert len(text) > 1_000_000
    titles = [h.title for h in find_headings(read_text(text, format="yaml", source="big.yaml"))]
    assert "GET /items/1199 — Get item 1199" in titles
    plain = read_text(text.replace("openapi: 3.1.0", "name: big"), format="yaml", source="big.yaml")
    assert not [h for h in find_headings(plain) if h.title.startswith("GET ")]


def test_a_json_apis_page_has_a_section_per_operation_with_its_summary_first():
    doc = read_text(json.dumps(API), format="json", source="api.json")
    heads = [(level, title) for level, title, _ in _headings(doc)]
    assert (2, "GET /servers — Get all Servers") in heads
    assert (2, "POST /servers/{id}/actions/shutdown — shutdown_server") in heads
    start = doc.text.index("## POST /servers — Create a Server")
    section = doc.text[start:doc.text.index("##", start + 3)]
    # what the operation is comes first, then what it takes and gives
    assert section.index("summary: Create a Server") < section.index("Creates a new Server.") \
        < section.index("responses")
    assert doc.metadata["title"] == "Cloud API"


def test_a_json_apis_parameters_are_a_line_each_saying_where_what_and_whether_required():
    api = {"openapi": "3.0.0", "paths": {"/issues": {"get": {"summary": "List issues", "parameters": [
        {"name": "state", "in": "query", "description": "whether issue is open or closed",
         "schema": {"type": "string", "enum": ["closed", "open", "all"], "default": "open"}},
        {"name": "owner", "in": "path", "required": True, "description": "owner of the repo",
         "schema": {"type": "string"}},
        {"$ref": "#/components/parameters/page"}]}}}}
    doc = read_text(json.dumps(api), format="json", source="api.json")
    assert "state: query, string, one of closed, open, all, default open — whether issue is open or closed" \
        in doc.text
    assert "owner: path, string, required — owner of the repo" in doc.text
    assert "page: $ref: #/components/parameters/page" in doc.text  # a pointer stays one, for references


def test_a_swagger_description_is_read_the_same_way():
    swagger = {"swagger": "2.0", "info": {"title": "Pets"}, "paths": {"/pets": {"get": {"summary": "List pets"}}}}
    doc = read_text(json.dumps(swagger), format="json", source="pets.json")
    assert "GET /pets — List pets" in [h.title for h in find_headings(doc)]


def test_a_question_finds_the_operation_and_its_context_says_which(tmp_path: Path):
    for name, text in (("cloud.yaml", YAML), ("cloud.json", json.dumps(API))):
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        (folder / name).write_text(text, encoding="utf-8")
        got = top_context(index_folder(folder, tmp_path / name), "ACPI shutdown gracefully")
        assert "ACPI shutdown request" in got["text"]
        assert "POST /servers/{id}/actions/shutdown — shutdown_server" in got["section_path"]
