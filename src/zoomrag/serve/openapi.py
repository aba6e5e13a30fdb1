"""Write the server's OpenAPI schema to docs/openapi.json (tests check the copy is current).

    python -m zoomrag.serve.openapi            # rewrite docs/openapi.json
    python -m zoomrag.serve.openapi --check    # exit 1 when it is out of date
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..index import Index
from .app import ServeConfig, create_app

DOC = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"


def schema() -> dict[str, Any]:
    """The schema of an app over an empty scratch index (the routes do not depend on the index)."""
    with tempfile.TemporaryDirectory(prefix="zoomrag-openapi-") as tmp:
        path = Path(tmp) / "index.db"
        Index.open(path, embedder="hash").close()
        app = create_app(ServeConfig(index=path, readers=1))
        try:
            return app.api.openapi()
        finally:
            app.pool.close()


def render(s: dict[str, Any]) -> str:
    return json.dumps(s, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render(schema())
    old = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if "--check" in args:
        if old != text:
            print(f"{DOC}: out of date; run: python -m zoomrag.serve.openapi")
            return 1
        return 0
    if old != text:
        DOC.write_text(text, encoding="utf-8")
        print(f"{DOC}: rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
