"""E-mail: a message (``.eml``) or a mailbox of them (``.mbox``), read with the standard library.

Each message is written as the HTML it means and read as a page is (:mod:`.html`): its subject
as a heading, then who sent it to whom and when, then its body — the plain-text part as
paragraphs, else the HTML part as the page it is — and the names of its attachments. A mailbox
is its messages one after another, each a section, so a context says which message it is from.
A message's subject is its title, and its sender, recipients and date its metadata.
"""

from __future__ import annotations

import email
import mailbox
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
    except (ValueError, TypeError, IndexError):  # a malformed address or date header
        return ""


def _body_html(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, ValueError):  # an unknown charset, a broken encoding
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload or "")
    if part.get_content_subtype() == "html":
        return content
    paragraphs = [p.strip() for p in content.replace("\r\n", "\n").split("\n\n")]
    return "".join(f"<p>{'<br>'.join(escape(line) for line in p.split(chr(10)))}</p>" for p in paragraphs if p)


def _message_html(msg: EmailMessage) -> str:
    subject = _header(msg, "Subject") or "(no subject)"
    lines = [f"{name}: {escape(value)}" for name in _SHOWN if (value := _header(msg, name))]
    attached = [escape(name) for part in msg.iter_attachments() if (name := part.get_filename())]
    parts = [f"<h1>{escape(subject)}</h1>"]
    if lines:
        parts.append(f"<p>{'<br>'.join(lines)}</p>")
    parts.append(_body_html(msg))
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
        text, blocks, _ = render_pages([_message_html(msg)], "")
        fields = _metadata(msg)
    except (ValueError, TypeError, LookupError, IndexError, AttributeError) as e:
        raise _unreadable(source, e, "e-mail") from e
    return Document(id=doc_id, source=source, text=text, format="eml",
                    metadata=MappingProxyType(fields), blocks=tuple(blocks))


def read_mbox(path: Path, doc_id: str) -> Document:
    source = str(path)
    box = mailbox.mbox(str(path), create=False)
    try:
        pages = [_message_html(_parsed(box.get_bytes(key))) for key in box.iterkeys()]
        text, blocks, _ = render_pages(pages, "\n\n")
    except (ValueError, TypeError, LookupError, IndexError, AttributeError) as e:
        raise _unreadable(source, e, "mailbox") from e
    finally:
        box.close()
    return Document(id=doc_id, source=source, text=text, format="mbox",
                    metadata=MappingProxyType({"messages": len(pages)}), blocks=tuple(blocks))
