"""Built-in readers; importing this package registers them all."""

from . import plain  # noqa: F401
