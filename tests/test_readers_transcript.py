"""Transcripts and subtitles (WebVTT, SubRip): cues joined into who said what, when."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_support import index_folder, top_context
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.load import read_text
from zoomrag.load.base import detect_format

TEAMS = """\
WEBVTT - Weekly sync

00:00:01.000 --> 00:00:04.500
<v Dana Ortiz>Okay, let's start. Lee, do you want to go
first?</v>

NOTE the next cue is Lee's

intro-2
00:00:04.500 --> 00:00:09.000 align:start
<v Lee Park>Sure. Yesterday I finished the migration of the
billing service to the <i>new</i> queue &amp; its workers.</v>

00:00:09.000 --> 00:00:14.200
<v Lee Park>The only open problem is that retries are not
idempotent yet.</v>
"""


def test_webvtt_voices_are_turns_led_by_time_and_speaker():
    doc = read_text(TEAMS, format="vtt", source="sync.vtt")
    assert doc.text == (
        "# Weekly sync\n\n"
        "[00:01] Dana Ortiz: Okay, let's start. Lee, do you want to go first?\n\n"
        "[00:04] Lee Park: Sure. Yesterday I finished the migration of the billing service to the new "
        "queue & its workers. The only open problem is that retries are not idempotent yet.")
    assert [(b.type, b.level) for b in doc.blocks] == [("heading", 1), ("text", 0), ("text", 0)]
    assert dict(doc.metadata) == {"title": "Weekly sync", "duration": "00:14",
                                  "speakers": ["Dana Ortiz", "Lee Park"]}
    check_rendered_blocks(doc)


def test_subrip_names_before_a_colon_are_speakers_and_hours_are_shown():
    srt = ("1\n00:00:01,000 --> 00:00:04,000\nDANA: Where is the report?\n"
           "2\n00:00:04,000 --> 00:00:06,000\nLEE: On the shared drive.\n"
           "3\n01:02:03,000 --> 01:02:05,000\n{\\an8}<i>DANA: Thanks.</i>\n")
    doc = read_text(srt, format="srt", source="call.srt")
    assert doc.text == ("[0:00:01] DANA: Where is the report?\n\n[0:00:04] LEE: On the shared drive.\n\n"
                        "[1:02:03] DANA: Thanks.")
    assert doc.metadata["speakers"] == ["DANA", "LEE"]


def test_a_colon_in_one_cue_is_no_speaker():
    srt = ("1\n00:00:01,000 --> 00:00:03,000\nRule one: never skip the tests.\n\n"
           "2\n00:00:03,000 --> 00:00:05,000\nAnd keep them fast.\n\n"
           "3\n00:00:05,000 --> 00:00:07,000\nThat is all.\n")
    doc = read_text(srt, format="srt", source="a.srt")
    assert doc.text == "[00:01] Rule one: never skip the tests. And keep them fast. That is all."
    assert "speakers" not in doc.metadata


def test_dashes_and_chevrons_start_turns_of_unnamed_speakers():
    srt = ("1\n00:00:01,000 --> 00:00:03,000\n- Where do we park?\n-Over there.\n\n"
           "2\n00:00:03,000 --> 00:00:05,000\n>> Back to the studio.\n")
    doc = read_text(srt, format="srt", source="a.srt")
    assert doc.text == "[00:01] Where do we park?\n\n[00:01] Over there.\n\n[00:03] Back to the studio."


def test_captions_that_roll_up_are_read_once():
    cues = [("00:00:00.240", "00:00:02.750", " \nhi<00:00:00.640><c> everyone</c>"),
            ("00:00:02.750", "00:00:02.760", "hi everyone\n "),
            ("00:00:02.760", "00:00:05.030", "hi everyone\nand<00:00:03.120><c> welcome</c><c> to</c>"),
            ("00:00:05.030", "00:00:05.040", "and welcome to\n "),
            ("00:00:05.040", "00:00:07.000", "and welcome to\nthe<00:00:05.500><c> talk</c>")]
    vtt = "WEBVTT\nKind: captions\nLanguage: en\n\n" + "\n\n".join(
        f"{a} --> {b} align:start position:0%\n{text}" for a, b, text in cues) + "\n"
    doc = read_text(vtt, format="vtt", source="yt.vtt")
    assert doc.text == "[00:00] hi everyone and welcome to the talk"
    assert doc.metadata["language"] == "en"


def test_a_line_repeated_in_captions_that_do_not_roll_up_is_kept():
    srt = "".join(f"{i}\n00:00:0{i},000 --> 00:00:0{i},900\n{line}\n\n"
                  for i, line in enumerate(["Yes.", "Yes.", "Are you sure?", "Yes."], 1))
    assert read_text(srt, format="srt", source="a.srt").text == "[00:01] Yes. Yes. Are you sure? Yes."


def test_a_long_turn_is_parted_at_a_pause():
    words = " ".join(f"w{i}" for i in range(45))
    srt = (f"1\n00:00:01,000 --> 00:00:10,000\n{words}\n\n"
           "2\n00:00:10,500 --> 00:00:12,000\nno pause here.\n\n"
           "3\n00:00:15,000 --> 00:00:16,000\nAfter a pause.\n")
    doc = read_text(srt, format="srt", source="a.srt")
    assert doc.text == f"[00:01] {words} no pause here.\n\n[00:15] After a pause."


def test_subrip_without_blank_lines_and_odd_timestamps():
    srt = "1\n0:0:1.5 --> 0:0:3.25\nFirst line\n2\n00:00:04,000 --> 00:00:05,000\nSecond line\n"
    assert read_text(srt, format="srt", source="a.srt").text == "[00:01] First line Second line"


def test_a_file_without_cues_is_kept_as_text():
    doc = read_text("WEBVTT\n\nNOTE nothing timed yet\n", format="vtt", source="a.vtt")
    assert doc.format == "text"
    assert doc.text == "WEBVTT\n\nNOTE nothing timed yet\n"


def test_extensions():
    assert detect_format(Path("a.vtt")) == "vtt"
    assert detect_format(Path("b.SRT")) == "srt"


_WORD = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
_CUE = st.tuples(st.sampled_from(["", "Ann", "Bo Li"]), st.lists(st.lists(_WORD, min_size=1, max_size=6),
                                                                 min_size=1, max_size=3))


@settings(max_examples=200, deadline=None)
@given(st.lists(_CUE, min_size=1, max_size=12), st.booleans(), st.lists(st.integers(0, 4), min_size=12,
                                                                          max_size=12))
def test_every_word_said_is_read_once_in_order(cues, vtt, gaps):
    """Cues in either format: the text holds the words of the cues, in order, each once, after
    the leads (time and speaker) of its paragraphs; the blocks lie in the text."""
    t = 0.0
    parts = ["WEBVTT\n"] if vtt else []
    said: list[str] = []
    for i, (speaker, lines) in enumerate(cues):
        t += gaps[i]
        a, b = t, t + 1
        t = b

        def stamp(x: float) -> str:
            return f"00:{int(x) // 60:02d}:{int(x) % 60:02d}{'.' if vtt else ','}000"

        lines = [[f"{w}{i}" for w in ws] for ws in lines]  # no cue repeats another's line
        body = "\n".join(" ".join(ws) for ws in lines)
        if speaker:
            body = f"<v {speaker}>{body}" if vtt else body
        parts.append(("" if vtt else f"{i + 1}\n") + f"{stamp(a)} --> {stamp(b)}\n{body}\n")
        said += [w for ws in lines for w in ws]
    doc = read_text("\n".join(parts), format="vtt" if vtt else "srt", source="t")
    check_rendered_blocks(doc)
    read = []
    for block in doc.blocks:
        lead = re.match(r"\[\d\d:\d\d\] (?:(?:Ann|Bo Li): )?", doc.text[block.start:block.end])
        assert lead
        read += doc.text[block.start + lead.end():block.end].split()
    assert read == said


def test_a_transcript_answers_with_who_said_it(tmp_path):
    (tmp_path / "standup.vtt").write_text(TEAMS, encoding="utf-8")
    (tmp_path / "notes.md").write_text("# Notes\n\nNothing about queues here.\n", encoding="utf-8")
    context = top_context(index_folder(tmp_path, tmp_path), "idempotent retries")
    assert context["source"].endswith("standup.vtt")
    assert "[00:04] Lee Park:" in context["text"]


def test_a_context_from_inside_a_turn_takes_its_time_and_speaker(tmp_path):
    filler = "We looked at the dashboards together and talked through every number on them for a while. "
    cues = ["<v Dana Ortiz>Let's hear the queue report.", "<v Lee Park>" + filler * 3,
            "<v Lee Park>" + filler * 2 + "The broker restart fixed the stuck consumer offsets on partition seven."]
    (tmp_path / "q.vtt").write_text("WEBVTT\n\n" + "".join(
        f"00:00:{i * 10:02d}.000 --> 00:00:{i * 10 + 10:02d}.000\n{c}\n\n" for i, c in enumerate(cues)), encoding="utf-8")
    context = top_context(index_folder(tmp_path, tmp_path), "broker restart stuck consumer offsets", "--budget", "60")
    assert context["text"] == ("[00:10] Lee Park:\nWe looked at the dashboards together and talked through every "
                               "number on them for a while. The broker restart fixed the stuck consumer offsets on "
                               "partition seven.")
    assert len(context["spans"]) == 2


WHISPER = {"text": " Welcome to the design review. Today we look at the cache.", "language": "en", "segments": [
    {"id": 0, "seek": 0, "start": 0.0, "end": 3.2, "text": " Welcome to the design review.", "tokens": [50364, 5],
     "avg_logprob": -0.2, "speaker": "SPEAKER_00"},
    {"id": 1, "seek": 0, "start": 3.2, "end": 6.0, "text": " Today we look at the cache.", "speaker": "SPEAKER_00"},
    {"id": 2, "seek": 0, "start": 6.5, "end": 11.0, "text": " Entries expire after ten minutes.", "speaker": "SPEAKER_01"}]}


def test_a_speech_recognisers_segments_are_a_transcript():
    doc = read_text(json.dumps(WHISPER), format="json", source="review.json")
    assert doc.text == ("[00:00] SPEAKER_00: Welcome to the design review. Today we look at the cache.\n\n"
                        "[00:06] SPEAKER_01: Entries expire after ten minutes.")
    assert dict(doc.metadata) == {"title": None, "duration": "00:11", "transcript": "whisper", "language": "en",
                                  "speakers": ["SPEAKER_00", "SPEAKER_01"]}
    alone = [{k: v for k, v in seg.items() if k != "speaker"} for seg in WHISPER["segments"]]
    assert read_text(json.dumps(alone), format="json", source="s.json").text == (
        "[00:00] Welcome to the design review. Today we look at the cache. Entries expire after ten minutes.")


def test_records_with_a_start_but_no_times_are_json():
    doc = read_text(json.dumps([{"start": "Monday", "end": "Friday", "text": "A week."}]), format="json", source="a.json")
    assert "transcript" not in doc.metadata


def test_youtube_subviewer_and_substation_scripts():
    sbv = "0:00:01.000,0:00:04.000\nWelcome back to the channel.\n\n0:00:04.000,0:00:07.500\nToday: sourdough.\n"
    assert read_text(sbv, format="sbv", source="a.sbv").text == "[00:01] Welcome back to the channel. Today: sourdough."
    ass = ("[Script Info]\nTitle: Episode 3\n\n[V4+ Styles]\nFormat: Name, Fontname\nStyle: Default,Arial\n\n"
           "[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
           "Dialogue: 0,0:00:04.00,0:00:06.00,Default,Bo,0,0,0,,{\\i1}Fine{\\i0}, thanks.\n"
           "Dialogue: 0,0:00:01.00,0:00:04.00,Default,Ann,0,0,0,,Hello, how are you?\\Nall well?\n"
           "Comment: 0,0:00:02.00,0:00:03.00,Default,,0,0,0,,note to self\n"
           "Dialogue: 0,0:00:05.00,0:00:09.00,Sign,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100{\\p0}\n")
    doc = read_text(ass, format="ass", source="e3.ass")
    assert doc.text == "# Episode 3\n\n[00:01] Ann: Hello, how are you? all well?\n\n[00:04] Bo: Fine, thanks."
    assert dict(doc.metadata) == {"title": "Episode 3", "duration": "00:06", "speakers": ["Ann", "Bo"]}
    assert detect_format(Path("x.ssa")) == "ass" and detect_format(Path("x.sbv")) == "sbv"


def test_assemblyai_and_deepgram_utterances():
    assemblyai = {"id": "x", "status": "completed", "language_code": "en_us", "text": "Hi. Hello.", "utterances": [
        {"speaker": "A", "start": 250, "end": 1200, "text": "Hi.", "confidence": 0.9, "words": []},
        {"speaker": "B", "start": 1500, "end": 2600, "text": "Hello.", "confidence": 0.9, "words": []}]}
    doc = read_text(json.dumps(assemblyai), format="json", source="a.json")
    assert doc.text == "[00:00] Speaker A: Hi.\n\n[00:01] Speaker B: Hello."
    assert doc.metadata["transcript"] == "assemblyai" and doc.metadata["language"] == "en_us"
    deepgram = {"metadata": {"duration": 70.0}, "results": {"channels": [], "utterances": [
        {"start": 61.5, "end": 64.0, "confidence": 0.9, "channel": 0, "transcript": "We ship Friday.", "speaker": 0,
         "id": "u1", "words": []}]}}
    doc = read_text(json.dumps(deepgram), format="json", source="d.json")
    assert doc.text == "[01:01] Speaker 0: We ship Friday."
    assert doc.metadata["transcript"] == "deepgram"


_LINES = st.one_of(st.sampled_from([
    "WEBVTT", "", "00:00:01.000 --> 00:00:02.000", "1", "<v A>x", "- y", ">> z", "A: b", "NOTE", "[Events]",
    "Format: Layer, Start, End, Style, Name, Text", "Dialogue: 0,0:00:01.00,0:00:02.00,D,N,hi", "Dialogue: x",
    "Dialogue: 0,9:99:99.99,,,,", "0:00:01.000,0:00:02.000", "{\\p1}m 0 0", "99:99:99,999 --> 00:00:00,000"]),
    st.text(max_size=10))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=20), st.sampled_from(["vtt", "srt", "sbv", "ass"]))
def test_broken_subtitles_are_read_as_something(lines, fmt):
    """Pieces of cues, scripts and junk in any order: read without error, the blocks valid."""
    check_rendered_blocks(read_text("\n".join(lines), format=fmt, source="x"))


def test_a_unit_from_inside_a_turn_is_found_by_its_speakers_name(tmp_path):
    filler = "We looked at the dashboards together and talked through every number on them for a while. "
    cues = ["<v Dana Ortiz>" + filler * 3 + "The stuck partition was seven.",
            "<v Lee Park>" + filler * 3 + "The stuck partition was eight."]
    (tmp_path / "q.vtt").write_text("WEBVTT\n\n" + "".join(
        f"00:00:{i * 20:02d}.000 --> 00:00:{i * 20 + 20:02d}.000\n{c}\n\n" for i, c in enumerate(cues)), encoding="utf-8")
    context = top_context(index_folder(tmp_path, tmp_path), "Lee stuck partition", "--budget", "40")
    assert context["text"].startswith("[00:20] Lee Park:\n")
    assert context["text"].endswith("The stuck partition was eight.")
