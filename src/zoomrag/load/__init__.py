"""Loading: files to Documents."""

from .base import decode, detect_format, formats, iter_paths, load_path, read_text

__all__ = ["decode", "detect_format", "formats", "iter_paths", "load_path", "read_text"]
