"""E-mail: a message (.eml) or a mailbox (.mbox), each message read as the page it means."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zoomrag.cli import main
from zoomrag.errors import ZoomragError
from zoomrag.load import load_path

REFUND = """From: Ann Lee <ann@example.org>
To: Support <help@example.org>
Subject: Refund for order 4411
Date: Tue, 03 Nov 2026 10:15:00 +0100
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/plain; charset=utf-8

Hello,

my order 4411 arrived broken.
Can I get a refund?

Ann
--b1
Content-Type: application/pdf
Content-Disposition: attachment; filename="photo.pdf"

JVBERi0=
--b1--
"""

SHIPPING = """From: Bo <bo@example.org>
To: Support <help@example.org>
Subject: =?utf-8?q?Lieferung_nach_K=C3=B6ln?=
Date: Wed, 04 Nov 2026 09:00:00 +0000
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><body><p>Do you ship to <b>Cologne</b>?</p><ul><li>two boxes</li><li>by Friday</li></ul></body></html>
"""


def test_a_message_is_its_subject_over_who_sent_it_its_body_and_attachments(tmp_path):
    path = tmp_path / "refund.eml"
    path.write_text(REFUND)
    doc = load_path(path)
    assert doc.format == "eml"
    assert doc.metadata == {"title": "Refund for order 4411", "from": "Ann Lee <ann@example.org>",
                            "to": "Support <help@example.org>", "date": "2026-11-03T10:15:00+01:00"}
    assert doc.text.split("\n") == [
        "# Refund for order 4411", "", "From: Ann Lee <ann@example.org>", "To: Support <help@example.org>",
        "Date: Tue, 03 Nov 2026 10:15:00 +0100", "", "Hello,", "", "my order 4411 arrived broken.",
        "Can I get a refund?", "", "Ann", "", "Attachments: photo.pdf"]
    assert [b.type for b in doc.blocks] == ["heading", "text", "text", "text", "text", "text"]


def test_a_mailbox_is_its_messages_each_a_section(tmp_path):
    path = tmp_path / "support.mbox"
    path.write_text("".join(f"From sender@example.org Tue Nov  3 10:15:00 2026\n{m}\n" for m in (REFUND, SHIPPING)))
    doc = load_path(path)
    assert doc.format == "mbox" and doc.metadata == {"messages": 2}
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.type == "heading"] == [
        "# Refund for order 4411", "# Lieferung nach Köln"]
    # an HTML message is read as its page: its list stays a list
    assert "Do you ship to Cologne?\n\n- two boxes\n- by Friday" in doc.text
    index = str(tmp_path / "i.db")
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(path), "--index", index, "--embedder", "hash"]).exit_code == 0
    got = runner.invoke(main, ["query", "refund broken order", "--index", index, "--json", "--mode", "bm25"])
    top = json.loads(got.output)["contexts"][0]
    assert top["section_path"] == ["Refund for order 4411"] and "arrived broken" in top["text"]
    assert "Cologne" not in top["text"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=600) | st.tuples(st.integers(0, len(REFUND)), st.binary(max_size=30)).map(
    lambda p: REFUND.encode()[:p[0]] + p[1] + REFUND.encode()[p[0] + len(p[1]):]))
def test_any_bytes_give_a_message_or_a_clear_error(tmp_path, raw):
    for name in ("x.eml", "x.mbox"):
        path = tmp_path / name
        path.write_bytes(raw)
        try:
            doc = load_path(path)
        except ZoomragError:
            continue
        assert all(0 <= b.start < b.end <= len(doc.text) for b in doc.blocks)


def _message(n: int, sender: str, subject: str, body: str, reply_to: str = "") -> str:
    answers = f"In-Reply-To: <{reply_to}@example.org>\n" if reply_to else ""
    return (f"From {sender}@example.org Tue Mar 12 09:1{n}:00 2024\nFrom: {sender} <{sender}@example.org>\n"
            f"Subject: {subject}\nDate: Tue, 12 Mar 2024 09:1{n}:00 +0000\nMessage-ID: <{n}@example.org>\n{answers}\n"
            f"{body}\n\n")


def test_a_reply_quoting_the_message_it_answers_in_the_box_leaves_the_quote_out(tmp_path):
    path = tmp_path / "list.mbox"
    path.write_text(
        _message(1, "dana", "Window", "The payments table moves on Saturday.\nThe window is forty minutes.")
        + _message(2, "lee", "Re: Window", "Does the replica go down too?\n\nOn Tue, Dana wrote:\n"
                   "> The payments table moves on Saturday. The window\n> is forty minutes.", reply_to="1")
        + _message(3, "ann", "Re: Window", "> Nobody said this before.\nAgreed.", reply_to="1"))
    text = load_path(path).text
    assert "On Tue, Dana wrote:\n[quoted text of an earlier message left out]" in text
    assert text.count("The payments table moves on Saturday.") == 1
    assert "> Nobody said this before.\nAgreed." in text  # a quote of nothing in the box stays


def test_a_message_alone_keeps_what_it_quotes(tmp_path):
    path = tmp_path / "re.eml"
    path.write_text(_message(2, "lee", "Re: Window", "Yes.\n\n> The window is forty minutes.", reply_to="1")
                    .split("\n", 1)[1])
    assert "> The window is forty minutes." in load_path(path).text


def test_a_header_the_parser_chokes_on_is_shown_as_written(tmp_path):
    """The standard library raises AttributeError on the address ``. <user@example.com>``: the
    header is shown unparsed, and the mailbox's other messages are read."""
    path = tmp_path / "odd.mbox"
    path.write_text(_message(1, "dana", "Window", "Saturday.").replace(
        "From: dana <dana@example.org>", "From: . <user@example.com>") + _message(2, "lee", "Re: Window", "Sunday?"))
    doc = load_path(path)
    assert doc.metadata == {"messages": 2}
    assert "From: . <user@example.com>" in doc.text and "Sunday?" in doc.text
