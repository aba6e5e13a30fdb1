"""Loading files: decoding, errors that name the file, format detection, folder walking."""

from __future__ import annotations

import codecs
import os
import re
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from invariants import texts

from zoomrag.errors import BinaryFileError, ConfigError, DecodeError, InputError
from zoomrag.load import decode, detect_format, formats, iter_paths, load_path, read_text, sites
from zoomrag.load.folders import PICTURE_LEFT_OUT, walk_folder
from zoomrag.model import normalize_newlines

FIXTURES = Path(__file__).parent / "fixtures"


# -- decode ------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, text", [
    (b"plain", "plain"),
    (codecs.BOM_UTF8 + "h\u00e9llo".encode(), "h\u00e9llo"),
    (codecs.BOM_UTF16_LE + "h\u00e9\r\nllo".encode("utf-16-le"), "h\u00e9\nllo"),
    (codecs.BOM_UTF16_BE + "\u4e2d\u6587".encode("utf-16-be"), "\u4e2d\u6587"),
    (codecs.BOM_UTF32_LE + "a\U0001F600".encode("utf-32-le"), "a\U0001F600"),
    (b"a\r\nb\rc\n", "a\nb\nc\n"),
    (b"", ""),
    (b"\x1b[31mred\x1b[0m\tok\f", "\x1b[31mred\x1b[0m\tok\f"),
])
def test_decode_text(data, text):
    assert decode(data, "f.txt") == text


@settings(max_examples=100, deadline=None)
@given(texts)
def test_decode_round_trips_text_in_every_supported_encoding(text):
    text = text.replace("\x00", "")
    expected = normalize_newlines(text)
    for data in (codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
                 codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
                 codecs.BOM_UTF32_LE + text.encode("utf-32-le")):
        assert decode(data, "t") == expected
    try:
        assert decode(text.encode(), "t") == expected
        assert decode(codecs.BOM_UTF8 + text.encode(), "t") == expected
    except BinaryFileError:  # random text may be mostly control characters
        pass


def test_decode_refuses_invalid_utf8_naming_file_byte_and_line():
    with pytest.raises(DecodeError, match=r"^x\.txt: not valid UTF-8 \(byte 0xe9 at offset 6, line 2\); "
                                          r".*convert it .*-t UTF-8"):
        decode(b"ab\ncaf\xe9", "x.txt")


def test_decode_names_the_encoding_a_file_most_likely_is_in():
    pytest.importorskip("charset_normalizer")
    text = "Привет! Это субтитры фильма, сохранённые в старой кодировке Windows. " * 5
    with pytest.raises(DecodeError, match=r"it looks like CP1251: convert it with iconv -f CP1251 -t UTF-8"):
        decode(text.encode("cp1251"), "film.srt")


def test_decode_refuses_nul_bytes_as_binary():
    with pytest.raises(BinaryFileError, match=r"^img\.png: binary file \(NUL bytes found\)"):
        decode(b"\x01\x02\x03\x00\x00\x00\rIHDR", "img.png")  # no kind its bytes name


