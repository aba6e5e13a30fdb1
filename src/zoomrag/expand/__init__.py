"""Expansion: grow matched units into larger spans, and pack them into a token budget."""

from .assemble import assemble
from .base import (
    Candidate,
    Expander,
    NoExpansion,
    ParentExpansion,
    TreeSource,
    expander_names,
    expander_params,
    get_expander,
    register,
)

# Importing the policies registers them (``--expand NAME``).
from .window import WindowExpansion  # noqa: E402  (after base: they register into it)
from .merge import AutoMerge  # noqa: E402
from .budget_merge import BudgetMerge  # noqa: E402
from .multilevel import MultiLevel, parent_vectors  # noqa: E402
from .density import DensityExpansion  # noqa: E402
from .auto import AutoExpansion  # noqa: E402

__all__ = [
    "AutoExpansion",
    "AutoMerge",
    "BudgetMerge",
    "Candidate",
    "DensityExpansion",
    "Expander",
    "MultiLevel",
    "NoExpansion",
    "ParentExpansion",
    "TreeSource",
    "WindowExpansion",
    "assemble",
    "expander_names",
    "expander_params",
    "get_expander",
    "parent_vectors",
    "register",
]
