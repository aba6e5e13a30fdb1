"""Built-in strategies; importing this package registers them all."""

# The router is the strategy "auto"; it lives beside the profiles it reads.
from .. import router  # noqa: F401
from . import (  # noqa: F401
    code,
    fixed,
    hierarchical,
    markdown,
    none,
    parent_child,
    recursive,
    semantic,
    sentences,
    table,
    window,
)
