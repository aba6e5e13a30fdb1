"""Chat exports: Slack's (a channel's day, ``general/2024-03-05.json``), Discord's (as
DiscordChatExporter writes a channel), Telegram's (``result.json`` of a chat, or of every chat
of an account), Microsoft Teams' (a chat's or channel's messages as Graph returns them) and
Google Chat's (Takeout's ``messages.json`` of a space), read as who said what, when.

Read as any JSON, a Slack day was a section per message of ids, timestamps, avatars and the
message's text twice (``text`` and ``blocks``); who wrote it was a user id. Here each message
is a paragraph led by its time and author, in the chat's own words:

    [22:00] Dana Ortiz: Heads up: the staging database will be down tonight …
    ↳ [22:05] Lee Park: Does that include the read replica?

A Slack thread's replies follow the message they answer (``↳``), so a question and its answer
are one context. A chat of more than one day has a section per day (its date as the heading),
so a context says its day. Mentions, channel links and links are their names
(``<@U024BE7LH>`` → ``@Dana Ortiz`` when the file names that user), entities decoded; files
and attachments are named (``[file: q3.pdf]``). Joins, leaves and other service messages are
left out: they are the chat's bookkeeping, not what was said. Times are UTC for Slack (its
timestamps are epoch seconds) and as the export wrote them for Discord and Telegram.

A chat WhatsApp exports as text (``12/03/2024, 09:15 - Priya: …`` a message) is kept as written
by the plain-text reader, a block a message (:func:`message_spans`), as it has no blank lines to
part its paragraphs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from ...model import Block
from ..page import PageWriter

#: Slack messages that are bookkeeping, not what anyone said.
_SLACK_SERVICE = frozenset({"channel_join", "channel_leave", "group_join", "group_leave", "bot_add",
                            "bot_remove", "channel_archive", "channel_unarchive", "pinned_item",
                            "reminder_add", "tombstone"})
#: Share of a list's objects that must look like Slack messages for it to be read as one.
_MOST = 0.8


@dataclass(frozen=True)
class Message:
    when: datetime | None
    author: str
    text: str
    replies: tuple[Message, ...] = ()


@dataclass(frozen=True)
class Chat:
    """A chat's messages, in order, with a title and where it comes from (``slack``…)."""

    kind: str
    title: str
    messages: tuple[Message, ...]
    fields: Mapping[str, Any] = field(default_factory=dict)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


# --- Slack --------------------------------------------------------------------------------------

_SLACK_REF = re.compile(r"<([@#!])?([^<>|]*)(?:\|([^<>]*))?>")


def _is_slack(data: Any) -> bool:
    items = _dicts(data)
    if not items or len(items) < _MOST * len(data):
        return False
    return sum(1 for m in items if m.get("type") == "message" and "ts" in m) >= _MOST * len(items)


def _slack_author(m: dict[str, Any]) -> str:
    profile = _dict(m.get("user_profile"))
    bot = _dict(m.get("bot_profile"))
    for name in (_str(profile.get("real_name")), _str(profile.get("display_name")), _str(m.get("user_name")),
                 _str(m.get("username")), _str(bot.get("name")), _str(m.get("user")), _str(m.get("bot_id"))):
        if name.strip():
            return " ".join(name.split())
    return "unknown"


def _slack_text(text: str, names: Mapping[str, str]) -> str:
    def ref(m: re.Match[str]) -> str:
        kind, target, label = m.group(1), m.group(2), m.group(3)
        if kind == "@":
            return "@" + (label or names.get(target, target))
        if kind == "#":
            return "#" + (label or target)
        if kind == "!":  # <!here>, <!subteam^S1|@team>, <!date^…|fallback>
            return label or "@" + target.split("^")[0]
        if label and label != target:
            return f"{label} ({target})"
        return target

    return html.unescape(_SLACK_REF.sub(ref, text))


def _slack_extras(m: dict[str, Any]) -> list[str]:
    """Files named, and the text of attachments that are the message's own (a bot's alert), not
    a link's preview."""
    out = [f"[file: {name}]" for f in _dicts(m.get("files"))
           if (name := _str(f.get("name")) or _str(f.get("title")))]
    for a in _dicts(m.get("attachments")):
        if a.get("from_url") or a.get("original_url"):
            continue
        out += [t for key in ("pretext", "title", "text") if (t := _str(a.get(key)).strip())]
    return out


