"""Build a held-out set of reference documentation in English: ten pages of PostgreSQL 15's
manual as DocBook wrote them (HTML), with 30 questions and their evidence.

The manual is the DocBook output most users meet: chapters of prose with admonitions (an ``h3``
titled Tip or Note), command reference pages whose title and sections are all ``h2``, option
lists (``<dl>`` of terms and definitions), SQL examples, and navigation tables on every page.
The pages come with Debian's ``postgresql-doc-15`` package. The questions were written from the
rendered pages as a developer or DBA would ask them, in their own words, each with the passage
that answers it; evidence is found by its first and last words in the page's text with the tags
stripped, and written as offsets into the raw HTML, as ``zoomrag eval`` expects of an HTML
corpus. The set is rebuilt from the system's files.

    apt-get install postgresql-doc-15             # or: apt-get download postgresql-doc-15 and
                                                  # dpkg-deb -x it, then pass --source
    python bench/pg_set.py                        # writes bench/out/derived/pg_manual
    python bench/quality.py --data bench/out/derived --datasets pg_manual --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import html_set_cli

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/usr/share/doc/postgresql-doc-15/html")
OUT = ROOT / "out" / "derived" / "pg_manual"
FILES = ("routine-vacuuming", "backup-dump", "indexes-types", "indexes-partial", "sql-vacuum",
         "sql-createindex", "runtime-config-autovacuum", "app-pgdump", "transaction-iso", "sql-copy")

#: (question, page, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("We empty a staging table completely every night with DELETE; is there a better way that doesn't leave dead rows behind for vacuum to clean up?",
     "routine-vacuuming", "If you have a table whose entire contents are deleted", "strict MVCC semantics are violated."),
    ("Postgres stopped accepting writes with a wraparound error telling me to stop the postmaster and use single-user mode. Do I really have to take the server down?",
     "routine-vacuuming", "In this condition any transactions already in progress can continue", "in order to restore normal operation."),
    ("How can I see how close each table and each database is to running out of transaction IDs?",
     "routine-vacuuming", "A convenient way to examine this information is to execute queries", "age(datfrozenxid) FROM pg_database;"),
    ("Will autovacuum hold up my ALTER TABLE, or does it back off when another session needs the table?",
     "routine-vacuuming", "Autovacuum workers generally don't block other commands.", "the autovacuum is not automatically interrupted."),
    ("How many autovacuum processes can run at the same time by default, and do I need a restart to change that?",
     "runtime-config-autovacuum", "Specifies the maximum number of autovacuum processes", "This parameter can only be set at server start."),
    ("Which setting makes autovacuum kick in on an append-only table once enough new rows have been added?",
     "runtime-config-autovacuum", "Specifies the number of inserted tuples needed to trigger a VACUUM", "based on the number of inserts."),
    ("Can I run VACUUM from inside a BEGIN/COMMIT block in my migration script?",
     "sql-vacuum", "VACUUM cannot be executed inside a transaction block.", "inside a transaction block."),
    ("How do I make VACUUM move on past tables another session has locked instead of sitting there waiting?",
     "sql-vacuum", "Specifies that VACUUM should not wait for any conflicting locks", "the relation is skipped."),
    ("Will an ordinary index help a query like WHERE name LIKE '%smith'?",
     "indexes-types", "The optimizer can also use a B-tree index for queries involving", "but not col LIKE '%bar'."),
    ("What kind of index stays tiny on a huge log table where the timestamp just keeps increasing in insertion order?",
     "indexes-types", "BRIN indexes (a shorthand for Block Range INdexes)", "physical order of the table rows."),
    ("How can I enforce that a combination of columns is unique only for rows where a boolean flag is true, while allowing any number of duplicates otherwise?",
     "indexes-partial", "Suppose that we have a table describing test outcomes.", "WHERE success;"),
    ("Why is my filtered index ignored when the query passes the filter value as a prepared-statement parameter?",
     "indexes-partial", "Matching takes place at query planning time, not at run time.", "for all possible values of the parameter."),
    ("How do I make psql abort the restore of a plain SQL dump as soon as one statement fails?",
     "backup-dump", "By default, the psql script will continue to execute after an SQL error", "psql -X --set ON_ERROR_STOP=on dbname < dumpfile"),
    ("My backup would be bigger than the maximum file size of the filesystem. How can I break it into several files and load it back?",
     "backup-dump", "The split command allows you to split the output", "cat filename* | psql dbname"),
    ("How do I keep a table's definition in my dump but leave out its huge contents?",
     "app-pgdump", "Do not dump data for any tables matching pattern.", "you do not need the data in it."),
    ("How many connections to the server does pg_dump open when I run it with several jobs?",
     "app-pgdump", "pg_dump will open njobs + 1 connections", "high enough to accommodate all connections."),
    ("I want a dump that a non-superuser can restore and end up owning everything. Which pg_dump option do I need?",
     "app-pgdump", "Do not output commands to set ownership of objects", "specify -O."),
    ("Can I load a dump made on PostgreSQL 15 into a server running an older major version?",
     "app-pgdump", "Also, it is not guaranteed that pg_dump's output can be loaded", "syntax not understood by the older server."),
    ("COPY FROM says my CSV file doesn't exist, but it's on my laptop, not the database server. How do I load it?",
     "sql-copy", "Do not confuse COPY with the psql instruction", "rather than the server when \\copy is used."),
    ("A bulk load with COPY died halfway through a big file. Are the rows it already loaded kept, and do they waste space?",
     "sql-copy", "COPY stops operation at the first error.", "to recover the wasted space."),
    ("How can I export every row of a view or a partitioned table to a file with COPY?",
     "sql-copy", "COPY TO can be used only with plain tables, not views", "partitioned table, or view."),
    ("When importing a CSV file, how can I tell empty strings apart from NULLs?",
     "sql-copy", "The CSV format has no standard way to distinguish", "quoted null string data values to NULL."),
    ("My app gets 'could not serialize access due to concurrent update'. How should the code deal with it?",
     "transaction-iso", "When an application receives this error message", "starting point for the new transaction's update."),
    ("If I set READ UNCOMMITTED, will Postgres actually show me other sessions' uncommitted changes?",
     "transaction-iso", "In PostgreSQL, you can request any of the four standard", "multiversion concurrency control architecture."),
    ("Why can running the same SELECT twice inside one transaction give different rows?",
     "transaction-iso", "Also note that two successive SELECT commands can see different data", "before the second SELECT starts."),
    ("Do the locks that SERIALIZABLE transactions take block other sessions or cause deadlocks?",
     "transaction-iso", "To guarantee true serializability PostgreSQL uses predicate locking", "can not play any part in causing a deadlock."),
    ("A CREATE INDEX CONCURRENTLY failed and left an index that psql shows as INVALID. How do I fix it?",
     "sql-createindex", "The recommended recovery method in such cases is to drop the index", "REINDEX INDEX CONCURRENTLY)."),
    ("How do I add an index to a big partitioned table without blocking writes for the whole build?",
     "sql-createindex", "Concurrent builds for indexes on partitioned tables are currently not supported.", "a metadata only operation."),
    ("Can I put extra columns in a btree index just so queries can be answered without touching the table, without making them part of the key?",
     "sql-createindex", "The optional INCLUDE clause specifies a list of columns", "queries that otherwise could not use them."),
    ("Why won't Postgres let me use my own SQL function in an index expression?",
     "sql-createindex", "All functions and operators used in an index definition", "mark the function immutable when you create it."),
)


def main(argv: list[str] | None = None) -> int:
    return html_set_cli(argv, __doc__, SOURCE, OUT, {n: f"{n}.html" for n in FILES}, QUESTIONS,
                        "they come with Debian's postgresql-doc-15 package")


if __name__ == "__main__":
    sys.exit(main())
