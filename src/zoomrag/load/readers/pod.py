"""Perl's Plain Old Documentation (``.pod``: perlfunc, a module's manual) read as the page
``perldoc`` shows.

``=head1`` to ``=head4`` are headings, ``=over``/``=item``/``=back`` lists (an item named by
text is a tag with its description, as a manual page's is: :mod:`.roffpage`, so perlfunc's
functions head their descriptions), indented paragraphs are code, formatting codes print their
text (``C<ok()>`` as ``ok()``, ``L<text|Module>`` as ``text``, ``E<gt>`` as ``>``), index
entries (``X<>``), comments and blocks for other formatters (``=begin html``) are left out.
The NAME section titles the page, ``Test::Tutorial — A tutorial …``, as a manual page's does.
"""

from __future__ import annotations

import html
import re

from ...model import Document
from .plain import read_plain
from .roffpage import NAME_HEADS, RoffPage, name_title, page_document

_COMMAND = re.compile(r"=([a-zA-Z]\w*)[ \t]*(.*)", re.S)
_CODE = re.compile(r"([IBCLEFSXZ])(<+)")
#: What the named escapes print beyond HTML's entities.
_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}
#: Formatters whose ``=begin`` blocks hold text a reader reads.
_TEXT_FORMATS = frozenset({"text", "plaintext", "pod"})


def read_pod(text: str, *, doc_id: str, source: str) -> Document:
    paragraphs = re.split(r"\n[ \t]*\n", text)
    if not any(p.startswith("=") for p in paragraphs):
        return read_plain(text, doc_id=doc_id, source=source)
    page = RoffPage()
    title = _write(paragraphs, page)
    if title:
        page.title(title)
    return page_document(page, text, "pod", {"title": title}, doc_id=doc_id, source=source)


def _write(paragraphs: list[str], page: RoffPage) -> str:
    """The paragraphs onto ``page``; the title the NAME section gives."""
    in_pod = True  # a file of only POD may leave out =pod
    skip_to: str | None = None  # inside =begin FORMAT for another formatter
    in_name = False
    title = ""
    verbatim = False  # the paragraph before was verbatim: its listing is open
    for para in paragraphs:
        para = para.strip("\n")
        if not para.strip():
            continue
        m = _COMMAND.match(para) if para.startswith("=") else None
        if skip_to is not None:
            if m is not None and m.group(1) == "end" and m.group(2).split()[:1] == [skip_to]:
                skip_to = None
            continue
        if m is None:
            if not in_pod:
                continue
            if para[:1] in " \t":  # verbatim; one after another, one listing
                lines = para.split("\n")
                indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
                if verbatim:
                    page.text("")
                else:
                    page.start_pre()
                for line in lines:
                    page.text(line[indent:].rstrip())
                verbatim = True
                continue
            page.end_pre()
            verbatim = False
            if in_name:
                title = name_title(_inline(para))
                in_name = False
            else:
                page.text(_inline(para))
                page.paragraph()
            continue
        page.end_pre()
        verbatim = False
        command, arg = m.group(1), m.group(2)
        in_pod = command != "cut"
        if command.startswith("head") and command[4:].isdigit():
            level = min(int(command[4:]), 5)
            heading = " ".join(_inline(arg).split())
            if level == 1 and heading.upper() in NAME_HEADS and not title:
                in_name = True
                page.paragraph()
                continue
            in_name = False
            page.heading(level + 1, heading)
        elif command == "over":
            page.nest()
        elif command == "back":
            page.outdent()
        elif command == "item":
            label = " ".join(_inline(arg).split())
            if label in ("*", "") or re.fullmatch(r"\d+\.?", label):
                page.bullet()
            else:
                page.term(label)
        elif command == "begin":
            fmt = (arg.split() or [""])[0]
            if fmt.lstrip(":") not in _TEXT_FORMATS:
                skip_to = fmt
        elif command == "for":
            fmt, _, rest = arg.partition(" ")
            if fmt.lstrip(":") in _TEXT_FORMATS and rest.strip():
                page.text(_inline(rest))
                page.paragraph()
    return title


def _inline(text: str) -> str:
    """Text with its formatting codes replaced by what they print."""
    out: list[str] = []
    _codes(text, 0, out, None)
    return "".join(out)


def _codes(text: str, i: int, out: list[str], close: str | None) -> int:
    """Writes ``text`` from ``i`` into ``out`` up to ``close`` (a code's closing angles);
    returns the index after it."""
    while i < len(text):
        if close is not None and text.startswith(close, i) and (len(close) == 1 or text[i - 1:i].isspace()):
            return i + len(close)
        m = _CODE.match(text, i)
        if m is None:
            out.append(text[i])
            i += 1
            continue
        letter, angles = m.group(1), m.group(2)
        inner: list[str] = []
        if len(angles) > 1:  # C<< a >b >>: closed by as many angles after a space
            end = _codes(text, m.end(), inner, ">" * len(angles))
            content = "".join(inner).strip()
        else:
            end = _codes(text, m.end(), inner, ">")
            content = "".join(inner)
        out.append(_printed(letter, content))
        i = end
    return i


def _printed(letter: str, content: str) -> str:
    if letter in ("X", "Z"):
        return ""
    if letter == "E":
        if content in _ESCAPES:
            return _ESCAPES[content]
        if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", content):
            return chr(int(content, 16) if content[:2].lower() == "0x" else int(content))
        return html.unescape(f"&{content};")
    if letter == "L":
        label, bar, target = content.partition("|")
        if bar:
            return label
        name, slash, section = content.partition("/")
        section = section.strip('"')
        if slash and section:
            return f"“{section}” in {name}" if name else f"“{section}”"
        return content
    return content
