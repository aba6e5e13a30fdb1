"""Transcripts and subtitles: WebVTT (``.vtt``), SubRip (``.srt``), YouTube's SubViewer (``.sbv``)
and SubStation Alpha (``.ass``, ``.ssa``), read as who said what, when.

Read as plain text, a meeting's captions were timing lines, cue numbers and ``<v>`` tags, with a
sentence broken over three cues; a context began at ``00:00:09.000 --> 00:00:14.200``. Here the
cues are joined into paragraphs, each led by when it starts and who speaks:

    [00:04] Lee Park: Sure. Yesterday I finished the migration of the billing service …

A paragraph is one speaker's turn. The speaker is the cue's voice (``<v Lee Park>``, as Teams
and WebVTT write it), else a name before a colon that leads two cues or more (``Lee Park: …``, as
Zoom writes it); ``>>`` (broadcast captions) and a line led by a dash (two speakers in one cue)
start a turn whose speaker is not named. A long turn is parted at a pause of
:data:`PAUSE` seconds, or at a sentence's end once it runs :data:`LONG` words, so a lecture is
paragraphs and not one block.

Markup is left out: the header, ``NOTE``, ``STYLE`` and ``REGION`` blocks, cue numbers and
settings, tags, SubRip's ``{\\an8}`` overrides. Captions that roll up (each cue repeating the
line before it, as YouTube's automatic captions do) are read once: a cue's first lines are
dropped when they repeat the lines just read, but only in a file where a quarter of the cues or
more go on from the line the cue before ended with. A file with no cue at all is read as plain
text, so nothing in it is lost.

A SubStation script's ``Dialogue:`` events are its cues, in time order, each event's ``Name``
its speaker; its comments, styles, drawings (``{\\p1}m 0 0 l …``), embedded fonts and override
tags are left out. A speech recogniser's JSON (Whisper's ``segments``, AssemblyAI's and
Deepgram's ``utterances``) is read the same way by the JSON reader (:func:`segment_cues`).
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ...model import Block, Document
from ..page import PageWriter
from .plain import read_plain

#: A cue's timing line: ``00:01:02.500 --> 00:01:04.000`` (``,`` in SubRip), hours optional.
_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?"
_TIMING = re.compile(rf"[ \t]*{_TIME}[ \t]*-->[ \t]*{_TIME}(?:[ \t].*)?")
#: YouTube's SubViewer (``.sbv``): ``0:00:01.000,0:00:04.000``.
_SBV_TIMING = re.compile(rf"[ \t]*{_TIME},{_TIME}[ \t]*")
#: A voice span's start tag: ``<v Lee Park>``, ``<v.loud Lee>``.
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?[ \t]+([^>]*)>")
_TAG = re.compile(r"<[^>]*>")
#: SubRip's (and ASS's) style overrides: ``{\an8}``, ``{\i1}``.
_OVERRIDE = re.compile(r"\{\\[^}]*\}")
#: A line led by ``>>`` (a new speaker in broadcast captions) or a dash (a second speaker).
_CHANGE = re.compile(r"(?:>>+|[-–—])[ \t]+|[-–—](?=[^\W\d_])")
#: A name leading a cue's text, before a colon: at most four words, no sentence punctuation.
_NAMED = re.compile(r"([^\s:.?!,;\"()\[\]<>][^:.?!,;\"()\[\]<>\n]{0,38}?)[ \t]*:[ \t]+(?=\S)")
_NAME_WORDS = 4

#: Seconds of silence that part a speaker's turn (when it has :data:`SHORT` words or more).
PAUSE = 2.0
#: Words a paragraph holds before a pause may end it.
SHORT = 40
#: Words after which a turn is parted at the next sentence end.
LONG = 120
#: Words after which a turn is parted at the next cue, sentence or not (captions without stops).
LONGEST = 250
#: Share of cues that must repeat the line before them for the file to be read as rolling up.
ROLLING = 0.25
_SENTENCE_END = re.compile(r"[.?!…。？！][\"'”’)\]]*$")


@dataclass(frozen=True)
class Cue:
    """One timed piece of speech: seconds from the start, its speaker ("" when not named),
    whether it starts a turn of an unnamed speaker, and its lines of text."""

    start: float
    end: float
    speaker: str
    lines: tuple[str, ...]
    new_turn: bool = False


@dataclass(frozen=True)
class Paragraph:
    start: float
    speaker: str
    text: str


def _seconds(h: str | None, m: str, s: str, ms: str | None) -> float:
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + (int(ms.ljust(3, "0")) / 1000 if ms else 0.0)


def _cue_blocks(text: str, timing: re.Pattern[str]) -> Iterator[tuple[float, float, list[str]]]:
    """Each cue's times and raw payload lines. A cue ends at an empty line or where the next
    timing line starts (a SubRip file missing its blank lines: the number above it is the next
    cue's, not this one's text)."""
    lines = text.split("\n")
    found = [(i, m.groups()) for i, line in enumerate(lines) if (m := timing.fullmatch(line))]
    timings = [i for i, _ in found]
    for k, (i, g) in enumerate(found):
        stop = timings[k + 1] if k + 1 < len(timings) else len(lines)
        payload = lines[i + 1:stop]
        if "" in payload:  # what follows an empty line is no cue's: a NOTE, the next cue's id
            payload = payload[:payload.index("")]
        elif k + 1 < len(timings):  # ran into the next cue: its number is the last line
            while payload and not payload[-1].strip():
                payload.pop()
            if payload and (payload[-1].strip().isdigit() or len(payload) > 1 and not payload[-2].strip()):
                payload.pop()
        yield _seconds(*g[:4]), _seconds(*g[4:]), payload


def _pieces(payload: list[str], vtt: bool) -> Iterator[tuple[str, bool, str]]:
    """``(speaker, new_turn, line)`` for each line of a cue's text, tags gone."""
    speaker = ""
    for raw in payload:
        line = raw
        if vtt:
            voice = _VOICE.search(line)
            if voice:
                speaker = " ".join(_TAG.sub("", voice.group(1)).split())
        else:
            line = _OVERRIDE.sub("", line)
        line = _TAG.sub("", line)
        if vtt:
            line = html.unescape(line)
        line = " ".join(line.split())
        if not line:
            continue
        change = _CHANGE.match(line)
        if change:
            line = line[change.end():]
        yield speaker, bool(change), line


