"""A published version as one zip file (the release a reviewer downloads).

The archive holds the version's folder exactly as published (manifest,
datasheet, native files, Parquet, changelog), under
``<benchmark>-<version>/``.  It is built only from a version whose files
still match their manifest and the database's record (no extra file,
subfolder or link), and it is deterministic: entries sorted by
path, fixed timestamps, so the same version always gives the same bytes.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

from audit.errors import AuditError, NotFoundError
from audit.export._listing import list_versions
from audit.export._manifest import MANIFEST_NAME, read_manifest, verify_version
from audit.export.names import validate_version
from audit.store import DbPath

_EPOCH = (1980, 1, 1, 0, 0, 0)


def release_name(benchmark: str, version: str) -> str:
    """The zip's file name.

    >>> release_name("tlue", "1.2")
    'tlue-1.2.zip'
    """
    return f"{benchmark}-{version}.zip"


def release_zip(benchmark: str, version: str, *, db: DbPath = None) -> bytes:
    """The published ``version`` of ``benchmark`` as zip bytes.

    Raises :class:`~audit.errors.NotFoundError` for an unknown version or a
    folder that is gone, and :class:`~audit.errors.AuditError` when a file
    no longer matches the manifest (a release is never built from changed
    files)."""
    validate_version(version)
    versions = list_versions(benchmark, db=db)
    row = versions[versions["version"] == version]
    if row.empty:
        raise NotFoundError(f"benchmark '{benchmark}' has no version {version}")
    folder = Path(row.iloc[0]["path"])
    if not folder.is_dir():
        raise NotFoundError(f"{folder}: the files of {benchmark} {version} are no longer on disk")
    problems = verify_version(folder, row.iloc[0]["data_sha256"])
    if problems:
        raise AuditError(f"{folder}: {benchmark} {version} no longer matches its manifest and the database: "
                         f"{problems[0]}")
    prefix = f"{benchmark}-{version}"
    names = sorted([*read_manifest(folder)["files"], MANIFEST_NAME])   # exactly what was verified
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in (folder / n for n in names):
            info = zipfile.ZipInfo(f"{prefix}/{path.relative_to(folder).as_posix()}", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


__all__ = ["release_name", "release_zip"]
