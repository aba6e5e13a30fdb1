"""Start the HTTP server: bind, announce the URL beside the index, serve until stopped."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from ..defaults import is_server
from .app import ServeConfig, create_app
from .client import remove_discovery, write_discovery
from .security import check_bind


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (``port=0``: any free one); bound before the server starts, so the real
    port is known and written down."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio turns Nagle's algorithm off only on sockets that say
    # they are TCP, and with it on, every answer written in two parts (head, body) waited for
    # the client's delayed ACK: 40 ms added to every request
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as e:
        sock.close()
        from ..errors import ConfigError

        raise ConfigError(f"cannot listen on {host}:{port} ({e.strerror}); choose another --port") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(config: ServeConfig, host: str = "127.0.0.1", port: int = 8765,
          announce: Callable[[str], None] | None = None, log_level: str = "warning") -> None:
    import uvicorn

    check_bind(host, config.api_key)
    app = create_app(config)  # loads the model and opens the index before the port opens
    sock = bind(host, port)
    url = url_of(sock)
    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, access_log=False,
                                           timeout_graceful_shutdown=5, lifespan="on"))
    # A file's server is found by `zoomrag query` through a file beside it; a server store's is
    # named with --server (it may serve clients on other machines, which no local file reaches).
    discoverable = not is_server(config.index)
    if discoverable:
        write_discovery(Path(config.index), url)
    try:
        if announce is not None:
            announce(url)
        server.run(sockets=[sock])
    finally:
        if discoverable:
            remove_discovery(Path(config.index))
        sock.close()