def _slack_when(ts: Any) -> datetime | None:
    try:
        return datetime.fromtimestamp(float(ts), tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def _slack(data: list[Any], source: str) -> Chat:
    items = [m for m in _dicts(data) if m.get("type") == "message"]
    names = {uid: name for m in items if isinstance(uid := m.get("user"), str) and (name := _slack_author(m)) != uid}
    said: list[tuple[dict[str, Any], Message]] = []
    for m in items:
        if m.get("subtype") in _SLACK_SERVICE:
            continue
        text = _slack_text(_str(m.get("text")), names)
        body = "\n".join(t for t in (text, *_slack_extras(m)) if t.strip())
        if body.strip():
            said.append((m, Message(_slack_when(m.get("ts")), _slack_author(m), body)))
    # A reply (its thread_ts not its own ts) follows the message that starts its thread, when
    # that message is in this file; else it stays where it is.
    starts = {str(m.get("ts")) for m, _ in said if m.get("thread_ts") in (None, m.get("ts"))}
    replies: dict[str, list[Message]] = {}
    top: list[tuple[str, Message]] = []
    for m, msg in said:
        thread = str(m.get("thread_ts", ""))
        if thread and thread != str(m.get("ts")) and thread in starts:
            replies.setdefault(thread, []).append(msg)
        else:
            top.append((str(m.get("ts")), msg))
    messages = tuple(Message(msg.when, msg.author, msg.text, tuple(replies.get(ts, ()))) for ts, msg in top)
    path = PurePath(source)
    channel = path.parent.name
    title = f"#{channel} {path.stem}" if channel else path.stem
    return Chat("slack", title, messages, {"channel": channel} if channel else {})


# --- Discord (DiscordChatExporter) ----------------------------------------------------------------

def _is_discord(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("channel"), dict) and isinstance(data.get("messages"), list)
            and all("author" in m and "timestamp" in m for m in _dicts(data["messages"])[:50]))


