"""Benchmarks published as archives (``.zip``, ``.tar``, ``.tar.gz``/``.tgz``,
a single ``.gz``), read where they are: a member is decompressed into memory
as it is read, never extracted to disk, and every message names the archive
and the member (``data/dev.jsonl.tar.gz/dev.jsonl:2: …``).

A :class:`Source` is what the readers of :mod:`audit._util.files` read: a
file, or one member of an archive.  :func:`sources` lists the sources of a
file or a folder (archives opened into their members).

An archive is refused, with one line naming the member, before anything of
it reaches the database, when a member

* is named with an absolute path or a ``..`` part (it points outside the
  archive);
* is a link, a device or a FIFO rather than a regular file;
* is itself an archive (named so, or starting with an archive's magic bytes);
* declares a size above ``$AUDIT_MAX_INPUT_BYTES`` (4 GiB by default), or
  expands, while it is read, past that limit, or past 64 MiB at more than
  100 bytes for each compressed byte read (a decompression bomb).

Archives are recognised by their magic bytes (``PK``, gzip's ``1f 8b``, a
tar header's ``ustar``), so a renamed one is read too; ``.eval`` logs
(zip files themselves) and Parquet files are not archives here.
"""
from __future__ import annotations

import gzip
import io
import os
import posixpath
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from audit._util.files import check_input_file, max_input_bytes
from audit.errors import InputError

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".gz")
#: Suffixes of the data files a member may be (the rest of an archive is ignored).
DATA_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")
#: Past this many bytes read out of a member, it may expand at most RATIO-fold.
BOMB_FLOOR = 64 << 20
RATIO = 100
_NOT_ARCHIVES = (".eval", ".parquet", ".xlsx", ".docx")
_REFUSED = "nothing was imported"


@dataclass(frozen=True)
class Source:
    """A file to read, or one member of an archive (``member`` set)."""

    path: Path
    member: str | None = None
    kind: str = "file"          # file | zip | tar | gzip
    size: int | None = None     # the member's declared size, when the archive says

    def __str__(self) -> str:
        return str(self.path) if self.member is None else f"{self.path}/{self.member}"

    @property
    def name(self) -> str:
        """The file's own name (a member's base name)."""
        return self.path.name if self.member is None else posixpath.basename(self.member)

    @property
    def suffix(self) -> str:
        return Path(self.name).suffix.lower()

    @property
    def stem(self) -> str:
        """The name without its data suffix (``biology.jsonl`` → ``biology``)."""
        return Path(self.name).stem

    @property
    def in_archive(self) -> bool:
        return self.member is not None

    def relative(self, root: Path) -> str:
        """Its path under *root* (a folder imported), members after their archive's."""
        try:
            base = self.path.relative_to(root).as_posix() if root.is_dir() else self.path.name
        except ValueError:
            base = self.path.name
        return base if self.member is None else f"{base}/{self.member}"

    def read_bytes(self) -> bytes:
        """The whole content (a member decompressed in memory, within the limits above)."""
        if self.member is None:
            p = check_input_file(self.path)
            try:
                return p.read_bytes()
            except OSError as exc:
                raise InputError(f"cannot read the file: {exc.strerror or exc}", path=p) from None
        return _read_member(self)

    def head(self, n: int = 1 << 20) -> bytes:
        """The first *n* bytes (a member: decompressed, no more than needed)."""
        if self.member is None:
            with open(check_input_file(self.path), "rb") as fh:
                return fh.read(n)
        return _read_member(self, limit=n)


def as_source(x: "str | os.PathLike[str] | Source") -> Source:
    return x if isinstance(x, Source) else Source(Path(x))


def archive_kind(path: Path) -> str | None:
    """``zip``, ``tar``, ``tar.gz``, ``gzip`` (one compressed file) or None."""
    name = path.name.lower()
    if name.endswith(_NOT_ARCHIVES):
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return None
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as gz:
                inner = gz.read(512)
        except (OSError, EOFError):
            return "gzip"
        return "tar.gz" if inner[257:262] == b"ustar" else "gzip"
    if head[257:262] == b"ustar":
        return "tar"
    return None


def _archive_in(name: str, head: bytes = b"") -> bool:
    low = name.lower()
    return low.endswith(ARCHIVE_SUFFIXES + (".7z", ".rar", ".bz2", ".xz")) or head[:4] in (b"PK\x03\x04",) \
        or head[:2] == b"\x1f\x8b"


