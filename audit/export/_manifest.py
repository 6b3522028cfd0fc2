"""``manifest.json``: what a version is, where it comes from, and the sha256
of every file in it.  The manifest is the only file with a timestamp
(``created_at``); everything else in a version is deterministic."""
from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timezone
from pathlib import Path

from audit._util.version import __version__
from audit.export._write import sha256_file
from audit.export.policy import Policy

MANIFEST_NAME = "manifest.json"
FORMAT = "answer-key-audit/key-version"
FORMAT_VERSION = 1


#: The one subfolder a version holds (its Hugging Face layout, :mod:`audit.export.hub`), and the
#: folders inside it; their files are listed in the manifest by their path, e.g. ``hf/data/test.parquet``.
SUBFOLDERS = ("hf", "hf/data")


def _listed_name(name: str) -> bool:
    """A manifest entry: a plain file name, or a path into one of :data:`SUBFOLDERS`."""
    if "\\" in name or "\0" in name:
        return False
    folder, _, base = name.rpartition("/")
    return (folder == "" or folder in SUBFOLDERS) and base not in ("", ".", "..", MANIFEST_NAME)


def file_hashes(folder: Path) -> dict[str, dict]:
    """``{file name: {"sha256", "bytes"}}`` for every file in *folder* except
    the manifest, and every file of its :data:`SUBFOLDERS` by its path,
    sorted by name."""
    out = {}
    for sub in ("", *SUBFOLDERS):
        d = folder / sub if sub else folder
        if not d.is_dir() or d.is_symlink():
            continue
        for p in sorted(d.iterdir(), key=lambda p: p.name):
            if p.is_file() and not p.is_symlink() and not (sub == "" and p.name == MANIFEST_NAME):
                out[f"{sub}/{p.name}" if sub else p.name] = {"sha256": sha256_file(p), "bytes": p.stat().st_size}
    return dict(sorted(out.items()))


def data_digest(files: dict[str, dict]) -> str:
    """One sha256 over the sorted ``name  sha256`` lines (like ``sha256sum``
    output): two versions with the same digest have identical data files."""
    text = "".join(f"{files[n]['sha256']}  {n}\n" for n in sorted(files))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_manifest(*, benchmark: str, source: str, version: str, parent: str | None, policy: Policy,
                   counts: dict, files: dict[str, dict], audit_run: dict | None,
                   created_at: datetime | None = None) -> dict:
    """The manifest as a dict (key order fixed).  ``audit_run`` is the model
    set and tier rule of the benchmark's latest audit run (``run_id``,
    ``models``, ``config``), or None when it was never analysed."""
    created = (created_at or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "benchmark": benchmark,
        "source": source,
        "version": version,
        "parent": parent,
        "created_at": created.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "tool": {"name": "answer-key-audit", "version": __version__},
        "policy": policy.as_dict(),
        "counts": {k: int(counts[k]) for k in ("items", "corrected", "excluded", "unchanged", "reviewed")},
        "audit_run": None if audit_run is None else {
            "run_id": audit_run.get("run_id"),
            "models": list(audit_run.get("models") or []),
            "tier_rule": audit_run.get("config"),
        },
        "data_sha256": data_digest(files),
        "files": files,
    }


def write_manifest(folder: Path, manifest: dict) -> str:
    (folder / MANIFEST_NAME).write_bytes((json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    return MANIFEST_NAME


def read_manifest(folder: Path) -> dict:
    return json.loads((Path(folder) / MANIFEST_NAME).read_text(encoding="utf-8"))


def _checked_manifest(folder: Path) -> tuple[dict | None, str | None]:
    """The manifest when it is readable and its ``files`` is a mapping of
    plain file names to ``{"sha256": hex, …}``; else (None, the problem)."""
    path = folder / MANIFEST_NAME
    if path.is_symlink() or not path.is_file():
        return None, f"{MANIFEST_NAME}: missing or not a regular file"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"{MANIFEST_NAME}: unreadable ({type(exc).__name__})"
    return checked_manifest_bytes(raw)


def checked_manifest_bytes(raw: bytes) -> tuple[dict | None, str | None]:
    """:func:`_checked_manifest` of manifest bytes already read (the one
    rule for names: a plain file name, never ``..``, a path or the manifest
    itself).

    >>> checked_manifest_bytes(b'{"files": {"../x": {"sha256": "0"}}}')[1]
    "manifest.json: the entry '../x' is not a file name with a sha256"
    """
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"{MANIFEST_NAME}: unreadable ({type(exc).__name__})"
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict):
        return None, f"{MANIFEST_NAME}: 'files' is not a mapping of file names to hashes"
    for name, entry in files.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str) or not _listed_name(name):
            return None, f"{MANIFEST_NAME}: the entry {name!r} is not a file name with a sha256"
    return manifest, None


def _entries(folder: Path) -> tuple[set[str], list[str]]:
    """The plain files directly in *folder* (not the manifest) and in its
    :data:`SUBFOLDERS` (by path), and the problems: symbolic links, other
    subfolders and anything in them, special files."""
    files: set[str] = set()
    problems: list[str] = []
    for root, dirs, names in os.walk(folder, followlinks=False):
        rel = Path(root).relative_to(folder)
        for d in sorted(dirs):
            p = Path(root) / d
            if (rel / d).as_posix() in SUBFOLDERS and not p.is_symlink():
                continue
            problems.append(f"{(rel / d).as_posix()}/: a symbolic link, not in the manifest" if p.is_symlink()
                            else f"{(rel / d).as_posix()}/: a subfolder, not in the manifest")
        for n in sorted(names):
            p = Path(root) / n
            shown = (rel / n).as_posix()
            if p.is_symlink():
                problems.append(f"{shown}: a symbolic link, not in the manifest")
            elif not p.is_file():
                problems.append(f"{shown}: not a regular file")
            elif rel != Path(".") and rel.as_posix() not in SUBFOLDERS:
                problems.append(f"{shown}: in a subfolder, not in the manifest")
            elif rel != Path("."):
                files.add(shown)
            elif n != MANIFEST_NAME:
                files.add(n)
    return files, problems


def verify_version(folder: Path, data_sha256: str | None = None) -> list[str]:
    """Problems of a version's folder, one line each; empty list = intact.

    Every file must be a plain file listed in the manifest with its sha256
    (a missing, changed or unlisted file, a subfolder, anything in one and a
    symbolic link are problems).  *data_sha256* (the database's record of
    the version, :func:`data_digest` of the files as published) must equal
    the digest of the manifest's entries: a data file edited together with
    its manifest entry is caught there.  A garbage manifest is one problem,
    never an exception.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "a.csv").write_text("x")
    >>> _ = write_manifest(d, {"files": file_hashes(d)})
    >>> verify_version(d), verify_version(d, "0" * 64)
    ([], ["manifest.json: the data differ from the database's record (data_sha256)"])
    """
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return [f"{folder}: not a folder"]
    manifest, problem = _checked_manifest(folder)
    if manifest is None:
        return [problem or MANIFEST_NAME]
    listed = manifest["files"]
    now, problems = _entries(folder)
    problems += [f"{n}: missing" for n in listed if n not in now]
    problems += [f"{n}: not in the manifest" for n in now if n not in listed]
    problems += [
        f"{n}: sha256 differs" for n, h in listed.items() if n in now and sha256_file(folder / n) != h["sha256"]
    ]
    if data_sha256 is not None and data_digest(listed) != data_sha256:
        problems.append(f"{MANIFEST_NAME}: the data differ from the database's record (data_sha256)")
    return sorted(problems)