def parse_cues(text: str, vtt: bool, timing: re.Pattern[str] = _TIMING) -> list[Cue]:
    """The cues of a WebVTT (``vtt``) or SubRip text (or SubViewer's, by its ``timing``), in the
    file's order; a cue whose lines change speaker is one cue per speaker."""
    cues: list[Cue] = []
    for start, end, payload in _cue_blocks(text, timing):
        run: list[str] = []
        who, turn = "", False
        for speaker, change, line in _pieces(payload, vtt):
            if run and (change or speaker != who):
                cues.append(Cue(start, end, who, tuple(run), turn))
                run = []
            if not run:
                who, turn = speaker, change
            run.append(line)
        if run:
            cues.append(Cue(start, end, who, tuple(run), turn))
    return cues


def _named(cues: list[Cue]) -> list[Cue]:
    """Cues led by ``Name:`` given that speaker, in a file written so: where a name leads two
    cues or more, or half the cues are led by one (every lead is then a name)."""
    leads = Counter(m.group(1) for c in cues if not c.speaker and (m := _NAMED.match(c.lines[0]))
                    and len(m.group(1).split()) <= _NAME_WORDS)
    led = sum(leads.values())
    if not any(n >= 2 for n in leads.values()) and (led < 2 or led < len(cues) / 2):
        return cues
    names = set(leads)
    out = []
    for c in cues:
        m = _NAMED.match(c.lines[0]) if not c.speaker else None
        if m and m.group(1) in names:
            c = Cue(c.start, c.end, m.group(1), (c.lines[0][m.end():], *c.lines[1:]), c.new_turn)
        out.append(c)
    return out


def _unrolled(cues: list[Cue]) -> list[Cue]:
    """Cues without the lines they repeat from the cues before, when the captions roll up: a
    quarter of the cues go on from the line the cue before ended with."""
    repeats = sum(1 for a, b in zip(cues, cues[1:]) if len(b.lines) > 1 and b.lines[0] == a.lines[-1])
    if len(cues) < 4 or repeats < ROLLING * (len(cues) - 1):
        return cues
    out = []
    recent: list[str] = []
    for c in cues:
        lines = list(c.lines)
        while lines and lines[0] in recent[-2:]:
            lines.pop(0)
        recent += lines
        if lines:
            out.append(Cue(c.start, c.end, c.speaker, tuple(lines), c.new_turn))
    return out


def paragraphs(cues: Iterable[Cue]) -> list[Paragraph]:
    """Cues joined into turns, a long turn parted at pauses and sentence ends."""
    out: list[Paragraph] = []
    words: list[str] = []
    start, speaker, last_end, ends_sentence = 0.0, "", 0.0, True

    def flush() -> None:
        if words:
            out.append(Paragraph(start, speaker, " ".join(words)))
            words.clear()

    for c in cues:
        n = len(words)
        if (c.speaker != speaker or c.new_turn
                or (n >= SHORT and c.start - last_end >= PAUSE)
                or (n >= LONG and ends_sentence) or n >= LONGEST):
            flush()
        if not words:
            start, speaker = c.start, c.speaker
        text = " ".join(c.lines)
        words.extend(text.split())
        last_end, ends_sentence = c.end, bool(_SENTENCE_END.search(text))
    flush()
    return out


