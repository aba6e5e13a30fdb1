"""Expansion: grow matched units into larger spans, and pack them into a token budget."""

from .assemble import assemble
from .base import (
    Candidate,
    Expander,
    NoExpansion,
    ParentExpansion,
    TreeSource,
    expander_names,
    get_expander,
    register,
)

__all__ = [
    "Candidate",
    "Expander",
    "NoExpansion",
    "ParentExpansion",
    "TreeSource",
    "assemble",
    "expander_names",
    "get_expander",
    "register",
]