@pytest.mark.parametrize(("name", "kind", "into"), [
    ("old.doc", "a Word 97–2003 document", "docx"), ("q3.xls", "an Excel 97–2003 workbook", "xlsx"),
    ("talk.ppt", "a PowerPoint 97–2003 deck", "pptx"), ("plan.pages", "an Apple Pages document", "docx"),
])
def test_a_binary_office_format_is_named_with_what_to_save_it_as(name, kind, into):
    with pytest.raises(BinaryFileError, match=rf"^{re.escape(name)}: {kind}, a format zoomrag does not read; save it "
                                              rf"as \.{into} \(LibreOffice converts it: soffice --headless "
                                              rf"--convert-to {into} FILE\) and index that$"):
        decode(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", name)
    # a text file of the same extension is text
    assert decode(b"-----BEGIN KEY-----\n", name) == "-----BEGIN KEY-----\n"


def test_decode_refuses_control_bytes_as_binary():
    with pytest.raises(BinaryFileError, match=r"^blob: binary file \(mostly control bytes\)"):
        decode(bytes(range(1, 32)) * 4, "blob")


def test_decode_refuses_broken_utf16_after_its_bom():
    with pytest.raises(DecodeError, match=r"^w\.txt: UTF-16 byte order mark but invalid UTF-16"):
        decode(codecs.BOM_UTF16_LE + b"\x00\xd8a", "w.txt")


# -- load_path errors ------------------------------------------------------------------------

def test_missing_file(tmp_path):
    missing = tmp_path / "nope.md"
    with pytest.raises(InputError, match=rf"^{missing}: no such file$"):
        load_path(missing)


def test_directory_is_refused(tmp_path):
    with pytest.raises(InputError, match=rf"^{tmp_path}: is a directory; give a file"):
        load_path(tmp_path)


def test_binary_file_is_refused_by_name(tmp_path):
    p = tmp_path / "photo.txt"
    p.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    with pytest.raises(BinaryFileError, match=rf"^{p}: a JPEG image, not text, which is what zoomrag reads; leave it out$"):
        load_path(p)  # no --exclude '*.txt': other .txt files are text


def test_latin1_file_is_refused_by_name(tmp_path):
    p = tmp_path / "old.md"
    p.write_bytes("# Caf\u00e9\n".encode("latin-1"))
    with pytest.raises(DecodeError, match=rf"^{p}: not valid UTF-8 \(byte 0xe9 at offset 5, line 1\)"):
        load_path(p)


def test_utf8_bom_file_loads_without_the_bom(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes(codecs.BOM_UTF8 + b"hello\r\nworld\r\n")
    doc = load_path(p)
    assert doc.text == "hello\nworld\n"
    assert (doc.id, doc.source, doc.format) == (str(p), str(p), "text")


def test_explicit_format_and_id_win(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("# Title\n")
    doc = load_path(p, format="markdown", id="n1")
    assert (doc.id, doc.format, doc.blocks[0].type) == ("n1", "markdown", "heading")


def test_empty_file_gives_an_empty_document(tmp_path):
    p = tmp_path / "empty.md"
    p.write_bytes(b"")
    doc = load_path(p)
    assert (doc.text, doc.blocks) == ("", ())


# -- formats -------------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [
    ("a.md", "markdown"), ("A.MD", "markdown"), ("a.markdown", "markdown"), ("a.mdx", "markdown"),
    ("a.html", "html"), ("a.htm", "html"), ("a.csv", "csv"), ("a.tsv", "tsv"), ("a.pdf", "pdf"),
    ("a.tif", "tiff"), ("a.TIFF", "tiff"), ("a.rst", "rst"), ("a.py", "code"), ("a.tsx", "code"), ("a.rs", "code"), ("a.sql", "code"), ("a.txt", "text"),
    ("a.unknown", "text"), ("Makefile", "code"), ("README", "text"), ("a.json", "json"), ("a.jsonl", "jsonl"),
])
def test_detect_format(name, fmt):
    assert detect_format(Path(name)) == fmt


def test_formats_lists_every_reader():
    assert formats() == ["asciidoc", "ass", "code", "csv", "docx", "edgar", "eml", "epub", "html", "info", "ini", "json", "jsonl", "latex", "man", "markdown", "mbox", "notebook",
                         "odp", "ods", "odt", "org", "pdf", "picture", "pod", "pptx", "rst", "rtf", "sbv", "srt", "svg", "texinfo", "text", "tiff", "toml", "tsv", "vimhelp", "vtt", "xlsx", "xml",
                         "xmldata", "yaml"]


def test_read_text_unknown_format():
    with pytest.raises(ConfigError, match=r"^unknown format 'wpd'; choose one of: asciidoc, ass, code, csv, docx, edgar, eml, epub, html"):
        read_text("x", format="wpd")


def test_read_text_refuses_binary_formats():
    for fmt in ("pdf", "docx", "odt"):
        with pytest.raises(ConfigError, match=rf"^format '{fmt}' is read from a file, not from text; use load_path"):
            read_text("x", format=fmt)


def test_read_text_normalises_newlines():
    assert read_text("a\r\nb\r", format="text").text == "a\nb\n"


# -- iter_paths ------------------------------------------------------------------------------

def _touch(root: Path, *names: str) -> None:
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")


def test_iter_paths_walks_sorted_and_skips_hidden_and_caches(tmp_path):
    _touch(tmp_path, "b.md", "a/z.txt", "a/b/c.md", "a-b.md", ".git/config", ".venv/lib/x.py",
           ".zoomrag/index.db", "src/__pycache__/m.pyc", "node_modules/p/i.js", ".env", "src/m.py")
    got = [p.relative_to(tmp_path).as_posix() for p in iter_paths([tmp_path])]
    assert got == ["a/b/c.md", "a/z.txt", "a-b.md", "b.md", "src/m.py"]


def test_iter_paths_keeps_given_files_and_yields_each_once(tmp_path):
    _touch(tmp_path, "d/one.md", "d/two.md", ".hidden.md")
    given = [tmp_path / ".hidden.md", tmp_path / "d" / "two.md", tmp_path / "d"]
    got = [p.relative_to(tmp_path).as_posix() for p in iter_paths(given)]
    assert got == [".hidden.md", "d/two.md", "d/one.md"]


def test_iter_paths_missing_path(tmp_path):
    with pytest.raises(InputError, match=r"ghost: no such file or directory$"):
        list(iter_paths([tmp_path / "ghost"]))


def test_iter_paths_does_not_follow_folder_symlinks(tmp_path):
    _touch(tmp_path, "d/a.md")
    (tmp_path / "d" / "loop").symlink_to(tmp_path / "d", target_is_directory=True)
    assert [p.name for p in iter_paths([tmp_path])] == ["a.md"]


@pytest.mark.parametrize("name, fmt", [
    ("sample.md", "markdown"), ("sample.html", "html"), ("people.csv", "csv"), ("people.tsv", "tsv"),
    ("sample.txt", "text"), ("example.py", "code"),
])
def test_fixtures_load_with_their_format(name, fmt):
    doc = load_path(FIXTURES / name)
    assert doc.format == fmt and doc.blocks


def _locked(monkeypatch, name: str) -> None:
    """Make folders called ``name`` unlistable (as root, permissions alone do not)."""
    real = os.scandir

    def scandir(path=".", *a, **k):
        if Path(path).name == name:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_folder_that_cannot_be_listed_is_an_error_never_a_silent_gap(tmp_path, monkeypatch):
    _touch(tmp_path, "a.md", "locked/b.md")
    _locked(monkeypatch, "locked")
    with pytest.raises(InputError, match=r"locked: cannot list this folder \(Permission denied\); fix its"):
        list(iter_paths([tmp_path]))
    seen = []
    assert [p.name for p in walk_folder(tmp_path, seen.append)] == ["a.md"]
    assert [e.filename for e in seen] == [str(tmp_path / "locked")]


def test_a_site_sphinx_built_is_walked_as_its_pages_when_asked(tmp_path):
    _touch(tmp_path, "site/searchindex.js", "site/index.html", "site/lib/json.html",
           "site/_sources/index.rst.txt", "site/_sources/lib/json.rst.txt", "site/_sources/lib/orphan.rst.txt",
           "site/_static/theme.js", "site/_static/basic.css", "notes.md")
    left = []
    got = [p.relative_to(tmp_path).as_posix() for p in walk_folder(tmp_path, left_out=lambda p, why: left.append(
        (p.relative_to(tmp_path).as_posix(), why)))]
    # a source with no page beside it is content; the others are copies, the theme is not content
    assert got == ["notes.md", "site/_sources/lib/orphan.rst.txt", "site/index.html", "site/lib/json.html"]
    assert sorted(p for p, _ in left) == ["site/_sources/index.rst.txt", "site/_sources/lib/json.rst.txt",
                                          "site/_static/basic.css", "site/_static/theme.js", "site/searchindex.js"]
    assert {why for _, why in left} == {sites.SPHINX_SOURCE, sites.SPHINX_THEME}
    # without a place to say so, nothing is left out
    assert len(walk_folder(tmp_path)) == 9


def test_a_site_javadoc_built_is_walked_as_its_pages(tmp_path):
    """A Java library's API docs as Debian or Maven install them: jQuery, the search index and
    the stylesheets were indexed as code beside the pages (16 % of the units)."""
    _touch(tmp_path, "api/element-list", "api/index.html", "api/overview-tree.html", "api/help-doc.html",
           "api/index-all.html", "api/constant-values.html", "api/script.js", "api/member-search-index.js",
           "api/stylesheet.css", "api/jquery/jquery-3.5.1.js", "api/legal/LICENSE", "api/org/x/Range.html",
           "api/org/x/package-summary.html", "api/org/x/class-use/Range.html", "api/src-html/org/x/Range.html",
           "lib/app.js", "lib/element-list")
    left = []
    got = [p.relative_to(tmp_path).as_posix() for p in walk_folder(tmp_path, left_out=lambda p, why: left.append(
        (p.relative_to(tmp_path).as_posix(), why)))]
    # read: the class, package and source pages, the overview, the constants' values
    assert got == ["api/constant-values.html", "api/index.html", "api/org/x/Range.html",
                   "api/org/x/package-summary.html", "api/src-html/org/x/Range.html", "lib/app.js", "lib/element-list"]
    assert sorted(left) == sorted(
        [(f"api/{name}", sites.JAVADOC_ASSET) for name in ("element-list", "jquery/jquery-3.5.1.js", "legal/LICENSE",
                                                           "member-search-index.js", "script.js", "stylesheet.css")]
        + [(f"api/{name}", sites.JAVADOC_INDEX) for name in ("help-doc.html", "index-all.html",
                                                             "org/x/class-use/Range.html", "overview-tree.html")])


def test_a_site_doxygen_built_is_walked_as_its_pages(tmp_path):
    """A C or C++ library's API docs as Debian installs them: the lists of classes, files and
    members Doxygen builds from the pages, its scripts, diagrams and search index."""
    _touch(tmp_path, "html/doxygen.svg", "html/tabs.css", "html/index.html", "html/group__window.html",
           "html/window_guide.html", "html/classsf_1_1Texture.html", "html/classsf_1_1Texture-members.html",
           "html/glfw3_8h.html", "html/glfw3_8h_source.html", "html/annotated.html", "html/functions_func_w.html",
           "html/globals_defs.html", "html/dir_d44c64559bbebec7f509842c48db8b23.html", "html/window_8dox.html",
           "html/deprecated.html", "html/menudata.js", "html/classsf_1_1Texture.png", "html/glfw3_8h__incl.map",
           "html/search/all_0.html", "html/search/all_0.js", "src/files.html", "src/doxygen.png")
    left = []
    got = [p.relative_to(tmp_path).as_posix() for p in walk_folder(tmp_path, left_out=lambda p, why: left.append(
        (p.relative_to(tmp_path).as_posix(), why)))]
    # read: groups, guides, classes, files, their sources, the main page; a folder that only
    # holds a logo is no site
    assert got == ["html/classsf_1_1Texture.html", "html/glfw3_8h.html", "html/glfw3_8h_source.html",
                   "html/group__window.html", "html/index.html", "html/window_guide.html", "src/files.html"]
    assert sorted(left) == sorted(
        [(f"html/{name}", sites.DOXYGEN_ASSET) for name in (
            "classsf_1_1Texture.png", "doxygen.svg", "glfw3_8h__incl.map", "menudata.js", "search/all_0.js",
            "tabs.css")]
        + [(f"html/{name}", sites.DOXYGEN_INDEX) for name in (
            "annotated.html", "classsf_1_1Texture-members.html", "deprecated.html",
            "dir_d44c64559bbebec7f509842c48db8b23.html", "functions_func_w.html", "globals_defs.html",
            "search/all_0.html", "window_8dox.html")]
        + [("src/doxygen.png", PICTURE_LEFT_OUT)])  # a picture: read only when asked


def test_a_web_site_a_generator_built_is_walked_as_its_pages_and_the_files_put_beside_them(tmp_path):
    """A project's documentation as MkDocs (Material) and Docusaurus build it: MkDocs' search index
    held every page's text again, and 30 languages' search scripts were indexed as code;
    Docusaurus's bundles and feeds hold the pages and posts again."""
    _touch(tmp_path, "mkdocs/index.html", "mkdocs/sitemap.xml", "mkdocs/sitemap.xml.gz", "mkdocs/404.html",
           "mkdocs/objects.inv", "mkdocs/CNAME", "mkdocs/search/search_index.json", "mkdocs/requests/index.html",
           "mkdocs/assets/javascripts/bundle.a5f9d56c.min.js", "mkdocs/assets/javascripts/lunr/min/lunr.de.min.js",
           "mkdocs/assets/stylesheets/main.min.css.map", "mkdocs/css/custom.css", "mkdocs/examples/app.py",
           "mkdocs/guide/manual.pdf",
           "docusaurus/index.html", "docusaurus/404.html", "docusaurus/sitemap.xml", "docusaurus/docs/intro/index.html",
           "docusaurus/assets/js/main.db5c6623.js", "docusaurus/assets/js/0058b4c6.d4b37c9d.js",
           "docusaurus/assets/css/styles.css", "docusaurus/blog/rss.xml", "docusaurus/blog/atom.xml",
           "docusaurus/blog/atom.xsl", "docusaurus/blog/welcome/index.html",
           "web/index.html", "web/sitemap.xml", "web/app.js")
    left = []
    got = [p.relative_to(tmp_path).as_posix() for p in walk_folder(tmp_path, left_out=lambda p, why: left.append(
        (p.relative_to(tmp_path).as_posix(), why)))]
    # a web project with a sitemap and no not-found page is its own sources, read
    assert got == ["docusaurus/blog/welcome/index.html", "docusaurus/docs/intro/index.html", "docusaurus/index.html",
                   "mkdocs/examples/app.py", "mkdocs/guide/manual.pdf", "mkdocs/index.html",
                   "mkdocs/requests/index.html", "web/app.js", "web/index.html", "web/sitemap.xml"]
    assert sorted(left) == sorted((name, sites.WEB_ASSET) for name in (
        "mkdocs/404.html", "mkdocs/CNAME", "mkdocs/assets/javascripts/bundle.a5f9d56c.min.js",
        "mkdocs/assets/javascripts/lunr/min/lunr.de.min.js", "mkdocs/assets/stylesheets/main.min.css.map",
        "mkdocs/css/custom.css", "mkdocs/objects.inv", "mkdocs/search/search_index.json", "mkdocs/sitemap.xml",
        "mkdocs/sitemap.xml.gz", "docusaurus/404.html", "docusaurus/sitemap.xml", "docusaurus/assets/js/main.db5c6623.js",
        "docusaurus/assets/js/0058b4c6.d4b37c9d.js", "docusaurus/assets/css/styles.css", "docusaurus/blog/rss.xml",
        "docusaurus/blog/atom.xml", "docusaurus/blog/atom.xsl"))


def test_a_scripts_source_map_beside_it_is_left_out(tmp_path):
    _touch(tmp_path, "dist/app.min.js", "dist/app.min.js.map", "dist/app.css", "dist/app.css.map",
           "geo/roads.map", "geo/orphan.js.map")
    left = []
    got = [p.relative_to(tmp_path).as_posix() for p in walk_folder(tmp_path, left_out=lambda p, why: left.append(
        (p.relative_to(tmp_path).as_posix(), why)))]
    assert got == ["dist/app.css", "dist/app.min.js", "geo/orphan.js.map", "geo/roads.map"]
    assert left == [(f"dist/{name}.map", f"the source map of {name} beside it, generated with it (name this file "
                                         "to read it)") for name in ("app.css", "app.min.js")]


def test_a_notion_databases_view_beside_all_its_rows_is_read_once(tmp_path):
    db = "wiki/Tasks 7e6d5c4b3a29180f7e6d5c4b3a291800"
    _touch(tmp_path, f"{db}.csv", f"{db}_all.csv", "data/sales.csv", "data/sales_all.csv")
    left = []
    got = [p.relative_to(tmp_path).as_posix() for p in walk_folder(tmp_path, left_out=lambda p, why: left.append(
        (p.relative_to(tmp_path).as_posix(), why)))]
    assert got == ["data/sales.csv", "data/sales_all.csv", f"{db}_all.csv"]  # only Notion's names say so
    assert left == [(f"{db}.csv", "a view of the Notion database whose rows are all in Tasks "
                     "7e6d5c4b3a29180f7e6d5c4b3a291800_all.csv beside it (that file is read instead; name this "
                     "file to read it)")]


@pytest.mark.parametrize("head, kind", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "a JPEG image"),
    (b"RIFF\x24\x00\x00\x00WEBPVP8 \x00", "a WebP image"),
    (b"\x00\x00\x00\x18ftypmp42\x00\x00", "a video (MP4)"),
    (b"wOF2\x00\x01\x00\x00", "a web font"),
    (b"SQLite format 3\x00\x10\x00", "an SQLite database"),
])
def test_a_file_that_is_not_text_is_named_by_what_its_bytes_say_it_is(head, kind):
    with pytest.raises(BinaryFileError) as e:
        decode(head + b"\x00" * 64, "att/98310.bin")
    assert str(e.value) == f"att/98310.bin: {kind}, not text, which is what zoomrag reads; leave it out (--exclude '*.bin')"


def test_a_sphinx_inventory_is_named_not_sent_to_iconv():
    # a text header, then zlib: its undecodable bytes are no encoding to convert from
    data = (b"# Sphinx inventory version 2\n# Project: Starlette\n# Version: 0.0.0\n"
            b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(b"x py:class 1 x.html -\n"))
    with pytest.raises(BinaryFileError, match=r"^site/objects.inv: a Sphinx inventory \(a site's API names, "
                                              r"compressed\), not text"):
        decode(data, "site/objects.inv")
