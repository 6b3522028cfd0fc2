"""Validation of the names that become folder names under the exports dir.

A benchmark name and a version name are joined into
``<exports>/<benchmark>/<version>/``; anything that could escape that folder
(``..``, ``/``, ``\\``, an absolute path, a drive letter, control characters,
hidden names) is refused with a clear message *before* any path is built.

Versions are dotted numbers without leading zeros — ``1.0``, ``1.1``,
``2.0.1`` — so they order numerically and ``1.0`` / ``1.00`` cannot both
exist.  Benchmark names start with a letter or digit and use letters, digits,
``.``, ``_`` and ``-`` (at most 64 characters); ``.`` and ``..`` are thereby
excluded.
"""
from __future__ import annotations

import re

from audit._util.names import BENCHMARK_PATTERN, validate_benchmark
from audit.errors import InputError

__all__ = ["BENCHMARK_PATTERN", "validate_benchmark", "validate_version", "version_key", "ORIGINAL_VERSION"]

VERSION_PATTERN = re.compile(r"^(0|[1-9][0-9]{0,3})(\.(0|[1-9][0-9]{0,3})){1,2}$")
ORIGINAL_VERSION = "1.0"


def validate_version(version) -> str:
    """Return *version* if it is a valid version name, else raise InputError.

    >>> validate_version("1.1")
    '1.1'
    >>> validate_version("../x")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: invalid version name '../x': use dotted
    numbers such as 1.0, 1.1 or 2.0.1 (no leading zeros, no paths)
    """
    if not isinstance(version, str) or not VERSION_PATTERN.fullmatch(version):
        raise InputError(
            f"invalid version name {version!r}: use dotted numbers such as 1.0, 1.1 or 2.0.1 "
            "(no leading zeros, no paths)"
        )
    return version


def version_key(version: str) -> tuple[int, ...]:
    """Numeric sort key: ``1.10`` sorts after ``1.9``; ``1.0`` == ``1.0.0``.

    >>> sorted(["1.10", "1.9", "2.0", "1.0"], key=version_key)
    ['1.0', '1.9', '1.10', '2.0']
    """
    parts = [int(p) for p in validate_version(version).split(".")]
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)
