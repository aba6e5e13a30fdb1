"""Parsing: strategies that turn a document into a span tree, and the router."""

from .base import Chunker, Span, build_tree
from .registry import make_chunker, parse_settings, register, strategy_names
from .router import chunker_for_profile, profile_names
from .sizing import split_range

__all__ = [
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
