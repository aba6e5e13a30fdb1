"""Loading: files to Documents."""

from .base import decode, detect_format, formats, load_path, read_text

__all__ = ["decode", "detect_format", "formats", "load_path", "read_text"]
