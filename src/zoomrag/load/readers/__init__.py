"""Built-in readers, listed in :data:`BUILTIN` (the format registry reads it on first use)."""

from ..base import FormatReader
from .asciidoc import read_asciidoc
from .code import FILE_NAMES, LANGUAGES, read_code
from .configfile import read_ini, read_toml
from .delimited import read_csv, read_tsv
from .docx import read_docx
from .edgar import read_submission
from .epub import read_epub
from .html import read_html
from .images import PICTURES, read_picture, read_tiff
from .info import EXTENSION_PATTERN as INFO_PATTERN
from .info import EXTENSIONS as INFO_EXTENSIONS
from .info import read_info
from .jsondata import read_json, read_jsonl
from .latex import read_latex
from .mail import read_eml, read_mbox
from .manpage import EXTENSION_PATTERN as MAN_PATTERN
from .manpage import EXTENSIONS as MAN_EXTENSIONS
from .manpage import read_man
from .markdown import read_markdown
from .notebook import read_notebook
from .odf import read_odp, read_ods, read_odt
from .org import read_org
from .pdf import read_pdf
from .plain import read_plain
from .pod import read_pod
from .pptx import read_pptx
from .rst import read_rst
from .rtf import read_rtf
from .svg import read_svg
from .texinfo import read_texinfo
from .transcript import read_ass, read_sbv, read_srt, read_vtt
from .vimhelp import read_vim_help
from .xlsx import read_xlsx
from .xmldata import read_xml_data
from .xmldoc import read_xml
from .yamldata import read_yaml

#: ``(format, reader)``; where two formats claim an extension, the later one wins.
BUILTIN: tuple[tuple[str, FormatReader], ...] = (
    ("code", FormatReader(tuple(LANGUAGES), read=read_code, names=tuple(FILE_NAMES), lined=True)),
    ("csv", FormatReader((".csv",), read=read_csv, lined=True)),
    ("tsv", FormatReader((".tsv", ".tab"), read=read_tsv, lined=True)),
    ("html", FormatReader((".html", ".htm", ".xhtml"), read=read_html, renders="markdown")),
    ("markdown", FormatReader((".md", ".markdown", ".mdx", ".mkd"), read=read_markdown)),
    ("notebook", FormatReader((".ipynb",), read=read_notebook, renders="markdown")),
    ("pdf", FormatReader((".pdf",), read_file=read_pdf, renders="text", pages="page")),
    ("tiff", FormatReader((".tif", ".tiff"), read_file=read_tiff, renders="text", pages="page")),
    ("picture", FormatReader(PICTURES, read_file=read_picture, renders="text")),
    ("docx", FormatReader((".docx",), read_file=read_docx, renders="markdown")),
    ("epub", FormatReader((".epub",), read_file=read_epub, renders="markdown")),
    ("pptx", FormatReader((".pptx",), read_file=read_pptx, renders="markdown", pages="slide")),
    ("xlsx", FormatReader((".xlsx", ".xlsm"), read_file=read_xlsx, renders="markdown")),
    ("eml", FormatReader((".eml",), read_file=read_eml, renders="markdown")),
    ("mbox", FormatReader((".mbox",), read_file=read_mbox, renders="markdown")),
    ("odt", FormatReader((".odt",), read_file=read_odt, renders="markdown")),
    ("ods", FormatReader((".ods",), read_file=read_ods, renders="markdown")),
    ("odp", FormatReader((".odp",), read_file=read_odp, renders="markdown", pages="slide")),
    ("rtf", FormatReader((".rtf",), read_file=read_rtf, renders="markdown")),
    ("json", FormatReader((".json",), read=read_json, renders="markdown")),
    ("jsonl", FormatReader((".jsonl", ".ndjson"), read=read_jsonl, renders="markdown")),
    ("text", FormatReader((".txt", ".text", ".log"), read=read_plain)),
    # found by content in a .txt (read_plain hands it over)
    ("edgar", FormatReader((), read=read_submission, renders="markdown")),
    ("vimhelp", FormatReader((), read=read_vim_help, renders="markdown")),
    ("rst", FormatReader((".rst", ".rest"), read=read_rst)),
    ("asciidoc", FormatReader((".adoc", ".asciidoc"), read=read_asciidoc)),
    ("latex", FormatReader((".tex", ".latex", ".ltx"), read=read_latex)),
    ("org", FormatReader((".org",), read=read_org)),
    ("info", FormatReader(INFO_EXTENSIONS, read=read_info, renders="markdown", extension_pattern=INFO_PATTERN)),
    ("texinfo", FormatReader((".texi", ".texinfo", ".txi"), read=read_texinfo, renders="markdown")),
    ("pod", FormatReader((".pod",), read=read_pod, renders="markdown")),
    ("man", FormatReader(MAN_EXTENSIONS, read=read_man, renders="markdown", extension_pattern=MAN_PATTERN)),
    ("vtt", FormatReader((".vtt",), read=read_vtt, renders="markdown")),
    ("srt", FormatReader((".srt",), read=read_srt, renders="markdown")),
    ("sbv", FormatReader((".sbv",), read=read_sbv, renders="markdown")),
    ("ass", FormatReader((".ass", ".ssa"), read=read_ass, renders="markdown")),
    ("yaml", FormatReader((".yaml", ".yml"), read=read_yaml, lined=True)),
    ("toml", FormatReader((".toml",), read=read_toml, lined=True)),
    ("ini", FormatReader((".ini", ".cfg", ".cnf"), read=read_ini, lined=True)),
    # XML of prose is written as the page it means; XML of data is kept as written ("xmldata").
    ("xml", FormatReader((".xml", ".dbk", ".docbook", ".nxml", ".jats", ".tei", ".dita", ".pom", ".csproj",
                          ".vbproj", ".fsproj", ".props", ".targets", ".nuspec", ".resx", ".xsd", ".wsdl",
                          ".plist", ".xlf", ".xliff"), read=read_xml, renders="markdown")),
    ("xmldata", FormatReader((), read=read_xml_data, lined=True)),
    ("svg", FormatReader((".svg",), read=read_svg, renders="markdown")),
)
