"""SVG: a drawing read as the words it shows and says of itself, never its path data."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from cli_support import index_folder, top_context
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.cli import main
from zoomrag.embed.language import language_of
from zoomrag.load import load_path
from zoomrag.load.base import detect_format

DIAGRAM = """\
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 100">
  <title>Request flow</title>
  <desc>How a request passes the proxy.</desc>
  <style>.box { fill: #eee; }</style>
  <metadata><rdf>Created with a drawing tool</rdf></metadata>
  <g><title>Proxy server</title><rect width="80" height="40"/>
     <text x="10" y="20">Load <tspan font-weight="bold">balancer</tspan></text></g>
  <foreignObject width="80" height="40">
    <div xmlns="http://www.w3.org/1999/xhtml"><span>Worker   pool</span></div>
  </foreignObject>
  <path d="M420.35,117.6l-37.65,-0c-4.4,-0 -7.475,0.85 -9.225,2.55"/>
</svg>
"""
#: A logo: shapes only, as most of a repository's drawings are.
LOGO = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 706 300"><g><path id="Name" d="'
        + " ".join(f"M{i}.35,117.6l-37.65,-0c-4.4,-0 -7.475,0.85 -9.225,2.55" for i in range(60))
        + '"/></g></svg>')


def _read(text: str, tmp: Path, name: str = "d.svg"):
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return load_path(path, id=name, source=str(path))


def test_a_diagram_is_its_title_description_labels_and_shape_names(tmp_path):
    doc = _read(DIAGRAM, tmp_path)
    assert detect_format(Path("d.svg")) == "svg" and doc.format == "svg"
    assert doc.text == ("# Request flow\n\nHow a request passes the proxy.\n\nProxy server\n\nLoad balancer"
                        "\n\nWorker pool")
    assert dict(doc.metadata) == {"title": "Request flow"}
    assert [(b.type, doc.text[b.start:b.end]) for b in doc.blocks][:2] == [
        ("heading", "# Request flow"), ("text", "How a request passes the proxy.")]
    check_rendered_blocks(doc)


def test_a_drawing_of_shapes_only_or_not_xml_has_no_text(tmp_path):
    assert _read(LOGO, tmp_path, "logo.svg").text == ""
    assert _read("<svg><text>unclosed", tmp_path, "broken.svg").text == ""
    assert _read("<html><body>not a drawing</body></html>", tmp_path, "page.svg").text == ""


def test_path_data_is_no_language():
    # A drawing read as plain text elsewhere (an SVG inside a .txt) is not "written in" anything,
    # so it raises no warning about the embedder's language.
    assert language_of(LOGO) is None
    assert language_of("The proxy passes each request it receives to a worker of the pool, which "
                       "answers it and then waits for the next one to arrive.") == "en"


_LABEL = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cn", "Co")), min_size=0, max_size=30)


@settings(max_examples=60, deadline=None)
@given(title=_LABEL, labels=st.lists(_LABEL, max_size=6))
def test_any_labels_give_blocks_in_order_inside_the_text(tmp_path_factory, title, labels):
    body = "".join(f"<g><text>{escape(label)}</text><path d='M1,2'/></g>" for label in labels)
    doc = _read(f"<svg xmlns='http://www.w3.org/2000/svg'><title>{escape(title)}</title>{body}</svg>",
                tmp_path_factory.mktemp("svg"))
    check_rendered_blocks(doc)
    for label in labels:
        assert " ".join(label.split()) in doc.text
    assert "M1,2" not in doc.text


def test_a_folder_with_drawings_finds_the_diagram_not_the_logo(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "flow.svg").write_text(DIAGRAM, encoding="utf-8")
    (folder / "logo.svg").write_text(LOGO, encoding="utf-8")
    (folder / "guide.md").write_text("# Guide\n\nThe proxy sends each request on.\n", encoding="utf-8")
    index = index_folder(folder, tmp_path)
    context = top_context(index, "balancer")
    assert context["doc_id"] == "flow.svg" and "Load balancer" in context["text"]
    got = CliRunner().invoke(main, ["query", "M420.35,117.6l-37.65", "--index", index, "--json"])
    assert got.exit_code == 0, got.output
    assert all(c["doc_id"] != "logo.svg" for c in json.loads(got.output)["contexts"])
