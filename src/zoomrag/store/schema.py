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
- the FTS table is contentless (it keeps only the inverted index; its rows are rebuilt from
  the document text when deleted); it must keep ``detail=full``: with less detail FTS5's
  bm25() has no term frequencies on a contentless table and scores every row 0;
- vectors are content-addressed by the embedding cache key, so the vector table *is* the
  embedding cache and a text shared by two units (or two runs) is stored and embedded once.
"""

from __future__ import annotations

SCHEMA_VERSION = 3

DDL = """
CREATE TABLE IF NOT EXISTS index_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS documents (
    key          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    source       TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    format       TEXT NOT NULL,
    origin       TEXT NOT NULL,      -- 'file': pruned when the file is gone; 'api': added as a Document
    metadata     TEXT NOT NULL,      -- JSON object
    chars        INTEGER NOT NULL,   -- characters of text
    first_row    INTEGER NOT NULL,   -- nodes.row of the document's root
    node_count   INTEGER NOT NULL,
    text         BLOB NOT NULL       -- textblocks.encode(text)
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
    body, content='', tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab USING fts5vocab(fts, 'row');
"""
