"""E-mail: a message (``.eml``) or a mailbox of them (``.mbox``), read with the standard library.

Each message is written as the HTML it means and read as a page is (:mod:`.html`): its subject
as a heading, then who sent it to whom and when, then its body — the plain-text part as
paragraphs, else the HTML part as the page it is — and the names of its attachments. A mailbox
is its messages one after another, each a section, so a context says which message it is from;
a reply's quoted lines (``> …``) that a message it answers (``In-Reply-To``, ``References``)
holds word for word, earlier in the box, are put as :data:`QUOTE_LEFT_OUT` (they would be
returned twice, and outrank the message they quote); its other quotes are kept. A message's subject is its title, and its sender, recipients and date
its metadata.
"""

from __future__ import annotations

import email
import mailbox
import re
from email import policy
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ...errors import InputError
from ...model import Document
from .html import render_pages

_SHOWN = ("From", "To", "Cc", "Date")


def _header(msg: EmailMessage, name: str) -> str:
    try:
        return " ".join(str(msg.get(name, "") or "").split())
    except (ValueError, TypeError, IndexError, AttributeError, LookupError):
        # a malformed address or date the standard library's parser chokes on (it raises any of
        # these): the header as written, unparsed, rather than the message lost
        raw = next((v for k, v in msg.raw_items() if k.lower() == name.lower()), "")
        return " ".join(str(raw).split())


#: A line of quoted text in a plain-text reply: ``> …``, ``>> …``.
_QUOTED = re.compile(r"[ \t]*>")
#: What stands for quoted text the mailbox holds already, in an earlier message.
QUOTE_LEFT_OUT = "[quoted text of an earlier message left out]"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _unquoted(content: str, earlier: list[str]) -> str:
    """``content`` with each run of quoted lines (``> …``) that one of the ``earlier`` messages
    (flat) holds, word for word, put as :data:`QUOTE_LEFT_OUT`; a quote of anything else (a
    message not in the box) is kept."""
    lines = content.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _QUOTED.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and _QUOTED.match(lines[j]):
            j += 1
        said = _flat(" ".join(re.sub(r"^[ \t>]*", "", line) for line in lines[i:j]))
        out += [QUOTE_LEFT_OUT] if said and any(said in e for e in earlier) else lines[i:j]
        i = j
    return "\n".join(out)


_MESSAGE_ID = re.compile(r"<[^<>\s]+>")


def _references(msg: EmailMessage) -> list[str]:
    """The messages this one answers (``In-Reply-To``, ``References``), by Message-ID."""
    return _MESSAGE_ID.findall(f"{_header(msg, 'In-Reply-To')} {_header(msg, 'References')}")


def _plain_body(msg: EmailMessage) -> tuple[str, bool]:
    """The body's text and whether it is HTML."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return "", False
    try:
        content = part.get_content()
    except (LookupError, ValueError):  # an unknown charset, a broken encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload or "")
    return str(content).replace("\r\n", "\n"), part.get_content_subtype() == "html"


def _body_html(content: str, is_html: bool) -> str:
    if is_html:
        return content
    paragraphs = [p.strip() for p in content.split("\n\n")]
    return "".join(f"<p>{'<br>'.join(escape(line) for line in p.split(chr(10)))}</p>" for p in paragraphs if p)


def _message_html(msg: EmailMessage, body: tuple[str, bool], earlier: list[str] | None = None) -> str:
    """The page of ``msg`` with its ``body`` (:func:`_plain_body`), quotes of ``earlier``
    messages left out."""
    subject = _header(msg, "Subject") or "(no subject)"
    lines = [f"{name}: {escape(value)}" for name in _SHOWN if (value := _header(msg, name))]
    attached = [escape(name) for part in msg.iter_attachments() if (name := part.get_filename())]
    parts = [f"<h1>{escape(subject)}</h1>"]
    if lines:
        parts.append(f"<p>{'<br>'.join(lines)}</p>")
    content, is_html = body
    parts.append(_body_html(_unquoted(content, earlier) if earlier and not is_html else content, is_html))
    if attached:
        parts.append(f"<p>Attachments: {', '.join(attached)}</p>")
    return f"<html><body>{''.join(parts)}</body></html>"


def _metadata(msg: EmailMessage) -> dict[str, Any]:
    fields: dict[str, Any] = {"title": _header(msg, "Subject") or None}
    for name in ("From", "To"):
        if value := _header(msg, name):
            fields[name.lower()] = value
    try:
        fields["date"] = parsedate_to_datetime(_header(msg, "Date")).isoformat()
    except (TypeError, ValueError, IndexError):
        pass  # no date, or one no parser reads
    return fields


def _unreadable(source: str, e: Exception, what: str) -> InputError:
    return InputError(f"{source}: cannot read this {what} ({type(e).__name__}: {e}); check that it is a "
                      f"complete {what} file")


def _parsed(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=policy.default)


def read_eml(path: Path, doc_id: str) -> Document:
    source = str(path)
    try:
        msg = _parsed(path.read_bytes())
        text, blocks, _ = render_pages([_message_html(msg, _plain_body(msg))], "")
        fields = _metadata(msg)
    except (ValueError, TypeError, LookupError, IndexError, AttributeError) as e:
        raise _unreadable(source, e, "e-mail") from e
    return Document(id=doc_id, source=source, text=text, format="eml",
                    metadata=MappingProxyType(fields), blocks=tuple(blocks))


def read_mbox(path: Path, doc_id: str) -> Document:
    source = str(path)
    box = mailbox.mbox(str(path), create=False)
    try:
        pages = []
        bodies: dict[str, str] = {}  # Message-ID -> its plain text, flat: what a reply quotes
        for key in box.iterkeys():
            msg = _parsed(box.get_bytes(key))
            quoted = [bodies[ref] for ref in _references(msg) if ref in bodies]
            content, is_html = body = _plain_body(msg)
            pages.append(_message_html(msg, body, quoted))
            if not is_html and (own := _MESSAGE_ID.search(_header(msg, "Message-ID"))):
                bodies[own.group()] = _flat(content)
        text, blocks, _ = render_pages(pages, "\n\n")
    except (ValueError, TypeError, LookupError, IndexError, AttributeError) as e:
        raise _unreadable(source, e, "mailbox") from e
    finally:
        box.close()
    return Document(id=doc_id, source=source, text=text, format="mbox",
                    metadata=MappingProxyType({"messages": len(pages)}), blocks=tuple(blocks))
