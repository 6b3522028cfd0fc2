"""Store: the DuckDB file, its schema and typed records of what it holds."""
from audit.store.db import connect, default_db_path, init_db, migrate, resolve_db_path, schema_version, transaction
from audit.store.types import DbPath

__all__ = ["DbPath", "connect", "default_db_path", "init_db", "migrate", "resolve_db_path", "schema_version", "transaction"]
