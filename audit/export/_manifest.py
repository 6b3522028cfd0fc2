"""``manifest.json``: what a version is, where it comes from, and the sha256
of every file in it.  The manifest is the only file with a timestamp
(``created_at``); everything else in a version is deterministic."""
from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from audit._version import __version__
from audit.export._policy import Policy
from audit.export._write import sha256_file

MANIFEST_NAME = "manifest.json"
FORMAT = "answer-key-audit/key-version"
FORMAT_VERSION = 1


def file_hashes(folder: Path) -> dict[str, dict]:
    """``{file name: {"sha256", "bytes"}}`` for every file in *folder* except
    the manifest, sorted by name."""
    return {
        p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size}
        for p in sorted(folder.iterdir(), key=lambda p: p.name)
        if p.is_file() and p.name != MANIFEST_NAME
    }


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


def verify_version(folder: Path) -> list[str]:
    """Files whose sha256 no longer matches the manifest (or are missing /
    unexpected).  Empty list = intact."""
    manifest = read_manifest(folder)
    now = file_hashes(Path(folder))
    problems = [f"{n}: missing" for n in manifest["files"] if n not in now]
    problems += [f"{n}: not in the manifest" for n in now if n not in manifest["files"]]
    problems += [f"{n}: sha256 differs" for n, h in manifest["files"].items()
                 if n in now and now[n]["sha256"] != h["sha256"]]
    return sorted(problems)
