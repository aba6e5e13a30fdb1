"""Parsing: strategies that turn a document into a span tree, and the router."""

from .base import Chunker, Span, build_tree
from .registry import make_chunker, parse_settings, register, strategy_names

__all__ = ["Chunker", "Span", "build_tree", "make_chunker", "parse_settings", "register", "strategy_names"]
