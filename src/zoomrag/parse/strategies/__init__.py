"""Built-in strategies; importing this package registers them all."""

from . import (  # noqa: F401
    code,
    fixed,
    hierarchical,
    markdown,
    none,
    parent_child,
    recursive,
    sentences,
    table,
    window,
)