def _refuse(archive: Path, member: str, why: str, advice: str) -> InputError:
    return InputError(f"member '{member}' {why}; {_REFUSED} ({advice})", path=archive)


def _check_name(archive: Path, name: str) -> None:
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or ".." in parts:
        raise _refuse(archive, name, "points outside the archive", "only members inside the archive are read")


def _check_size(archive: Path, name: str, size: int | None, packed: int | None = None) -> None:
    limit = max_input_bytes()
    if size is not None and size > limit:
        raise _refuse(archive, name, f"declares {size:,} bytes, more than the limit of {limit:,}",
                      "set $AUDIT_MAX_INPUT_BYTES to read larger members")
    if size is not None and packed and size > BOMB_FLOOR and size > RATIO * packed:
        raise _refuse(archive, name, f"expands more than {RATIO}-fold ({size:,} bytes from {packed:,})",
                      "refused as a decompression bomb")


def members(path: Path) -> list[Source]:
    """The data members of the archive at *path* (sorted by name), each
    checked by the rules of the module docstring before anything is read."""
    kind = archive_kind(path)
    if kind == "zip":
        return _zip_members(path)
    if kind in ("tar", "tar.gz"):
        return _tar_members(path, kind)
    if kind == "gzip":
        name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        if _archive_in(name):
            raise _refuse(path, name, "is an archive inside an archive", "unpack it and import the inner archive")
        return [Source(path, name, "gzip")]
    raise InputError("not an archive", path=path)


def _zip_members(path: Path) -> list[Source]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not a readable zip archive ({exc})", path=path) from None
    out = []
    with zf:
        for info in zf.infolist():
            name = info.filename
            _check_name(path, name)
            mode = info.external_attr >> 16
            if mode and stat.S_ISLNK(mode):
                raise _refuse(path, name, "is a link, not a file", "archives are read for their regular files only")
            if info.is_dir() or name.endswith("/"):
                continue
            if _archive_in(name):
                raise _refuse(path, name, "is an archive inside an archive", "unpack it and import the inner archive")
            _check_size(path, name, info.file_size, info.compress_size)
            if posixpath.basename(name).startswith((".", "__MACOSX")) or "__MACOSX/" in name:
                continue
            out.append(Source(path, name, "zip", info.file_size))
    return sorted(out, key=lambda s: s.member or "")


def _tar_members(path: Path, kind: str) -> list[Source]:
    out = []
    try:
        with _open_tar(path, kind) as tf:
            for m in tf:
                name = m.name
                _check_name(path, name)
                if m.issym() or m.islnk():
                    raise _refuse(path, name, f"is a link (to '{m.linkname}'), not a file",
                                  "archives are read for their regular files only")
                if m.isdir():
                    continue
                if not m.isfile():
                    raise _refuse(path, name, "is a device or a pipe, not a file",
                                  "archives are read for their regular files only")
                if _archive_in(name):
                    raise _refuse(path, name, "is an archive inside an archive",
                                  "unpack it and import the inner archive")
                _check_size(path, name, m.size)
                if posixpath.basename(name).startswith("."):
                    continue
                out.append(Source(path, name, "tar", m.size))
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise InputError(f"not a readable tar archive ({exc})", path=path) from None
    return sorted(out, key=lambda s: s.member or "")


class _Guard(io.RawIOBase):
    """A stream of decompressed bytes that refuses to expand past the limits
    (counted against the compressed bytes read from *raw*)."""

    def __init__(self, stream, raw, archive: Path, member: str, packed: int | None = None):
        self.stream, self.raw, self.archive, self.member, self.packed = stream, raw, archive, member, packed
        self.out = 0
        self.limit = max_input_bytes()

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        data = self.stream.read(len(b))
        n = len(data)
        b[:n] = data
        self.out += n
        self.check()
        return n

    def check(self) -> None:
        if self.out > self.limit:
            raise _refuse(self.archive, self.member, f"expands past the limit of {self.limit:,} bytes",
                          "set $AUDIT_MAX_INPUT_BYTES to read larger members")
        if self.out > BOMB_FLOOR:
            read = self.packed if self.packed is not None else self.raw.tell()
            if self.out > RATIO * max(read, 1):
                raise _refuse(self.archive, self.member,
                              f"expands more than {RATIO}-fold (past {self.out:,} bytes from {read:,} bytes read)",
                              "refused as a decompression bomb")


