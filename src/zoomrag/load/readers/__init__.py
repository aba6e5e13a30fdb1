"""Built-in readers; importing this package registers them all."""

from . import code, delimited, html, markdown, pdf, plain  # noqa: F401
