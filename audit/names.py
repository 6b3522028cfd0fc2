"""Benchmark names: the one rule shared by every importer and by exports.

A benchmark name becomes a folder name under ``exports/`` and appears in
pages and files, so import refuses exactly what export refuses: names start
with a letter or digit and use letters, digits, ``.``, ``_`` and ``-`` (at
most 64 characters); ``..``, ``/``, ``<script>`` and the like are refused
before anything is written.
"""
from __future__ import annotations

import re

from audit.errors import InputError

BENCHMARK_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def validate_benchmark(name) -> str:
    """Return *name* if it can safely name a folder, else raise InputError.

    >>> validate_benchmark("tlue")
    'tlue'
    >>> validate_benchmark("/tmp/x")
    Traceback (most recent call last):
    ...
    audit.errors.InputError: invalid benchmark name '/tmp/x' (it names a folder of exports): use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64 characters)
    """
    if not isinstance(name, str) or not BENCHMARK_PATTERN.fullmatch(name) or ".." in name:
        raise InputError(
            f"invalid benchmark name {name!r} (it names a folder of exports): use letters, digits, '.', '_' and '-', "
            "starting with a letter or digit (at most 64 characters)"
        )
    return name


