"""``list_versions``: a benchmark's versions with their counts and lineage."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from audit.export._manifest import verify_version
from audit.export.names import validate_benchmark, version_key
from audit.store import DbPath, connect

LIST_COLUMNS = ["version", "parent", "policy", "created_at", "n_items", "n_corrected", "n_excluded",
                "n_unchanged", "n_reviewed", "data_sha256", "path", "on_disk"]


def list_versions(benchmark: str, *, db: DbPath = None, verify: bool = False) -> pd.DataFrame:
    """Versions of *benchmark*, oldest first (numeric version order).

    Columns :data:`LIST_COLUMNS`; ``on_disk`` says whether the version's
    folder is still there.  With ``verify=True`` a column ``intact`` says
    whether the folder holds exactly the files of its manifest, each with
    its sha256, and the manifest matches the database's ``data_sha256``
    (:func:`~audit.export._manifest.verify_version`);
    ``df.attrs["problems"]`` maps each version that is not intact to its
    first problem, one line."""
    validate_benchmark(benchmark)
    with connect(db, read_only=True) as con:
        df = con.execute(
            "SELECT version, parent, policy, created_at, n_items, n_corrected, n_excluded, n_unchanged, "
            "n_reviewed, data_sha256, path FROM key_versions WHERE benchmark = ?", [benchmark]).df()
    df["on_disk"] = [Path(p).is_dir() for p in df["path"]]
    df = df.iloc[sorted(range(len(df)), key=lambda i: version_key(df["version"].iloc[i]))].reset_index(drop=True)
    df = df[LIST_COLUMNS]
    if verify:
        problems = [verify_version(Path(p), h) if d else ["the folder is no longer on disk"]
                    for p, d, h in zip(df["path"], df["on_disk"], df["data_sha256"])]
        df["intact"] = [not x for x in problems]
        df.attrs["problems"] = {v: x[0] for v, x in zip(df["version"], problems) if x}
    return df