#: The lead of a paragraph a conversation's reader writes (this one's and :mod:`.chat`'s): its
#: time in brackets and, when named, its speaker: ``[00:53] Sofia Alvarez:``, ``↳ [12:05] Lee:``.
TURN_LEAD = re.compile(r"(?:↳ )?\[[^\]\n]{1,20}\](?: [^\s:.?!,;\[\]][^:.?!,;\[\]\n]{0,58}?:)?")


#: Formats whose paragraphs are turns led by their time and speaker; a chat export or a speech
#: recogniser's JSON is a JSON document whose metadata names its ``chat`` or ``transcript``.
CONVERSATIONS = frozenset({"vtt", "srt", "sbv", "ass"})


def is_conversation(doc: Document) -> bool:
    return doc.format in CONVERSATIONS or (doc.format == "json" and ("chat" in doc.metadata
                                                                      or "transcript" in doc.metadata))


def speaker_of(lead: str) -> str:
    """The speaker a turn's lead names (``[00:53] Sofia Alvarez:`` → ``Sofia Alvarez``), or ""."""
    _, _, rest = lead.partition("] ")
    return rest.removesuffix(":").strip()


def turn_leads(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the lead of every paragraph of a conversation's text that has one."""
    starts = [0] + [m.end() for m in re.finditer(r"\n\n", text)]
    return [(s, m.end()) for s in starts if (m := TURN_LEAD.match(text, s))]


def lead_before(text: str, leads: list[tuple[int, int]], pos: int) -> tuple[int, int] | None:
    """The lead (of ``leads``, by start) of the turn ``pos`` lies inside of, after the lead;
    None at a lead or outside every turn's paragraph."""
    i = bisect_right(leads, (pos, len(text))) - 1
    if i < 0 or pos < leads[i][1] or "\n\n" in text[leads[i][1]:pos]:
        return None
    return leads[i]


def clock(seconds: float, hours: bool) -> str:
    """``mm:ss``, or ``h:mm:ss`` in a transcript that runs an hour or more."""
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if hours else f"{s // 60:02d}:{s % 60:02d}"


def transcript_page(cues: list[Cue], title: str, extra: Mapping[str, object]) -> tuple[str, tuple[Block, ...],
                                                                                     dict[str, object]]:
    """The text, blocks and metadata of a transcript of ``cues``: a paragraph a turn."""
    paras = paragraphs(cues)
    hours = max(c.end for c in cues) >= 3600
    page = PageWriter()
    if title:
        page.heading(1, title)
    for p in paras:
        page.paragraph(f"[{clock(p.start, hours)}] " + (f"{p.speaker}: " if p.speaker else "") + p.text)
    speakers = list(dict.fromkeys(p.speaker for p in paras if p.speaker))
    fields: dict[str, object] = {"title": title or None, "duration": clock(max(c.end for c in cues), hours),
                                 **extra}
    if speakers:
        fields["speakers"] = speakers
    text, blocks = page.page()
    return text, blocks, fields


def _document(text: str, doc_id: str, source: str, fmt: str, title: str, vtt: bool,
              extra: dict[str, str], timing: re.Pattern[str] = _TIMING) -> Document:
    cues = _unrolled(_named(parse_cues(text, vtt, timing)))
    if not cues:
        return read_plain(text, doc_id=doc_id, source=source)
    page, blocks, fields = transcript_page(cues, title, extra)
    return Document(id=doc_id, source=source, text=page, format=fmt, metadata=MappingProxyType(fields),
                    blocks=blocks)


def _timed(seg: Any, text_key: str) -> bool:
    return (isinstance(seg, dict) and isinstance(seg.get(text_key), str)
            and all(isinstance(seg.get(k), (int, float)) and not isinstance(seg.get(k), bool) for k in ("start", "end")))


def segment_cues(data: Any) -> tuple[str, list[Cue]] | None:
    """The recogniser and the cues of a speech recogniser's JSON, if ``data`` is one: Whisper's (and WhisperX's,
    faster-whisper's) ``{"segments": [{"start", "end", "text"}, …]}`` or the segments alone;
    AssemblyAI's ``utterances`` (times in milliseconds); Deepgram's ``results.utterances``
    (``transcript``). A segment's ``speaker`` is its speaker (``SPEAKER_00``; AssemblyAI's
    ``A``, Deepgram's ``0`` as ``Speaker A``, ``Speaker 0``)."""
    kind, scale, text_key, label = "whisper", 1.0, "text", False
    if isinstance(data, dict) and "segments" in data:
        segments = data["segments"]
    elif isinstance(data, dict) and "utterances" in data:
        kind, segments, scale, label = "assemblyai", data["utterances"], 0.001, True
    elif isinstance(data, dict) and isinstance(data.get("results"), dict) and "utterances" in data["results"]:
        kind, segments, text_key, label = "deepgram", data["results"]["utterances"], "transcript", True
    else:
        segments = data
    if not isinstance(segments, list) or not segments or not all(_timed(seg, text_key) for seg in segments):
        return None
    cues = []
    for seg in segments:
        said = " ".join(seg[text_key].split())
        if said:
            who = seg.get("speaker")
            name = (f"Speaker {who}" if label else who) if isinstance(who, str) or (
                isinstance(who, int) and not isinstance(who, bool)) else ""
            cues.append(Cue(seg["start"] * scale, seg["end"] * scale, str(name), (said,)))
    return (kind, cues) if cues else None


#: ``Kind: captions`` and ``Language: en`` lines of a WebVTT header (YouTube writes them).
_HEADER_FIELD = re.compile(r"([A-Za-z-]+):[ \t]*(\S.*)")


def read_vtt(text: str, *, doc_id: str, source: str) -> Document:
    first, _, rest = text.partition("\n")
    title = ""
    extra: dict[str, str] = {}
    if first.startswith("WEBVTT"):
        title = first[6:].strip(" \t-–—:")
        for line in rest.split("\n"):
            if not line.strip() or "-->" in line:
                break
            m = _HEADER_FIELD.fullmatch(line.strip())
            if m and m.group(1).lower() == "language":
                extra["language"] = m.group(2).strip()
    return _document(text, doc_id, source, "vtt", title, True, extra)


def read_srt(text: str, *, doc_id: str, source: str) -> Document:
    return _document(text, doc_id, source, "srt", "", False, {})


def read_sbv(text: str, *, doc_id: str, source: str) -> Document:
    return _document(text, doc_id, source, "sbv", "", False, {}, _SBV_TIMING)


# --- Advanced SubStation Alpha (.ass, .ssa) --------------------------------------------------------

_SECTION = re.compile(r"[ \t]*\[([^\]\n]+)\][ \t]*")
_ASS_TIME = re.compile(r"(\d+):(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?")
#: ``\N`` and ``\n`` (line breaks) and ``\h`` (a hard space) inside a dialogue's text.
_ASS_BREAK = re.compile(r"\\[Nnh]")
#: A drawing (``{\p1}m 0 0 l 100 0``): shapes, not words.
_DRAWING = re.compile(r"\{[^}]*\\p[1-9][^}]*\}[^{]*")
#: The title Aegisub gives every new file.
_NO_TITLE = frozenset({"", "default aegisub file"})


def _ass_seconds(value: str) -> float | None:
    m = _ASS_TIME.fullmatch(value.strip())
    return _seconds(*m.groups()) if m else None


def ass_cues(text: str) -> tuple[str, list[Cue]]:
    """The title and the cues of an SSA/ASS script: its ``Dialogue:`` events in time order, the
    event's ``Name`` as the speaker; comments, drawings and style overrides left out."""
    section, title = "", ""
    fields: list[str] = []
    cues: list[Cue] = []
    for line in text.split("\n"):
        head = _SECTION.fullmatch(line)
        if head:
            section = head.group(1).strip().lower()
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip().lower()
        if section == "script info" and key == "title" and value.strip().lower() not in _NO_TITLE:
            title = value.strip()
        elif section == "events" and key == "format":
            fields = [f.strip().lower() for f in value.split(",")]
        elif section == "events" and key == "dialogue" and "text" in fields and fields[-1] == "text":
            parts = dict(zip(fields, (p.strip() for p in value.split(",", len(fields) - 1)), strict=False))
            start, end = _ass_seconds(parts.get("start", "")), _ass_seconds(parts.get("end", ""))
            said = _OVERRIDE.sub("", _DRAWING.sub("", parts.get("text", "")))
            said = " ".join(_ASS_BREAK.sub(" ", _TAG.sub("", said)).split())
            if start is not None and end is not None and said:
                cues.append(Cue(start, end, parts.get("name", ""), (said,)))
    return title, sorted(cues, key=lambda c: c.start)


def read_ass(text: str, *, doc_id: str, source: str) -> Document:
    title, cues = ass_cues(text)
    if not cues:
        return read_plain(text, doc_id=doc_id, source=source)
    page, blocks, fields = transcript_page(cues, title, {})
    return Document(id=doc_id, source=source, text=page, format="ass", metadata=MappingProxyType(fields),
                    blocks=blocks)
