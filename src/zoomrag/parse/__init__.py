"""Parsing: strategies that turn a document into a span tree, and the router."""

from .base import Chunker, Span, build_tree
from .registry import make_chunker, parse_settings, register, strategy_names
from .router import chunker_for_profile, profile_names
from .sizing import split_range

#: The version of the readers and chunkers. Bump it when a reader or a chunker makes another
#: tree from the same file with the same settings, or its units embed other texts (their trail): an index re-reads such files on its next run
#: (each document records the version its tree was made with), and unchanged unit texts keep
#: their vectors (vectors are content-addressed, so nothing unchanged is embedded again).
#: tests/test_parser_version.py fails until it is bumped.
PARSER_VERSION: int = 90

__all__ = [
    "PARSER_VERSION",
    "Chunker",
    "Span",
    "build_tree",
    "chunker_for_profile",
    "make_chunker",
    "parse_settings",
    "profile_names",
    "register",
    "split_range",
    "strategy_names",
]
