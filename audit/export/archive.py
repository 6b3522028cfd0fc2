"""A published version as one zip file (the release a reviewer downloads).

The archive holds the version's folder exactly as published (manifest,
datasheet, native files, Parquet, changelog), under
``<benchmark>-<version>/``.  It is built only from a version whose files
still match their manifest and the database's record (no extra file,
subfolder or link), and it is deterministic: entries sorted by
path, fixed timestamps, so the same version always gives the same bytes.
"""
from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from pathlib import Path

from audit.errors import AuditError, NotFoundError
from audit.export._listing import list_versions
from audit.export._manifest import MANIFEST_NAME, SUBFOLDERS, checked_manifest_bytes, data_digest
from audit.export.names import validate_version
from audit.store import DbPath

_EPOCH = (1980, 1, 1, 0, 0, 0)


def release_name(benchmark: str, version: str) -> str:
    """The zip's file name.

    >>> release_name("tlue", "1.2")
    'tlue-1.2.zip'
    """
    return f"{benchmark}-{version}.zip"


def _open_sub(dir_fd: int, sub: str) -> int:
    """The subfolder *sub* (``hf/data``) of the open folder, each step
    opened relative to the last without following a link."""
    fd = os.dup(dir_fd)
    for part in [p for p in sub.split("/") if p]:
        try:
            nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        fd = nxt
    return fd


def _listing(dir_fd: int) -> set[str]:
    """Every file path under the open folder: its own names, and the names
    in its :data:`SUBFOLDERS` as ``sub/name`` (a subfolder itself is no file)."""
    out: set[str] = set()
    for sub in ("", *SUBFOLDERS):
        try:
            fd = _open_sub(dir_fd, sub)
        except FileNotFoundError:
            continue
        try:
            for name in os.listdir(fd):
                path = f"{sub}/{name}" if sub else name
                if path not in SUBFOLDERS:
                    out.add(path)
        finally:
            os.close(fd)
    return out


def _read_at(dir_fd: int, name: str) -> bytes:
    """The bytes of the plain file *name* (a name in the open folder
    *dir_fd*, or a path into one of its :data:`SUBFOLDERS`), every step
    opened once without following a link."""
    sub, _, base = name.rpartition("/")
    if sub:
        sub_fd = _open_sub(dir_fd, sub)
        try:
            return _read_at(sub_fd, base)
        finally:
            os.close(sub_fd)
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{name}: not a regular file")
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    finally:
        os.close(fd)


def verified_snapshot(folder: Path, data_sha256: str | None) -> tuple[bytes, dict[str, bytes]]:
    """One view of a version's folder, verified: ``(manifest bytes, {name:
    bytes})`` for exactly the files the manifest lists, each read once and
    hashed from the bytes returned.

    The folder is opened once (never through a link) and every file is
    opened relative to it; the manifest is read once, from that view, and
    its names must be plain file names in the folder; the folder must hold
    those files and nothing else.  A manifest or a file swapped while this
    runs can only make the check fail: what is returned is what was
    hashed.  Raises :class:`~audit.errors.AuditError` (one line) on any
    mismatch."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise AuditError(f"{folder}: the version's folder cannot be opened as a plain folder "
                         f"({exc.strerror or exc})") from None
    try:
        try:
            raw = _read_at(dir_fd, MANIFEST_NAME)
        except OSError as exc:
            raise AuditError(f"{folder}: {MANIFEST_NAME} cannot be read as a plain file "
                             f"({exc.strerror or exc})") from None
        manifest, problem = checked_manifest_bytes(raw)
        if manifest is None:
            raise AuditError(f"{folder}: {problem}")
        listed: dict[str, dict] = manifest["files"]
        present = _listing(dir_fd) - {MANIFEST_NAME}
        extra = sorted(present - set(listed))
        if extra:
            raise AuditError(f"{folder}: {extra[0]}: not in the manifest")
        files: dict[str, bytes] = {}
        for name in sorted(listed):
            try:
                body = _read_at(dir_fd, name)
            except OSError as exc:
                raise AuditError(f"{folder}: {name} cannot be read as a plain file ({exc.strerror or exc})") from None
            if hashlib.sha256(body).hexdigest() != listed[name]["sha256"]:
                raise AuditError(f"{folder}: {name}: sha256 differs from the manifest")
            files[name] = body
        if data_sha256 is not None and data_digest(listed) != data_sha256:
            raise AuditError(f"{folder}: {MANIFEST_NAME}: the data differ from the database's record (data_sha256)")
        return raw, files
    finally:
        os.close(dir_fd)


def release_zip(benchmark: str, version: str, *, db: DbPath = None) -> bytes:
    """The published ``version`` of ``benchmark`` as zip bytes.

    Raises :class:`~audit.errors.NotFoundError` for an unknown version or a
    folder that is gone, and :class:`~audit.errors.AuditError` when a file
    no longer matches the manifest (a release is never built from changed
    files).  The zip holds exactly the bytes :func:`verified_snapshot` read
    and hashed — never a name read again afterwards, never a name outside
    the version's folder."""
    validate_version(version)
    versions = list_versions(benchmark, db=db)
    row = versions[versions["version"] == version]
    if row.empty:
        raise NotFoundError(f"benchmark '{benchmark}' has no version {version}")
    folder = Path(row.iloc[0]["path"])
    if not folder.is_dir():
        raise NotFoundError(f"{folder}: the files of {benchmark} {version} are no longer on disk")
    try:
        manifest, files = verified_snapshot(folder, row.iloc[0]["data_sha256"])
    except AuditError as exc:
        raise AuditError(f"{benchmark} {version} no longer matches its manifest and the database: {exc}") from None
    prefix = f"{benchmark}-{version}"
    entries = sorted([*files.items(), (MANIFEST_NAME, manifest)])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, body in entries:
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, body)
    return buf.getvalue()


__all__ = ["release_name", "release_zip", "verified_snapshot"]
