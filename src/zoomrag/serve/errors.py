"""zoomrag's exceptions as HTTP answers: the CLI's one-line message, the right status.

Bad input is always a 4xx; a 5xx means the server or what it depends on (the model, the
reranker) failed, never the request.
"""

from __future__ import annotations

from ..errors import (
    ConfigError,
    EmbedError,
    EvalError,
    IndexLockedError,
    IndexMismatchError,
    InputError,
    RerankError,
    StoreError,
    ZoomragError,
)
from .pool import RequestTimeout


class NotFound(ZoomragError):
    """A document (or a route) that is not there."""


class TooLarge(ZoomragError):
    """A request body over the server's limit."""


class Unauthorized(ZoomragError):
    """A request without the server's API key."""


class Forbidden(ZoomragError):
    """What the server was not started to do (fetch an address it was not told it may read)."""


#: Most specific first: the first class an error is an instance of decides.
STATUS: tuple[tuple[type[ZoomragError], int], ...] = (
    (NotFound, 404),
    (TooLarge, 413),
    (Unauthorized, 401),
    (Forbidden, 403),
    (RequestTimeout, 504),
    (IndexLockedError, 423),
    (IndexMismatchError, 409),
    (ConfigError, 400),
    (InputError, 400),
    (EvalError, 400),
    (RerankError, 502),
    (EmbedError, 503),
    (StoreError, 503),
)


def status_of(error: ZoomragError) -> int:
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 500


def error_body(message: str, kind: str, status: int) -> dict[str, object]:
    return {"error": message, "type": kind, "status": status}
