"""Chat exports (Slack, Discord, Telegram) read as who said what, when."""

from __future__ import annotations

import json

from cli_support import index_folder, top_context
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.load import read_text
from zoomrag.load.readers.chat import message_spans

SLACK_DAY = [
    {"type": "message", "subtype": "channel_join", "user": "U3", "text": "<@U3> has joined the channel",
     "ts": "1709636400.000050"},
    {"client_msg_id": "0c8f", "type": "message", "user": "U1", "ts": "1709640000.000100",
     "text": "Heads up &amp; FYI: staging is down tonight, see <https://wiki.example/ops|the runbook> and <#C9|ops>.",
     "user_profile": {"real_name": "Dana Ortiz", "display_name": "dana"},
     "blocks": [{"type": "rich_text", "elements": [{"type": "text", "text": "Heads up"}]}]},
    {"type": "message", "user": "U2", "ts": "1709640300.000200", "thread_ts": "1709640000.000100",
     "text": "<@U1> does that include the replica?", "user_profile": {"real_name": "Lee Park"}},
    {"type": "message", "user": "U4", "ts": "1709640400.000300", "text": "Lunch?\n\nAnyone?",
     "files": [{"name": "menu.pdf"}]},
    {"type": "message", "user": "U1", "ts": "1709640600.000300", "thread_ts": "1709640000.000100",
     "text": "Yes, <!here> the replica too.", "user_profile": {"real_name": "Dana Ortiz"}},
]


def test_a_slack_day_is_its_messages_with_threads_under_their_start(tmp_path):
    doc = read_text(json.dumps(SLACK_DAY), format="json", source="export/general/2024-03-05.json")
    assert doc.text == (
        "# #general 2024-03-05\n\n"
        "[12:00] Dana Ortiz: Heads up & FYI: staging is down tonight, see the runbook "
        "(https://wiki.example/ops) and #ops.\n\n"
        "↳ [12:05] Lee Park: @Dana Ortiz does that include the replica?\n\n"
        "↳ [12:10] Dana Ortiz: Yes, @here the replica too.\n\n"
        "[12:06] U4: Lunch?\nAnyone?\n[file: menu.pdf]")
    assert dict(doc.metadata) == {"title": "#general 2024-03-05", "chat": "slack", "messages": 4,
                                  "authors": ["Dana Ortiz", "Lee Park", "U4"], "channel": "general"}
    check_rendered_blocks(doc)


def test_a_list_of_other_records_is_still_json():
    doc = read_text(json.dumps([{"type": "message", "name": "a"}, {"title": "b"}]), format="json", source="a.json")
    assert "chat" not in doc.metadata
    assert doc.text.startswith("# ")


DISCORD = {
    "guild": {"id": "1", "name": "Frob Community"},
    "channel": {"id": "2", "type": "GuildTextChat", "name": "help", "topic": "Ask here"},
    "messages": [
        {"id": "10", "type": "Default", "timestamp": "2024-03-05T09:00:00+00:00", "content": "How do I reset my key?",
         "author": {"id": "5", "name": "ann", "nickname": "Ann"}, "attachments": [], "embeds": []},
        {"id": "11", "type": "GuildMemberJoin", "timestamp": "2024-03-05T09:01:00+00:00", "content": "",
         "author": {"id": "6", "name": "bo"}},
        {"id": "12", "type": "Reply", "timestamp": "2024-03-06T10:00:00+00:00",
         "content": "Run `frob key --reset`.", "author": {"id": "7", "name": "mod"},
         "attachments": [{"fileName": "screenshot.png"}], "embeds": [], "reference": {"messageId": "10"}},
    ],
}


def test_a_discord_channel_has_a_section_a_day():
    doc = read_text(json.dumps(DISCORD), format="json", source="help.json")
    assert doc.text == ("# Frob Community › #help\n\n## 2024-03-05\n\n[09:00] Ann: How do I reset my key?\n\n"
                        "## 2024-03-06\n\n[10:00] mod: Run `frob key --reset`.\n[file: screenshot.png]")
    assert [b.level for b in doc.blocks] == [1, 2, 0, 2, 0]
    assert doc.metadata["topic"] == "Ask here"
    assert doc.metadata["chat"] == "discord"


TELEGRAM = {
    "name": "Release crew", "type": "private_group", "id": 42,
    "messages": [
        {"id": 1, "type": "service", "date": "2024-03-05T08:00:00", "actor": "Ann", "action": "create_group"},
        {"id": 2, "type": "message", "date": "2024-03-05T08:05:00", "from": "Ann",
         "text": ["Release notes are ", {"type": "link", "text": "here"}, "."]},
        {"id": 3, "type": "message", "date": "2024-03-05T08:07:00", "from": "Bo", "text": "",
         "file": "files/notes.pdf", "reply_to_message_id": 2},
    ],
}


