"""The index file's tables. Bump :data:`SCHEMA_VERSION` on any incompatible change.

Sizes matter (goal: the index without vectors at most 1.2x the corpus text; measured in
docs/benchmarks.md), so:

- documents hold the text once, compressed in independent blocks (:mod:`.textblocks`), in the
  last column so that listing documents never reads it;
- nodes are offsets under a small sequential row number (their hex id is derived from
  document, kind, level and span, so it is not stored; and FTS5 stores rowids as deltas, so
  sequential rows cost a byte where 64-bit hashes cost nine). A document's nodes are the
  consecutive rows ``first_row .. first_row + node_count - 1`` in pre-order, so neither a
  position column nor an index by document is needed. The kind is a small number into the
  ``kinds`` list of ``index_meta``; the heading trail is stored only where it differs from
  the parent's;
- the FTS table is contentless and position-free (``detail=none``, ``columnsize=0``): it keeps
  only which units hold each term, less than half the size of a full index
  (docs/benchmarks.md); its rows are counted through a term every row holds
  (:data:`.fts.ROW_TERM`), not through FTS5's per-row sizes, which cost ten bytes a row.
  FTS5's bm25() cannot rank such a table (no term frequencies), so zoomrag ranks itself
  (:mod:`zoomrag.search.bm25`): each term counts once per unit, unit lengths come from the
  nodes' spans, and their total is kept in ``index_meta['unit_chars']``; its rows are rebuilt
  from the document text when deleted;
- per document: the content hash as 32 bytes, not 64 hex digits, and no metadata when it is
  empty (``content_hash`` and ``metadata`` are virtual columns that give them back as text);
- metadata is also kept as one typed row per value (``doc_meta``, :mod:`.docmeta`), indexed
  by key and value, so that a filter is a few index look-ups, not a parse of every document's JSON;
- vectors are content-addressed by the embedding cache key, so the vector table *is* the
  embedding cache and a text shared by two units (or two runs) is stored and embedded once.

An added column does not bump the version: ``documents.parser`` is added in place to a file made
before it, when the file is opened for writing, and read as 0 where it is missing.
"""

from __future__ import annotations

from .docmeta import DDL as DOC_META_DDL

#: 5: typed metadata rows (``doc_meta``, :mod:`.docmeta`) and ids relative to the indexed root.
SCHEMA_VERSION = 5

DDL = """
CREATE TABLE IF NOT EXISTS index_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS documents (
    key          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    source       TEXT NOT NULL,
    hash         BLOB NOT NULL,      -- the content hash: its bytes when it is hex digits, else the text
    format       TEXT NOT NULL,
    origin       TEXT NOT NULL,      -- 'file': pruned when the file is gone; 'api': added as a Document
    meta         TEXT,               -- JSON object; NULL when empty
    chars        INTEGER NOT NULL,   -- characters of text
    first_row    INTEGER NOT NULL,   -- nodes.row of the document's root
    node_count   INTEGER NOT NULL,
    parser       INTEGER NOT NULL DEFAULT 0, -- PARSER_VERSION of the tree; 0: before versions
    text         BLOB NOT NULL,      -- textblocks.encode(text)
    content_hash TEXT GENERATED ALWAYS AS
                 (CASE WHEN typeof(hash) = 'blob' THEN lower(hex(hash)) ELSE hash END) VIRTUAL,
    metadata     TEXT GENERATED ALWAYS AS (coalesce(meta, '{}')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS nodes (
    row          INTEGER PRIMARY KEY, -- sequential; also the FTS rowid and the ANN label
    doc          INTEGER NOT NULL,    -- documents.key
    parent       INTEGER,             -- parent's row; NULL for the document root
    level        INTEGER NOT NULL,
    kind         INTEGER NOT NULL,    -- position in the JSON list index_meta['kinds']
    span_start   INTEGER NOT NULL,
    span_end     INTEGER NOT NULL,
    section_path TEXT,                -- JSON list; NULL means "same as the parent's"
    embed_text   TEXT,                -- what was embedded when it differs from the span
    unit         INTEGER NOT NULL,    -- 1 for an embedded unit (searched by BM25 and vectors)
    vec          INTEGER              -- vectors.key; NULL when the unit has no vector
);

CREATE TABLE IF NOT EXISTS vectors (
    key INTEGER PRIMARY KEY,          -- first 8 bytes of the embedding cache key
    vec BLOB NOT NULL                 -- float32, little-endian, unit length
);

CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    body, content='', detail=none, columnsize=0, tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab USING fts5vocab(fts, 'row');
""" + DOC_META_DDL
