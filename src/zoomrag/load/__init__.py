"""Loading: files to Documents."""

from . import sites
from .base import decode, detect_format, file_text, formats, load_path, read_text
from .folders import iter_paths
from .ignore import FileRules
from .records import Records, read_records

__all__ = ["FileRules", "Records", "decode", "detect_format", "file_text", "formats", "iter_paths", "load_path",
           "read_records", "read_text", "sites"]