def _iso(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(_str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def _discord(data: dict[str, Any]) -> Chat:
    channel = data["channel"]
    guild = _str(data["guild"].get("name")) if isinstance(data.get("guild"), dict) else ""
    name = _str(channel.get("name"))
    messages = []
    for m in _dicts(data["messages"]):
        if m.get("type") not in (None, "Default", "Reply", "ThreadStarterMessage"):
            continue  # joins, pins, calls
        author = _dict(m.get("author"))
        who = _str(author.get("nickname")) or _str(author.get("name")) or "unknown"
        parts = [_str(m.get("content"))]
        parts += [f"[file: {n}]" for a in _dicts(m.get("attachments")) if (n := _str(a.get("fileName")))]
        for e in _dicts(m.get("embeds")):
            parts += [t for key in ("title", "description") if (t := _str(e.get(key)).strip())]
        body = "\n".join(p for p in parts if p.strip())
        if body:
            messages.append(Message(_iso(m.get("timestamp")), who, body))
    title = " › ".join(t for t in (guild, f"#{name}" if name else "") if t) or "Discord"
    fields = {k: v for k, v in (("guild", guild), ("channel", name), ("topic", _str(channel.get("topic")))) if v}
    return Chat("discord", title, tuple(messages), fields)


# --- Telegram -------------------------------------------------------------------------------------

def _is_telegram_chat(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("messages"), list) and "channel" not in data
            and all("date" in m and "type" in m for m in _dicts(data["messages"])[:50]))


def _telegram_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # plain strings and entities ({"type": "link", "text": …})
        return "".join(v if isinstance(v, str) else _str(v.get("text")) if isinstance(v, dict) else ""
                       for v in value)
    return ""


def _telegram(data: dict[str, Any]) -> Chat:
    messages = []
    for m in _dicts(data["messages"]):
        if m.get("type") != "message":
            continue  # service messages: joins, pins, calls
        parts = [_telegram_text(m.get("text"))]
        for key in ("file", "photo"):
            if isinstance(m.get(key), str):
                parts.append(f"[{'file' if key == 'file' else 'photo'}: {PurePath(m[key]).name}]")
        body = "\n".join(p for p in parts if p.strip())
        if body:
            who = _str(m.get("from")) or _str(m.get("author")) or "unknown"
            messages.append(Message(_iso(m.get("date")), who, body))
    return Chat("telegram", _str(data.get("name")) or "Telegram chat", tuple(messages))


def _telegram_chats(data: Any) -> list[dict[str, Any]] | None:
    """The chats of a Telegram export: the file's one, or every chat of an account's."""
    if _is_telegram_chat(data):
        return [data]
    chats = data.get("chats") if isinstance(data, dict) else None
    listed = _dicts(chats.get("list")) if isinstance(chats, dict) else []
    if listed and all(_is_telegram_chat(c) for c in listed):
        return listed
    return None


# --- Microsoft Teams (Graph's chatMessage) and Google Chat (Takeout) ----------------------------------

def _teams_items(data: Any) -> list[dict[str, Any]] | None:
    items = data.get("value") if isinstance(data, dict) else data
    messages = _dicts(items)
    if not messages or len(messages) < len(items or ()) or not all(
            "messageType" in m and "createdDateTime" in m and isinstance(m.get("body"), dict) for m in messages[:50]):
        return None
    return messages


def _html_text(content: str) -> str:
    """A message body's text: HTML (Teams writes ``<p>`` and ``<at>``) without its tags."""
    tree = LexborHTMLParser(content.replace("</p>", "</p>\n").replace("<br>", "\n"))
    return tree.body.text(separator="") if tree.body is not None else ""


def _teams_message(m: dict[str, Any]) -> Message | None:
    if m.get("messageType") != "message" or m.get("deletedDateTime"):
        return None  # system events (members added, calls) and deleted messages
    sender = _dict(m.get("from"))
    who = next((_str(_dict(sender.get(k)).get("displayName")) for k in ("user", "application", "device")
                if _str(_dict(sender.get(k)).get("displayName"))), "unknown")
    body = _dict(m.get("body"))
    content = _str(body.get("content"))
    text = _html_text(content) if _str(body.get("contentType")).lower() == "html" else content
    parts = [f"{_str(m.get('subject'))}:" if _str(m.get("subject")) else "", text]
    parts += [f"[file: {n}]" for a in _dicts(m.get("attachments")) if (n := _str(a.get("name")))]
    said = "\n".join(p.strip() for p in parts if p.strip())
    if not said:
        return None
    replies = tuple(r for x in _dicts(m.get("replies")) if (r := _teams_message(x)) is not None)
    return Message(_iso(m.get("createdDateTime")), who, said, replies)


def _teams(items: list[dict[str, Any]], source: str) -> Chat:
    """A Teams chat or channel as Graph returns it (``{"value": [chatMessage…]}``), oldest first
    (Graph lists the newest first); replies under the message they answer (``replyToId``, or
    ``replies`` when expanded)."""
    ordered = sorted(items, key=lambda m: _str(m.get("createdDateTime")))
    ids = {_str(m.get("id")) for m in ordered}
    answers: dict[str, list[Message]] = {}
    top: list[tuple[str, Message]] = []
    for m in ordered:
        msg = _teams_message(m)
        if msg is None:
            continue
        parent = _str(m.get("replyToId"))
        if parent and parent in ids:
            answers.setdefault(parent, []).append(msg)
        else:
            top.append((_str(m.get("id")), msg))
    messages = tuple(Message(msg.when, msg.author, msg.text, msg.replies + tuple(answers.get(i, ())))
                     for i, msg in top)
    return Chat("teams", PurePath(source).stem or "Teams chat", messages)


#: How Google Takeout writes a message's date, in English: ``Tuesday, 12 March 2024 at
#: 09:15:32 UTC`` (or the US order with AM/PM).
_GOOGLE_DATES = ("%A, %d %B %Y at %H:%M:%S %Z", "%A, %B %d, %Y at %I:%M:%S %p %Z")


def _google_date(value: Any) -> datetime | None:
    text = " ".join(_str(value).replace("\u202f", " ").split())
    for fmt in _GOOGLE_DATES:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def _is_google_chat(data: Any) -> bool:
    messages = _dicts(data.get("messages")) if isinstance(data, dict) else []
    return bool(messages) and all("creator" in m and "created_date" in m for m in messages[:50])


def _google_chat(data: dict[str, Any], source: str) -> Chat:
    messages = []
    for m in _dicts(data["messages"]):
        parts = [_str(m.get("text"))]
        parts += [f"[file: {n}]" for a in _dicts(m.get("attached_files")) if (n := _str(a.get("original_name")))]
        said = "\n".join(p for p in parts if p.strip())
        if said:
            who = _str(_dict(m.get("creator")).get("name")) or "unknown"
            messages.append(Message(_google_date(m.get("created_date")), who, said))
    space = PurePath(source).parent.name
    return Chat("google-chat", space or "Google Chat", tuple(messages), {"space": space} if space else {})


def chats_of(data: Any, source: str) -> list[Chat] | None:
    """The chats a parsed JSON file holds, if it is a chat export; else None."""
    if isinstance(data, list) and _is_slack(data):
        return [_slack(data, source)]
    if _is_discord(data):
        return [_discord(data)]
    telegram = _telegram_chats(data)
    if telegram is not None:
        return [_telegram(c) for c in telegram]
    teams = _teams_items(data)
    if teams is not None:
        return [_teams(teams, source)]
    if _is_google_chat(data):
        return [_google_chat(data, source)]
    return None


# --- the page -----------------------------------------------------------------------------------

def _lead(msg: Message, dated: bool) -> str:
    if msg.when is None:
        return f"{msg.author}: "
    stamp = msg.when.strftime("%Y-%m-%d %H:%M" if dated else "%H:%M")
    return f"[{stamp}] {msg.author}: "


def _day(msg: Message) -> str:
    return msg.when.date().isoformat() if msg.when else ""


def _one_block(text: str) -> str:
    """A message's text as one paragraph: its blank lines closed up, its lines kept."""
    return "\n".join(line.strip() for line in text.strip().split("\n") if line.strip())


def _flat(messages: Sequence[Message]) -> Iterator[Message]:
    for m in messages:
        yield m
        yield from m.replies


def write_chats(chats: Sequence[Chat]) -> tuple[str, tuple[Block, ...], dict[str, Any]]:
    """The page of ``chats``: its text, blocks and metadata."""
    page = PageWriter()
    for chat in chats:
        days = {_day(m) for m in _flat(chat.messages)} - {""}
        one_day = len(days) <= 1
        title = chat.title
        if one_day and days and not title.endswith(next(iter(days))):
            title = f"{title}, {next(iter(days))}"
        page.heading(1, title)
        day = ""
        for m in chat.messages:
            if not one_day and _day(m) and _day(m) != day:
                day = _day(m)
                page.heading(2, day)
            page.paragraph(_lead(m, False) + _one_block(m.text))
            for r in m.replies:
                page.paragraph("↳ " + _lead(r, not one_day and _day(r) != day) + _one_block(r.text))
    text, blocks = page.page()
    authors = list(dict.fromkeys(m.author for c in chats for m in _flat(c.messages)))
    fields: dict[str, Any] = {"title": chats[0].title if len(chats) == 1 else None, "chat": chats[0].kind,
                              "messages": sum(1 for c in chats for _ in _flat(c.messages)), "authors": authors}
    if len(chats) == 1:
        fields.update(chats[0].fields)
    return text, blocks, fields


# --- WhatsApp (a chat exported as text) ----------------------------------------------------------

#: A message's first line in WhatsApp's export: ``12/03/2024, 09:15 - Priya: …`` (Android) or
#: ``[12/03/2024, 09:15:32] Priya: …`` (iOS), with the date and clock the phone's locale writes.
_WHATSAPP = re.compile(
    r"\u200e?(?:\[\d{1,4}[./-]\d{1,2}[./-]\d{1,4},? \d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[\s\u202f]?[APap]\.?[Mm]\.?)?\]"
    r"|\d{1,4}[./-]\d{1,2}[./-]\d{1,4},? \d{1,2}[:.]\d{2}(?:[\s\u202f]?[APap]\.?[Mm]\.?)? [-–]) ")
#: Share of a text's lines that must start a message for it to be read as a WhatsApp chat.
_WHATSAPP_SHARE = 0.5


def message_spans(text: str) -> list[tuple[int, int]] | None:
    """Each message of a chat exported as text (its first line with the lines that go on
    from it), if the text is one; else None."""
    starts = [m.start() for m in re.finditer(r"^", text, re.M) if _WHATSAPP.match(text, m.start())]
    lines = sum(1 for line in text.split("\n") if line.strip())
    if len(starts) < 2 or len(starts) < _WHATSAPP_SHARE * lines:
        return None
    spans = []
    for a, b in zip(starts, [*starts[1:], len(text)]):
        end = len(text[a:b].rstrip()) + a
        if end > a:
            spans.append((a, end))
    return spans
