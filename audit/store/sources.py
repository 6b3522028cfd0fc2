"""Prediction sets read in place: the ``all_predictions`` relation.

Every reader of predictions (analysis, the review queue and item page, the
reports, sync, exports, model listings) reads the relation
``all_predictions`` — never the ``predictions`` table directly.  Migration
031 defines it as a view over the stored rows; when the database holds
registered *sources* (Parquet files, folders or globs, local, ``s3://…``
or ``hf://…``, see :func:`audit.ingest.register_predictions_in_place`),
:func:`attach` — called by :func:`audit.store.connect` on every connection
— replaces it, for that connection, by a temporary view of the same name:
the stored rows ``UNION ALL`` each source's rows read in place.

Before a source is read its files are listed again and compared with the
fingerprint recorded at registration (file names, sizes and a content
token: the S3 ETag, the Hugging Face blob id, the SHA-256 of a local
file's bytes; for ``hf://`` also the repository's commit).  A local file
rewritten to the same size with its modification time put back is a
changed file: its hash differs.  The hash is computed again only when the
file's status (device, inode, size, modification and change times) differs
from the one recorded beside it — the change time cannot be put back.  A source that changed, or
that cannot be reached (no credentials, connection refused, not found),
is replaced in the view by a branch that fails when read, with one line
naming the source, what happened and how to refresh it — so a command
that does not read predictions (signing in, reviews, users) still works.
Listings are cached per process for :data:`CHECK_EVERY` seconds.  The
sources are listed only when a query of the connection names
``all_predictions`` (:func:`audit.store.connect`): a command that reads no
prediction contacts no remote source.

Remote files are read through fsspec filesystems registered on the DuckDB
connection (``s3fs`` for ``s3://``, ``huggingface_hub``'s ``HfFileSystem``
for ``hf://``); credentials come from the environment only
(``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_ENDPOINT_URL`` /
``AWS_ENDPOINT_URL_S3``, ``AWS_REGION``; ``HF_TOKEN``) and are never
stored, logged or written into a message.
"""
from __future__ import annotations

import glob as _glob
import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from audit._util.redact import redact
from audit._util.sql import sql_str
from audit.errors import AuditError, InputError