def test_telegram_chats_one_or_an_accounts_all():
    one = read_text(json.dumps(TELEGRAM), format="json", source="result.json")
    assert one.text == ("# Release crew, 2024-03-05\n\n[08:05] Ann: Release notes are here.\n\n"
                        "[08:07] Bo: [file: notes.pdf]")
    account = read_text(json.dumps({"about": "export", "chats": {"about": "", "list": [TELEGRAM, TELEGRAM]}}),
                        format="json", source="result.json")
    assert account.text == "\n\n".join([one.text] * 2)
    assert account.metadata["messages"] == 4


def test_a_question_finds_the_thread_that_answers_it(tmp_path):
    (tmp_path / "general").mkdir()
    (tmp_path / "general" / "2024-03-05.json").write_text(json.dumps(SLACK_DAY), encoding="utf-8")
    (tmp_path / "notes.md").write_text("# Notes\n\nNothing about databases here.\n", encoding="utf-8")
    context = top_context(index_folder(tmp_path, tmp_path), "replica staging")
    assert context["source"].endswith("2024-03-05.json")
    assert "↳ [12:05] Lee Park: @Dana Ortiz does that include the replica?" in context["text"]


_WORDS = st.lists(st.text(alphabet="abcdef", min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_WORDS, st.sampled_from(["U1", "U2"]), st.integers(-1, 5), st.integers(0, 200_000)),
                min_size=1, max_size=15))
def test_every_slack_message_is_read_once(messages):
    """Random Slack days, replies to random earlier messages: the blocks lie in the text, and
    every word written is read once, in its message's paragraph."""
    data = []
    for i, (words, user, parent, dt) in enumerate(messages):
        ts = f"{1709640000 + dt}.{i:06d}"
        m = {"type": "message", "user": user, "ts": ts, "text": " ".join(f"{w}{i}" for w in words),
             "user_profile": {"real_name": "Ann Lee" if user == "U1" else "Bo"}}
        if 0 <= parent < i:
            m["thread_ts"] = data[parent].get("thread_ts", data[parent]["ts"])
        data.append(m)
    doc = read_text(json.dumps(data), format="json", source="c/d.json")
    check_rendered_blocks(doc)
    paragraphs = [doc.text[b.start:b.end] for b in doc.blocks if b.type == "text"]
    assert len(paragraphs) == len(messages)
    said = sorted(w for m in data for w in m["text"].split())
    read = sorted(w for p in paragraphs for w in p.split(": ", 1)[1].split())
    assert read == said


def test_a_whatsapp_export_is_read_a_message_a_block():
    android = ("12/03/2024, 09:15 - Priya Nair: Is the flag at five percent?\n"
               "12/03/2024, 09:17 - Marcus Webb: Yes. We go to 25% on Thursday.\nError rate is 0.2%.\n"
               "13/03/2024, 18:02 - Sofia Alvarez: Runbook updated 👍\n")
    doc = read_text(android, format="text", source="WhatsApp Chat with Billing.txt")
    assert doc.text == android
    assert [doc.text[b.start:b.end] for b in doc.blocks] == [
        "12/03/2024, 09:15 - Priya Nair: Is the flag at five percent?",
        "12/03/2024, 09:17 - Marcus Webb: Yes. We go to 25% on Thursday.\nError rate is 0.2%.",
        "13/03/2024, 18:02 - Sofia Alvarez: Runbook updated 👍"]
    ios = "[3/12/24, 9:15:32\u202fAM] Priya: Flag?\n\u200e[3/12/24, 9:17:01\u202fAM] Marcus: Five percent.\n"
    assert len(read_text(ios, format="text", source="_chat.txt").blocks) == 2


def test_text_with_a_few_dated_lines_is_paragraphs():
    text = "Minutes\n\n12/03/2024, 09:15 - Start of the meeting.\nWe talked.\nA lot.\nMore.\n\nEnd.\n"
    doc = read_text(text, format="text", source="m.txt")
    assert [doc.text[b.start:b.end] for b in doc.blocks][0] == "Minutes"
    assert len(doc.blocks) == 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.text(alphabet="ab \n", max_size=12)), min_size=1, max_size=12))
