"""Loading: files to Documents."""

from .base import decode, detect_format, formats, load_path, read_text
from .folders import iter_paths
from .ignore import FileRules

__all__ = ["FileRules", "decode", "detect_format", "formats", "iter_paths", "load_path", "read_text"]
