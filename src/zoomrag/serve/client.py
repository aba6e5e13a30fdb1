"""Finding and asking a running server: what makes a shell ``zoomrag query`` warm.

A server writes ``<index>.serve.json`` (its URL and pid) beside the index it serves and removes
it when it stops. ``zoomrag query`` reads that file, and when the server is alive sends the
query there instead of loading the model itself. Standard library only: this runs before
anything heavy is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, StoreError, ZoomragError

SUFFIX = ".serve.json"
#: Seconds to wait for a connection to a server found through its file (it is local).
CONNECT_TIMEOUT = 2.0


def discovery_path(index: Path) -> Path:
    return Path(str(index) + SUFFIX)


@dataclass(frozen=True)
class ServerInfo:
    url: str
    pid: int
    index: str


def write_discovery(index: Path, url: str) -> Path:
    path = discovery_path(index)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"url": url, "pid": os.getpid(), "index": str(Path(index).resolve())}))
    tmp.replace(path)  # atomic: a reader sees the old file or the new one, never half
    return path


def remove_discovery(index: Path) -> None:
    """Remove the file if it is this process's (a newer server may have replaced it)."""
    path = discovery_path(index)
    info = read_discovery(index)
    if info is not None and info.pid == os.getpid():
        path.unlink(missing_ok=True)


def read_discovery(index: Path) -> ServerInfo | None:
    try:
        raw = json.loads(discovery_path(index).read_text())
        return ServerInfo(str(raw["url"]), int(raw["pid"]), str(raw["index"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_server(index: Path) -> str | None:
    """The URL of a live server for this index, if its file says so."""
    info = read_discovery(index)
    if info is None or not _alive(info.pid):
        return None
    if Path(info.index) != Path(index).resolve():
        return None
    return info.url


class ServerUnreachable(StoreError):
    """No server answered at the URL."""


def post_json(url: str, path: str, body: dict[str, Any], *, api_key: str | None = None,
              timeout: float = 60.0) -> dict[str, Any]:
    """POST ``body`` and return the JSON answer; the server's error message becomes the same
    one-line zoomrag error the CLI would have raised locally."""
    data = json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    req = urllib.request.Request(url.rstrip("/") + path, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as e:
        try:
            message = json.loads(e.read())["error"]
        except (ValueError, KeyError, TypeError):
            message = f"{url} answered {e.code} {e.reason}"
        raise (ConfigError if 400 <= e.code < 500 else ZoomragError)(message) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise ServerUnreachable(f"no zoomrag server answered at {url} ({reason}); start one with "
                                "zoomrag serve, or leave out --server") from None


def wait_for_server(index: Path, proc: subprocess.Popen, timeout: float) -> str:
    """The URL of the ``zoomrag serve`` started as ``proc`` on ``index``, once it has announced it
    (for tests and benchmarks that start one)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr is not None else ""
            raise RuntimeError(f"zoomrag serve exited {proc.returncode}: {err}")
        info = read_discovery(index)
        if info is not None and info.pid == proc.pid:
            return info.url
        if time.monotonic() > deadline:
            raise RuntimeError(f"zoomrag serve did not start in {timeout:g} s")
        time.sleep(0.05)


def stop_server(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Stop a ``zoomrag serve`` started as ``proc``: SIGTERM (a clean shutdown that removes its
    discovery file), then SIGKILL if it is still running after ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
