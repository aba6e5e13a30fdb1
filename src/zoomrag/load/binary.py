"""What a file that is not text is, by its first bytes: the message that skips it says so.

A folder of documents holds pictures, fonts and programs beside them (a wiki export's
attachments, a site's images). Skipped as "binary file", a user cannot tell a picture from a
document that failed; named — "a PNG image" — the line says what it is and that nothing was
lost that zoomrag could have read.
"""

from __future__ import annotations

__all__ = ["TEXT_HEADED", "binary_kind"]

#: Leading bytes and what they mark. (A ZIP's are not here: Office files and e-books are read,
#: other archives refused by name, by their extension.)
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"BM", "a BMP image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x00\x00\x01\x00", "an icon"),
    (b"wOFF", "a web font"),
    (b"wOF2", "a web font"),
    (b"\x00\x01\x00\x00\x00", "a TrueType font"),
    (b"OTTO", "an OpenType font"),
    (b"ID3", "an MP3 recording"),
    (b"OggS", "an Ogg recording"),
    (b"fLaC", "a FLAC recording"),
    (b"\x1aE\xdf\xa3", "a video (Matroska or WebM)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program (ELF)"),
    (b"MZ", "a Windows program"),
    (b"\xca\xfe\xba\xbe", "a compiled Java class"),
    (b"\xcf\xfa\xed\xfe", "a program (Mach-O)"),
    (b"\x00asm", "a WebAssembly module"),
    (b"PAR1", "a Parquet file"),
    # Sphinx's and mkdocstrings' inventory of a site's API names: a line of text, then zlib
    (b"# Sphinx inventory version", "a Sphinx inventory (a site's API names, compressed)"),
)
#: The signatures that begin with a line of text (the rest of the file is not).
TEXT_HEADED = (b"# Sphinx inventory version",)
#: RIFF containers name their kind at bytes 8-12.
_RIFF = {b"WEBP": "a WebP image", b"WAVE": "a WAV recording", b"AVI ": "an AVI video"}


def binary_kind(head: bytes) -> str | None:
    """What the file starting with ``head`` is ("a PNG image"), or None when its bytes say not."""
    if head.startswith(b"RIFF") and len(head) >= 12:
        return _RIFF.get(head[8:12])
    if head[4:8] == b"ftyp":
        return "an image (HEIC or AVIF)" if head[8:12] in (b"heic", b"heix", b"avif", b"mif1") else "a video (MP4)"
    return next((kind for magic, kind in _SIGNATURES if head.startswith(magic)), None)
