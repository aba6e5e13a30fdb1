"""Imports every command module so that each registers itself on ``main``."""

from . import chunk, index  # noqa: F401
