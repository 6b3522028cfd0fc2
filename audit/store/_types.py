"""Type aliases for the public API.

``DbPath`` is what every ``db=`` argument accepts: a path to the DuckDB
file (``str`` or ``os.PathLike``), or ``None`` for the default database
(``$AUDIT_DB``, else ``data/workbench.duckdb``; see
:func:`audit.store.default_db_path`).

>>> from pathlib import Path
>>> from typing import get_args
>>> str in get_args(DbPath), type(None) in get_args(DbPath)
(True, True)
"""
from __future__ import annotations

import os
from typing import Optional, Union

DbPath = Optional[Union[str, os.PathLike]]