#: The name of the predictions relation (stored rows plus registered sources).
PREDICTIONS_RELATION = "all_predictions"
#: Its columns, in order (those of the ``predictions`` table).
COLUMNS = ("benchmark", "question_id", "model", "run", "response", "answer", "method", "valid")
_TYPES = ("VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "BOOLEAN")
#: Seconds a source's listing is trusted before it is listed again.
CHECK_EVERY = 5.0
PROTOCOLS = ("file", "s3", "hf")
_GLOB = re.compile(r"[*?\[]")
_USERINFO = re.compile(r"^[a-z0-9+.-]+://[^/@]*:[^/@]*@", re.IGNORECASE)


class SourceError(AuditError):
    """A registered prediction source changed, or cannot be reached
    (``uri``, ``reason``: the few words after "is unreachable:")."""

    def __init__(self, message: str, *, uri: str = "", reason: str = ""):
        super().__init__(message)
        self.uri, self.reason = uri, reason


@dataclass(frozen=True)
class SourceListing:
    """The Parquet files of a source as listed now: ``files`` (URIs DuckDB
    reads), ``listing`` ((name, size, token) per file) and, for ``hf://``,
    the ``revision`` (commit) they were listed at.

    >>> a = SourceListing("/x/*.parquet", "file", ("/x/a.parquet",), (("/x/a.parquet", 10, "1"),), None)
    >>> b = SourceListing("/x/*.parquet", "file", ("/x/a.parquet",), (("/x/a.parquet", 11, "2"),), None)
    >>> a.fingerprint == b.fingerprint, len(a.fingerprint)
    (False, 64)
    >>> changes(a.listing, b.listing, None, None)
    '/x/a.parquet changed (size 10 -> 11)'
    """

    uri: str
    protocol: str
    files: tuple[str, ...]
    listing: tuple[tuple[str, int, str], ...]
    revision: str | None
    hints: tuple[str, ...] = ()   # local files: the status each hash was computed at (same order as listing)

    @property
    def fingerprint(self) -> str:
        blob = json.dumps([self.revision, [list(x) for x in self.listing]], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def listing_json(self) -> str:
        """The listing as recorded: ``[name, size, token, status]`` per file
        (the status only for local files)."""
        rows = [list(x) + ([h] if h else []) for x, h in zip(self.listing, self.hints or [""] * len(self.listing))]
        return json.dumps(rows)


def source_protocol(uri: str) -> str:
    """'file', 's3' or 'hf' for a source URI (a plain path is 'file').

    >>> source_protocol("s3://bucket/preds/"), source_protocol("hf://datasets/o/n/x.parquet")
    ('s3', 'hf')
    >>> source_protocol("p/*.parquet")
    'file'
    """
    if _USERINFO.match(uri):
        raise InputError(f"{_scheme(uri)}: credentials do not belong in the source URI; set them in the "
                         "environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, HF_TOKEN)")
    m = re.match(r"^([a-z][a-z0-9+.-]*)://", uri, re.IGNORECASE)
    if not m:
        return "file"
    scheme = m.group(1).lower()
    if scheme == "file":
        return "file"
    if scheme in ("s3", "s3a"):
        return "s3"
    if scheme == "hf":
        return "hf"
    raise InputError(f"{uri}: unsupported source ({scheme}://); use a local path, s3://… or hf://…")


def _scheme(uri: str) -> str:
    return uri.split("://", 1)[0] + "://…"


def normalize_uri(source: str | os.PathLike) -> str:
    """The URI recorded for a source: remote URIs as given, local paths
    absolute (``file://`` dropped).

    >>> normalize_uri("s3://b/p/")
    's3://b/p/'
    >>> normalize_uri("/tmp/x/../p.parquet")
    '/tmp/p.parquet'
    """
    uri = str(source).strip()
    if source_protocol(uri) != "file":
        return uri
    if uri.lower().startswith("file://"):
        uri = uri[len("file://"):]
    return os.path.normpath(os.path.abspath(os.path.expanduser(uri)))


_ENV_NAMES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL",
              "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "HF_TOKEN", "HF_ENDPOINT")
_FS: dict[tuple[str, str], Any] = {}
_FS_GUARD = threading.Lock()


def source_filesystem(protocol: str) -> Any:
    """The fsspec filesystem for *protocol* ('s3', 'hf'), configured from
    the environment (credentials are read by the filesystem itself, never
    passed through here); None for local files.  One instance per
    protocol and environment (a digest of the variables above keys it, so
    changed credentials get a new one)."""
    if protocol == "file":
        return None
    env = hashlib.sha256("\0".join(os.environ.get(n, "") for n in _ENV_NAMES).encode()).hexdigest()
    with _FS_GUARD:
        fs = _FS.get((protocol, env))
        if fs is None:
            fs = _FS[(protocol, env)] = _new_filesystem(protocol)
    return fs


def _new_filesystem(protocol: str) -> Any:
    import fsspec

    if protocol == "s3":
        kw: dict[str, Any] = {"use_listings_cache": False, "skip_instance_cache": True,
                              "config_kwargs": {"connect_timeout": 5, "read_timeout": 60,
                                                "retries": {"max_attempts": 2}}}
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            kw["endpoint_url"] = endpoint
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if region:
            kw["client_kwargs"] = {"region_name": region}
        return fsspec.filesystem("s3", **kw)
    return fsspec.filesystem(protocol, skip_instance_cache=True)


def _reason(exc: BaseException) -> str:
    """Why a source cannot be reached, in a few words (no secret)."""

    names = {c.__name__ for c in type(exc).__mro__}
    text = str(exc)
    if "NoCredentialsError" in names or "Unable to locate credentials" in text:
        return "no credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment)"
    if names & {"EndpointConnectionError", "ConnectionRefusedError", "ClientConnectorError", "ConnectTimeoutError",
                "ConnectionError"} or "Could not connect" in text or "Connection refused" in text:
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        return "connection refused" + (f" by {redact(endpoint)}" if endpoint else "") + " (is the server up?)"
    if isinstance(exc, FileNotFoundError):
        return "not found"
    if isinstance(exc, PermissionError) or re.search(r"AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|Forbidden",
                                                     text):
        return "access denied (check the credentials in the environment)"
    first = (text.strip().splitlines() or [type(exc).__name__])[0]
    return redact(f"{type(exc).__name__}: {first}"[:300]) or type(exc).__name__


def list_source(uri: str, known: dict[str, tuple[str, str]] | None = None) -> SourceListing:
    """List the Parquet files of a source now (a file, a folder: every
    ``*.parquet`` below it, or a glob).  Raises :class:`SourceError` (one
    line, the reason) when it cannot be reached or holds no Parquet file.
    *known*: local file → (status, token) as recorded, so an unchanged
    file is not hashed again."""
    protocol = source_protocol(uri)
    hints: dict[str, str] = {}
    try:
        if protocol == "file":
            listing = _list_local(uri, known or {}, hints)
            revision = None
        else:
            listing, revision = _list_remote(uri, protocol)
    except SourceError:
        raise
    except Exception as exc:   # the filesystem's own errors: classified into one line
        why = _reason(exc)
        raise SourceError(f"prediction source {uri} is unreachable: {why}", uri=uri, reason=why) from None
    if not listing:
        raise SourceError(f"prediction source {uri} is unreachable: no Parquet file found", uri=uri,
                          reason="no Parquet file found")
    ordered = tuple(sorted(listing))
    return SourceListing(uri, protocol, tuple(x[0] for x in ordered), ordered, revision,
                         tuple(hints.get(x[0], "") for x in ordered) if hints else ())


def _status(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def file_sha256(path: str) -> str:
    """``sha256:`` and the hex digest of the file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def _list_local(uri: str, known: dict[str, tuple[str, str]], hints: dict[str, str]) -> list[tuple[str, int, str]]:
    if _GLOB.search(uri):
        names = [p for p in _glob.glob(uri, recursive=True) if os.path.isfile(p)]
    elif os.path.isdir(uri):
        names = [str(p) for p in Path(uri).rglob("*.parquet") if p.is_file()]
    elif os.path.isfile(uri):
        names = [uri]
    else:
        raise FileNotFoundError(uri)
    out = []
    for n in names:
        name = os.path.abspath(n)
        st = os.stat(n)
        status = _status(st)
        before = known.get(name)
        token = before[1] if before is not None and before[0] == status else file_sha256(name)
        if _status(os.stat(n)) != status:     # written while it was read: hash what is there now
            st = os.stat(n)
            status, token = _status(st), file_sha256(name)
        hints[name] = status
        out.append((name, int(st.st_size), token))
    return out


def _token(info: dict) -> str:
    for key in ("ETag", "etag", "blob_id", "md5", "checksum"):
        if info.get(key):
            return str(info[key]).strip('"')
    lfs = info.get("lfs")
    if isinstance(lfs, dict) and lfs.get("sha256"):
        return str(lfs["sha256"])
    for key in ("mtime", "LastModified", "last_modified", "created"):
        if info.get(key):
            return str(info[key])
    return ""


def _list_remote(uri: str, protocol: str) -> tuple[list[tuple[str, int, str]], str | None]:
    fs = source_filesystem(protocol)
    path = fs._strip_protocol(uri)
    if _GLOB.search(path):
        found = fs.glob(path, detail=True)
    elif fs.isdir(path):
        found = {k: v for k, v in fs.find(path, detail=True).items() if k.endswith(".parquet")}
    else:
        found = {path: fs.info(path)}
    out = [(fs.unstrip_protocol(name), int(info.get("size") or 0), _token(info))
           for name, info in found.items() if info.get("type", "file") == "file"]
    return out, (_hf_revision(fs, path) if protocol == "hf" else None)


def _hf_revision(fs: Any, path: str) -> str | None:
    """The commit of the repository a ``hf://`` path names (None when the
    filesystem cannot say: the blob ids in the listing still pin the content)."""
    resolve = getattr(fs, "resolve_path", None)
    if resolve is None:
        return None
    try:
        rp = resolve(path)
        from huggingface_hub import HfApi

        return HfApi().repo_info(rp.repo_id, repo_type=rp.repo_type, revision=rp.revision).sha
    except Exception:
        return getattr(locals().get("rp"), "revision", None)


def changes(before, now, rev_before: str | None, rev_now: str | None) -> str:
    """What differs between two listings, in a few words."""
    b = {n: (int(s), t) for n, s, t in before}
    a = {n: (int(s), t) for n, s, t in now}
    said = []
    if rev_before != rev_now and (rev_before or rev_now):
        said.append(f"revision {rev_before} -> {rev_now}")
    added = sorted(set(a) - set(b))
    removed = sorted(set(b) - set(a))
    if added:
        said.append(f"{len(added)} file(s) added (e.g. {added[0]})")
    if removed:
        said.append(f"{len(removed)} file(s) removed (e.g. {removed[0]})")
    for n in sorted(set(a) & set(b)):
        if a[n] != b[n]:
            said.append(f"{n} changed" + (f" (size {b[n][0]} -> {a[n][0]})" if a[n][0] != b[n][0] else ""))
            break
    return "; ".join(said) or "its listing differs"


# -- checking, with a short per-process cache ---------------------------------------------------------------

_CHECKED: dict[str, tuple[float, SourceListing | str]] = {}
_CHECK_GUARD = threading.Lock()


def remember_listing(listing: SourceListing) -> None:
    """Record a fresh listing (a registration has just made it)."""
    with _CHECK_GUARD:
        _CHECKED[listing.uri] = (time.monotonic(), listing)


def _current(uri: str, known: dict[str, tuple[str, str]] | None = None) -> SourceListing | str:
    with _CHECK_GUARD:
        hit = _CHECKED.get(uri)
    if hit is not None and time.monotonic() - hit[0] < CHECK_EVERY:
        return hit[1]
    try:
        now: SourceListing | str = list_source(uri, known)
    except SourceError as exc:
        now = exc.reason
    with _CHECK_GUARD:
        _CHECKED[uri] = (time.monotonic(), now)
    return now


def refresh_hint(uri: str, benchmark: str) -> str:
    return (f"refresh it with: audit import predictions --in-place '{uri}' -b '{benchmark}' --refresh "
            "(or drop it with --forget)")


def source_problem(uri: str, benchmark: str, fingerprint: str, listing_json: str, revision: str | None) -> str | None:
    """None when the source is reachable and unchanged since registration,
    else the one line saying what is wrong and what to do."""
    recorded = json.loads(listing_json)
    known = {x[0]: (x[3], x[2]) for x in recorded if len(x) > 3}
    now = _current(uri, known)
    if isinstance(now, str):
        return f"prediction source {uri} (benchmark '{benchmark}') is unreachable: {now}"
    if now.fingerprint == fingerprint:
        return None
    before = [tuple(x[:3]) for x in recorded]
    return (f"prediction source {uri} (benchmark '{benchmark}') changed since it was registered: "
            f"{changes(before, now.listing, revision, now.revision)}; {refresh_hint(uri, benchmark)}")


# -- the relation --------------------------------------------------------------------------------------------

def register_filesystem(con: duckdb.DuckDBPyConnection, protocol: str) -> None:
    """Make DuckDB read *protocol*:// paths through fsspec (once per database
    instance; local files need nothing)."""
    if protocol == "file" or protocol in con.list_filesystems():
        return
    fs = source_filesystem(protocol)
    try:
        con.register_filesystem(fs)
    except duckdb.Error as exc:   # another thread of this process registered it meanwhile
        if "already" not in str(exc).lower():
            raise


def parquet_scan_sql(files, *, union_by_name: bool = False) -> str:
    """``read_parquet`` over exactly these files, with each row's file name
    and 0-based row number (``filename``, ``file_row_number``).
    ``union_by_name``: the files' columns differ (DuckDB then reads every
    footer when the relation is bound, not only the first).

    >>> parquet_scan_sql(["/a/x.parquet"])
    "read_parquet(['/a/x.parquet'], union_by_name = false, filename = true, file_row_number = true)"
    """
    return (
        "read_parquet([" + ", ".join(sql_str(f) for f in files) + f"], union_by_name = {str(union_by_name).lower()}, "
        "filename = true, file_row_number = true)"
    )


_MARKERS = ("prediction source ", "the prediction source(s) ")


def source_error(exc: BaseException) -> SourceError | None:
    """The :class:`SourceError` a failing branch of ``all_predictions``
    raised inside DuckDB (None for any other error).

    >>> import duckdb
    >>> try:
    ...     duckdb.sql("SELECT error('prediction source s3://b/p/ (benchmark ''t'') "
    ...                "is unreachable: not found')").fetchall()
    ... except duckdb.Error as exc:
    ...     print(source_error(exc))
    prediction source s3://b/p/ (benchmark 't') is unreachable: not found
    """
    first = (str(exc).strip().splitlines() or [""])[0]
    body = first.split("Invalid Input Error: ", 1)[-1]
    return SourceError(body) if body.startswith(_MARKERS) else None


def _failing_branch(message: str) -> str:
    cols = ", ".join(f"e::{t} AS {c}" for c, t in zip(COLUMNS, _TYPES))
    return f"SELECT {cols} FROM (SELECT error({sql_str(message)}) AS e)"


def attach(con: duckdb.DuckDBPyConnection) -> None:
    """On a fresh connection: when sources are registered, make
    ``all_predictions`` (for this connection) the stored rows plus each
    source read in place — or, for a source that changed or is
    unreachable, a branch that fails with its one-line message when read.
    Costs one small query when there is no source."""
    try:
        rows = con.execute("SELECT benchmark, uri, protocol, fingerprint, listing::VARCHAR, revision, relation_sql "
                           "FROM prediction_sources ORDER BY benchmark, uri").fetchall()
    except (duckdb.CatalogException, duckdb.InvalidInputException):   # a file from before migration 031, opened
        # read-only (InvalidInput: DuckDB's replacement scan met a Python name instead of the table): the stored rows
        try:
            con.execute(
                f"CREATE OR REPLACE TEMP VIEW {PREDICTIONS_RELATION} AS "
                f"SELECT {', '.join(COLUMNS)} FROM main.predictions"
            )
        except duckdb.Error:
            pass
        return
    if not rows:
        return
    parts = ["SELECT " + ", ".join(COLUMNS) + " FROM main.predictions"]
    for benchmark, uri, protocol, fingerprint, listing_json, revision, relation_sql in rows:
        problem = source_problem(uri, benchmark, fingerprint, listing_json, revision)
        if problem is None:
            try:
                register_filesystem(con, protocol)
            except Exception as exc:
                problem = f"prediction source {uri} (benchmark '{benchmark}') is unreachable: {_reason(exc)}"
        parts.append(_failing_branch(problem) if problem else relation_sql)
    try:   # DuckDB binds the view now: it reads the Parquet schemas
        con.execute(f"CREATE OR REPLACE TEMP VIEW {PREDICTIONS_RELATION} AS " + "\nUNION ALL ".join(parts))
    except duckdb.Error as exc:   # a file vanished or broke between the listing and now
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        uris = ", ".join(r[1] for r in rows)
        con.execute(f"CREATE OR REPLACE TEMP VIEW {PREDICTIONS_RELATION} AS {parts[0]} UNION ALL " + _failing_branch(
            f"the prediction source(s) {uris} cannot be read: {first}"))


def registered_sources(con: duckdb.DuckDBPyConnection, benchmark: str | None = None):
    """The registered sources as a DataFrame: benchmark, uri, protocol,
    mapping, model, run, n_files, n_rows, n_valid, models, fingerprint,
    revision, registered_at."""
    where, params = ("WHERE benchmark = ?", [benchmark]) if benchmark is not None else ("", [])
    return con.execute(
        "SELECT benchmark, uri, protocol, mapping, model, run, len(files) AS n_files, n_rows, n_valid, models, "
        f"fingerprint, revision, registered_at FROM prediction_sources {where} ORDER BY benchmark, uri", params).df()


__all__ = [
    "PREDICTIONS_RELATION",
    "COLUMNS",
    "SourceError",
    "SourceListing",
    "normalize_uri",
    "list_source",
    "remember_listing",
    "register_filesystem",
    "parquet_scan_sql",
    "registered_sources",
    "source_protocol",
    "attach",
    "source_error",
]
