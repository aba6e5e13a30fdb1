"""One exception tree for everything zoomrag raises on purpose.

    ZoomragError                 base: catch this to handle any zoomrag failure
    ├── ConfigError              a strategy, profile, parameter or option is wrong
    ├── InputError               a file or document cannot be read or parsed
    │   ├── BinaryFileError      the file is not text
    │   └── DecodeError          the file is text but not UTF-8 (nor a known BOM)
    ├── SpanError                a span violates the tree invariants (a bug, not user input)
    ├── EmbedError               an embedder failed or is missing
    ├── RerankError              a reranker failed or answered nonsense
    ├── ClusterError             the Ray cluster cannot be reached, or a worker of it failed
    ├── StoreError               the index cannot be opened, written or trusted
    │   ├── IndexMismatchError   the index was built with another embedder or schema
    │   └── IndexLockedError     another writer holds the index
    └── EvalError                evaluation data or settings are unusable

Every message names the offending file or value, says what is wrong and what to do.
"""

from __future__ import annotations


class ZoomragError(Exception):
    """Base class of every error zoomrag raises on purpose."""


class ConfigError(ZoomragError, ValueError):
    """A strategy, profile, parameter or option value is not valid."""


class InputError(ZoomragError):
    """A file or document cannot be read or parsed."""


class BinaryFileError(InputError):
    """The file holds binary data, not text."""


class DecodeError(InputError):
    """The file is not valid UTF-8 text."""


class SpanError(ZoomragError):
    """A span breaks the tree invariants; this is a bug in a strategy."""


class EmbedError(ZoomragError):
    """An embedder failed, is not installed, or returned unusable vectors."""


class RerankError(ZoomragError):
    """A reranker failed, could not be reached, or returned unusable scores."""


class ClusterError(ZoomragError):
    """The Ray cluster of distributed indexing cannot be reached, or one of its workers failed."""


class StoreError(ZoomragError):
    """The index cannot be opened, written or trusted."""


class IndexMismatchError(StoreError):
    """The index was built with another embedder, strategy or schema."""


class IndexLockedError(StoreError):
    """Another process is writing to the index."""


class EvalError(ZoomragError):
    """Evaluation data or settings are unusable."""
