"""Imports every command module so that each registers itself on ``main``."""

from . import chunk, evaluate, index, serve  # noqa: F401
