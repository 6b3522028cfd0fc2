"""audit._util.version: the one version string.  Pins that it is a PEP 440
version and the one the package metadata (pyproject.toml) declares, and
that ``audit.__version__`` is the same string."""
from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.version import Version

from audit._util.version import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_pep440_and_matches_pyproject():
    assert str(Version(__version__)) == __version__
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = meta["project"].get("version")
    if declared is None:   # a dynamic version read from this module
        assert "version" in meta["project"].get("dynamic", [])
    else:
        assert declared == __version__


def test_the_package_exports_the_same_version():
    import audit

    assert audit.__version__ == __version__