def test_whatsapp_messages_are_trimmed_spans_in_order(lines):
    """Lines that start messages or go on from them: each message starts a line where its date
    does and ends at text, in order, and together they hold every character from the first."""
    text = "".join((f"1/2/24, 9:0{i % 10} - A: " if start else "") + body + "\n"
                   for i, (start, body) in enumerate(lines))
    check_rendered_blocks(read_text(text, format="text", source="c.txt"))
    spans = message_spans(text)
    if spans is None:
        return
    prev = 0
    for s, e in spans:
        assert prev <= s < e and (s == 0 or text[s - 1] == "\n") and text.startswith("1/2/24, ", s)
        assert not text[e - 1].isspace()
        prev = e
    assert " ".join(text[s:e] for s, e in spans).split() == text[spans[0][0]:].split()


TEAMS = {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#chats('19%3A1')/messages", "value": [
    {"id": "3", "replyToId": "1", "messageType": "message", "createdDateTime": "2024-03-12T09:20:00.000Z",
     "from": {"user": {"displayName": "Lee Park"}},
     "body": {"contentType": "html", "content": "<p>Yes, <at id=\"0\">Dana Ortiz</at>, it is on the wiki.</p>"}},
    {"id": "2", "messageType": "systemEventMessage", "createdDateTime": "2024-03-12T09:16:00.000Z", "from": None,
     "body": {"contentType": "html", "content": "<systemEventMessage/>"}},
    {"id": "4", "messageType": "message", "createdDateTime": "2024-03-12T09:30:00.000Z",
     "deletedDateTime": "2024-03-12T09:31:00.000Z", "from": {"user": {"displayName": "Lee Park"}},
     "body": {"contentType": "text", "content": ""}},
    {"id": "1", "messageType": "message", "createdDateTime": "2024-03-12T09:15:00.000Z", "subject": "Runbook",
     "from": {"user": {"displayName": "Dana Ortiz"}},
     "body": {"contentType": "html", "content": "<p>Is the refund runbook written?</p><p>Need it Friday.</p>"},
     "attachments": [{"id": "a", "contentType": "reference", "name": "plan.docx"}]}]}


def test_teams_messages_oldest_first_with_replies_under_their_message():
    doc = read_text(json.dumps(TEAMS), format="json", source="billing.json")
    assert doc.text == ("# billing, 2024-03-12\n\n[09:15] Dana Ortiz: Runbook:\nIs the refund runbook written?\n"
                        "Need it Friday.\n[file: plan.docx]\n\n↳ [09:20] Lee Park: Yes, Dana Ortiz, it is on the wiki.")
    assert doc.metadata["chat"] == "teams"


def test_a_google_chat_space_from_takeout():
    data = {"messages": [
        {"creator": {"name": "Priya Nair", "email": "p@example.com"}, "text": "Flag is at five percent.",
         "created_date": "Tuesday, 12 March 2024 at 09:15:32 UTC"},
        {"creator": {"name": "Marcus Webb"}, "created_date": "Wednesday, March 13, 2024 at 6:02:10\u202fPM UTC",
         "text": "Runbook updated.", "attached_files": [{"original_name": "runbook.pdf"}]}]}
    doc = read_text(json.dumps(data), format="json", source="Google Chat/Groups/Space Billing/messages.json")
    assert doc.text == ("# Space Billing\n\n## 2024-03-12\n\n[09:15] Priya Nair: Flag is at five percent.\n\n"
                        "## 2024-03-13\n\n[18:02] Marcus Webb: Runbook updated.\n[file: runbook.pdf]")
    assert doc.metadata["space"] == "Space Billing"


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=False), st.text(max_size=8),
                     st.sampled_from(["message", "service", "Default", "html", "1709640000.1", "2024-03-05T09:00:00",
                                      "<p>x</p>", "<@U1>"]))
_KEYS = st.sampled_from(["type", "ts", "text", "user", "user_profile", "thread_ts", "subtype", "files", "attachments",
                         "channel", "guild", "messages", "author", "timestamp", "content", "name", "date", "from",
                         "chats", "list", "value", "messageType", "createdDateTime", "body", "contentType",
                         "replyToId", "replies", "creator", "created_date", "segments", "start", "end", "speaker",
                         "utterances", "results", "transcript", "id"])


@settings(max_examples=300, deadline=None)
@given(st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(_KEYS, inner, max_size=6)), max_leaves=30))
def test_json_shaped_almost_like_an_export_is_read_without_error(value):
    """Chat exports and recognisers' JSON with missing, mistyped or odd fields: read as
    something, never a traceback."""
    doc = read_text(json.dumps(value), format="json", source="c/d.json")
    check_rendered_blocks(doc)
