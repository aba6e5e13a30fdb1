"""Imports every command module so that each registers itself on ``main``."""

from . import chunk, evaluate, index  # noqa: F401