class _open_tar:
    """A tar archive read as a stream (a ``.tar.gz`` through :class:`_Guard`), closed with its file."""

    def __init__(self, path: Path, kind: str):
        self.raw = open(path, "rb")
        try:
            if kind == "tar":
                self.tf = tarfile.open(fileobj=self.raw, mode="r|")
            else:
                guard = _Guard(gzip.GzipFile(fileobj=self.raw, mode="rb"), self.raw, path, path.name)
                self.tf = tarfile.open(fileobj=io.BufferedReader(guard, 1 << 16), mode="r|")
        except BaseException:
            self.raw.close()
            raise

    def __enter__(self) -> tarfile.TarFile:
        return self.tf

    def __exit__(self, *exc) -> None:
        self.tf.close()
        self.raw.close()


def _read_member(src: Source, limit: int | None = None) -> bytes:
    """A member's bytes, decompressed in memory (at most *limit* when given)."""
    check_input_file(src.path)
    member = src.member or ""
    try:
        if src.kind == "zip":
            with zipfile.ZipFile(src.path) as zf:
                info = zf.getinfo(member)
                with zf.open(info) as fh:
                    data = _read_guarded(fh, None, src.path, member, limit, packed=info.compress_size)
        elif src.kind == "gzip":
            with open(src.path, "rb") as raw:
                data = _read_guarded(gzip.GzipFile(fileobj=raw, mode="rb"), raw, src.path, member, limit)
        else:
            kind = archive_kind(src.path) or "tar"
            with _open_tar(src.path, kind) as tf:
                data = b""
                for m in tf:
                    if m.name == member and m.isfile():
                        fh = tf.extractfile(m)
                        data = fh.read(limit) if limit is not None and fh is not None else (fh.read() if fh else b"")
                        break
    except InputError:
        raise
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, KeyError) as exc:
        raise InputError(f"cannot read the member ({exc})", path=str(src)) from None
    if limit is None and _archive_in("", data[:4]):
        raise _refuse(src.path, member, "is an archive inside an archive", "unpack it and import the inner archive")
    return data


def _read_guarded(stream, raw, archive: Path, member: str, limit: int | None, packed: int | None = None) -> bytes:
    guard = _Guard(stream, raw, archive, member, packed)
    chunks = []
    want = limit
    while want is None or want > 0:
        chunk = stream.read(1 << 20 if want is None else min(1 << 20, want))
        if not chunk:
            break
        chunks.append(chunk)
        guard.out += len(chunk)
        guard.check()
        if want is not None:
            want -= len(chunk)
    return b"".join(chunks)


def is_archive(path: Path) -> bool:
    return path.is_file() and archive_kind(path) is not None


def sources(path: "str | os.PathLike[str]", suffixes: tuple[str, ...] = DATA_SUFFIXES) -> list[Source]:
    """The data sources at *path*: the file itself, an archive's data members,
    or every data file and archive member under a folder (sorted, hidden
    files left out).  Members whose names do not end in one of *suffixes*
    are left out."""
    p = Path(path)
    if p.is_dir():
        out: list[Source] = []
        for f in sorted(x for x in p.rglob("*") if x.is_file() and not x.name.startswith(".")):
            if f.suffix.lower() in suffixes:
                out.append(Source(f))
            elif f.name.lower().endswith(ARCHIVE_SUFFIXES) and archive_kind(f):
                out.extend(m for m in members(f) if m.suffix in suffixes)
        return out
    if archive_kind(p) is not None and p.suffix.lower() not in (".csv", ".tsv", ".json", ".jsonl", ".ndjson"):
        return [m for m in members(p) if m.suffix in suffixes]
    if p.suffix.lower() in (".csv", ".tsv", ".json", ".jsonl", ".ndjson") and archive_kind(p) is not None:
        return [m for m in members(p) if m.suffix in suffixes]   # a compressed file without the suffix saying so
    return [Source(p)]


__all__ = ["Source", "as_source", "archive_kind", "members", "sources", "is_archive", "ARCHIVE_SUFFIXES",
           "DATA_SUFFIXES"]
