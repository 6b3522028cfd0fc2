"""Store: the DuckDB file, its schema and typed records of what it holds."""
from audit.store._types import DbPath
from audit.store._db import (
    connect,
    sql_str,
    db_timeout,
    default_db_path,
    init_db,
    keep_reads_open,
    migrate,
    resolve_db_path,
    schema_version,
    set_wait_notice,
    transaction,
    unregister,
)
from audit.store._sources import (
    RELATION as PREDICTIONS_RELATION,
    SourceError,
    SourceListing,
    list_source,
    normalize_uri,
    parquet_scan_sql,
    register_filesystem,
    registered_sources,
    remember as remember_source_listing,
)

__all__ = ["DbPath", "connect", "sql_str", "db_timeout", "default_db_path", "init_db", "keep_reads_open", "migrate", "resolve_db_path",
           "schema_version", "set_wait_notice", "transaction", "unregister",
           "PREDICTIONS_RELATION", "SourceError", "SourceListing", "list_source", "registered_sources",
           "normalize_uri", "parquet_scan_sql", "register_filesystem", "remember_source_listing"]
