"""Store: the DuckDB file, its schema and typed records of what it holds.

Every stage reads and writes through :func:`connect` (readers and writers
take turns across threads and processes) and :func:`transaction`
(all-or-nothing).  Prediction sets may also be read in place, from Parquet
files, folders, S3 or the Hugging Face Hub (:func:`list_source`).
"""
from audit.store._benchmarks import (
    all_benchmarks,
    benchmark_name,
    defaults_benchmark,
    resolve_benchmark,
    resolves_benchmark,
)
from audit.store._connect import connect, init_db, transaction, unregister
from audit.store._migrate import migrate, schema_version
from audit.store._paths import default_db_path, resolve_db_path
from audit.store._settings import read_setting, write_setting
from audit.store._sources import RELATION as PREDICTIONS_RELATION
from audit.store._sources import (
    SourceError,
    SourceListing,
    list_source,
    normalize_uri,
    parquet_scan_sql,
    register_filesystem,
    registered_sources,
)
from audit.store._sources import remember as remember_source_listing
from audit.store._turns import db_timeout, keep_reads_open, set_wait_notice
from audit.store.records import DbPath, Option, Question, Review

__all__ = [
    "DbPath", "Option", "Question", "Review",
    "connect", "transaction", "init_db", "default_db_path", "resolve_db_path", "db_timeout", "keep_reads_open",
    "set_wait_notice", "migrate", "schema_version", "unregister", "read_setting", "write_setting",
    "all_benchmarks", "resolve_benchmark", "benchmark_name", "resolves_benchmark", "defaults_benchmark",
    "PREDICTIONS_RELATION", "SourceError", "SourceListing", "list_source", "registered_sources",
    "normalize_uri", "parquet_scan_sql", "register_filesystem", "remember_source_listing",
]
