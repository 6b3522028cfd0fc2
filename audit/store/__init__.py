"""Store: the DuckDB file, its schema and typed records of what it holds.

Every stage reads and writes through :func:`connect` (readers and writers
take turns across threads and processes, :mod:`audit.store.turns`) and
:func:`transaction` (all-or-nothing).  What the stages share beside that is
in public modules: :mod:`audit.store.benchmarks` (which benchmark a call
means), :mod:`audit.store.settings` (settings kept in the database) and
:mod:`audit.store.sources` (prediction sets read in place from Parquet
files, folders, S3 or the Hugging Face Hub).
"""
from audit.store._connect import connect, init_db, transaction
from audit.store._paths import default_db_path, resolve_db_path
from audit.store.records import DbPath, Option, Question, Review

__all__ = ["DbPath", "Option", "Question", "Review", "connect", "transaction", "init_db", "default_db_path",
           "resolve_db_path"]
