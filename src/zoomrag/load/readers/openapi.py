"""OpenAPI and Swagger descriptions: each operation titled as its users name it.

An API's description is a tree of keys (``paths`` › ``/servers/{id}/actions/shutdown`` ›
``post`` › ``description``), and many are written, or converted, with their keys in alphabetical
order: an operation's ``summary`` (what it does, in a few words) comes last, after its
parameters and responses. Read as any YAML or JSON, a context from an operation opened on the
summary of the operation before it, and its trail said ``paths › /servers/{id}/actions/shutdown
› post``. Here each operation is a section titled ``POST /servers/{id}/actions/shutdown —
Shutdown a Server``, its method, its path and its summary (else its ``operationId``), so the
trail a unit embeds says what the operation does, wherever the summary stands.

The YAML reader (:mod:`.yamldata`) keeps the file as written and heads each operation there; the
JSON reader (:mod:`.jsondata`) writes its page from :func:`reshape`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: The keys of a path item that are operations.
METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})
#: The first line of a YAML description of an API (``openapi: 3.1.0``, ``swagger: "2.0"``).
_VERSION_LINE = re.compile(r"^(?:openapi|swagger)[ \t]*:", re.MULTILINE)
#: How far into a YAML file its version line is looked for (after comments, ``info`` first).
_HEAD = 4096
#: An operation's keys that say what it is, written first in its section.
_FIRST = ("summary", "description", "operationId", "tags", "deprecated")


def is_openapi(data: Any) -> bool:
    """Whether parsed JSON or YAML is an OpenAPI (or Swagger) description: an object with an
    ``openapi`` or ``swagger`` version and ``paths``."""
    return isinstance(data, Mapping) and ("openapi" in data or "swagger" in data) and "paths" in data


def looks_openapi(text: str) -> bool:
    """Whether a YAML text says, near its top, that it is an OpenAPI description."""
    return _VERSION_LINE.search(text, 0, _HEAD) is not None


def operation_title(method: str, path: str, summary: str) -> str:
    """``POST /servers — Create a Server``: the method, the path and the summary, if any."""
    title = f"{method.upper()} {path}"
    summary = " ".join(summary.split())
    return f"{title} — {summary}" if summary else title


def _summary(operation: Mapping[str, Any]) -> str:
    for key in ("summary", "operationId"):
        value = operation.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _parameter(p: Mapping[str, Any]) -> str:
    """A parameter as its reference page writes it: ``query, string, one of closed, open, all,
    required — whether issue is open or closed`` (a ``$ref`` kept as the pointer it is)."""
    found = p.get("schema")
    schema: Mapping[str, Any] = found if isinstance(found, Mapping) else p  # Swagger 2: on the parameter
    kind = schema.get("type") or schema.get("$ref") or ""
    parts = [str(x) for x in (p.get("in"), kind) if x]
    enum = schema.get("enum")
    if isinstance(enum, list) and 0 < len(enum) <= 12:
        parts.append("one of " + ", ".join(str(v) for v in enum))
    if "default" in schema and not isinstance(schema["default"], (dict, list)):
        parts.append(f"default {schema['default']}")
    if p.get("required") is True:
        parts.append("required")
    if p.get("deprecated") is True:
        parts.append("deprecated")
    description = " ".join(str(p.get("description") or "").split())
    return ", ".join(parts) + (f" — {description}" if description else "")


def _parameters(value: Any) -> Any:
    """A list of parameters as ``name → what it is`` (:func:`_parameter`), when each is named
    (or a ``$ref``); any other value as it is."""
    if not isinstance(value, list) or not all(isinstance(p, Mapping) and (isinstance(p.get("name"), str)
                                                                          or "$ref" in p) for p in value):
        return value
    out: dict[str, Any] = {}
    for p in value:
        if "$ref" in p and "name" not in p:
            out[str(p["$ref"]).rsplit("/", 1)[-1]] = f"$ref: {p['$ref']}"
        else:
            key = str(p["name"]) if str(p["name"]) not in out else f"{p['name']} ({p.get('in', '')})"
            out[key] = _parameter(p)
    return out


def _operation(operation: Mapping[str, Any]) -> dict[str, Any]:
    """An operation's keys, what it is first, its parameters one line each."""
    ordered = {k: operation[k] for k in _FIRST if k in operation}
    ordered.update((k, v) for k, v in operation.items() if k not in ordered)
    if "parameters" in ordered:
        ordered["parameters"] = _parameters(ordered["parameters"])
    return ordered


def reshape(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with its ``paths`` as one object of operations, each under its title and with
    its summary and description first: the page the JSON reader writes from it. A path's own
    keys (``parameters`` shared by its operations, a ``$ref``) stay under the path."""
    operations: dict[str, Any] = {}
    for path, item in data["paths"].items() if isinstance(data["paths"], Mapping) else ():
        if not isinstance(item, Mapping):
            operations[str(path)] = item
            continue
        shared = {k: v for k, v in item.items() if str(k).lower() not in METHODS}
        if shared:  # titled by the path and its own summary, as the path's operations are
            shared = _operation(shared)
            summary = _summary(shared)
            operations[f"{path} — {' '.join(summary.split())}" if summary else str(path)] = shared
        for method, operation in item.items():
            if str(method).lower() not in METHODS or not isinstance(operation, Mapping):
                continue
            operations[operation_title(str(method), str(path), _summary(operation))] = _operation(operation)
    return {k: (operations if k == "paths" else v) for k, v in data.items()}

