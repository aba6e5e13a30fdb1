"""Parameter checks with messages that name the value and the allowed range."""

from __future__ import annotations

from ..errors import ConfigError


def check_int(strategy: str, name: str, value: object, lo: int, hi: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{strategy}: {name} must be a whole number, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        top = "" if hi is None else f" and at most {hi}"
        raise ConfigError(f"{strategy}: {name}={value} is out of range; use at least {lo}{top}")


def check_float(strategy: str, name: str, value: object, lo: float, hi: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{strategy}: {name} must be a number, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(f"{strategy}: {name}={value} is out of range; use {lo} to {hi}")


def check_choice(strategy: str, name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(
            f"{strategy}: {name}={value!r} is not allowed; choose one of: {', '.join(choices)}"
        )


def check_unit(strategy: str, value: object) -> None:
    """``unit`` is a counter name: tokens (default tokenizer), chars, approx, or a registered one."""
    from ..text.tokens import get_counter

    if not isinstance(value, str):
        raise ConfigError(f"{strategy}: unit must be a name such as 'tokens' or 'chars', got {value!r}")
    try:
        get_counter(value)
    except ConfigError as e:
        raise ConfigError(f"{strategy}: {e}") from None
