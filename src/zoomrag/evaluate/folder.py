"""A corpus from a folder of files, read exactly as ``zoomrag index`` reads them.

Each file goes through :func:`zoomrag.load.load_path` (format by extension, the same readers),
so the documents of the dataset are the index's documents: same text, same content hash (which
``recommend --pin`` compares). Ids are paths relative to the folder.

A reader that keeps the file's text (plain text, Markdown, code, CSV...) is recorded with its
format, and evaluation reads it again the same way. A reader that rewrites the text (HTML is
rendered as Markdown-like text, PDF is extracted) is recorded with that rendering, as
``markdown`` for HTML (its rendering uses ``#`` headings, pipe tables and fenced code) and
``text`` for PDF, so that evidence located in it is located in what the index holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import EvalError, InputError
from ..load import load_path
from ..load.base import rendered_as
from ..load.folders import walk_folder
from ..load.ignore import FileRules
from .dataset import Dataset, EvalDocument


@dataclass(frozen=True)
class FolderCorpus:
    dataset: Dataset
    #: Files that could not be read, with the reason (binary, undecodable...).
    skipped: tuple[tuple[str, str], ...]


def read_folder(folder: str | Path, rules: FileRules = FileRules()) -> FolderCorpus:
    root = Path(folder)
    if not root.is_dir():
        raise EvalError(f"{root}: not a folder; --folder expects a folder of documents")
    docs: list[EvalDocument] = []
    skipped: list[tuple[str, str]] = []

    def left_out(path: Path, reason: str) -> None:
        skipped.append((path.relative_to(root).as_posix(), reason))

    for path in walk_folder(root, left_out=left_out, rules=rules):
        rel = path.relative_to(root).as_posix()
        try:
            doc = load_path(path, id=rel)
        except (InputError, OSError) as e:
            skipped.append((rel, str(e)))
            continue
        if not doc.text.strip():
            skipped.append((rel, "no text"))
            continue
        docs.append(EvalDocument(id=rel, text=doc.text, title=rel, format=rendered_as(doc.format) or doc.format))
    if not docs:
        raise EvalError(f"{root}: no readable documents in this folder")
    return FolderCorpus(Dataset(root.resolve().name, tuple(docs), ()), tuple(skipped))
