"""``zoomrag serve`` and ``zoomrag mcp``: the index behind HTTP, a web inspector, and MCP.

The server needs the ``serve`` extra (``pip install 'zoomrag[serve]'``); nothing here imports
it until a server is started, so the base install imports this package without it.
:mod:`.client` (how ``zoomrag query`` finds and asks a running server) uses only the standard
library.
"""
