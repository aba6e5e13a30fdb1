"""Expansion: grow matched units into larger spans, and pack them into a token budget.

The policies (``--expand NAME``) are listed in :data:`zoomrag.expand.base.EXPANDERS`.
"""

from ..embed.levels import parent_vectors
from .assemble import assemble
from .auto import AutoExpansion
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
from .budget_merge import BudgetMerge
from .density import DensityExpansion
from .merge import AutoMerge
from .multilevel import MultiLevel
from .window import WindowExpansion

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
