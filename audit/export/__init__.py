"""Corrected answer-key versions: derive, publish, list and diff.

One concept per module: :mod:`~audit.export._names` (validation of benchmark
and version names), :mod:`~audit.export._policy` (named policies),
:mod:`~audit.export._derive` (items → key and inclusion, in SQL),
:mod:`~audit.export._write` (atomic staging, native formats, Parquet,
changelog, exclusion lists), :mod:`~audit.export._manifest`,
:mod:`~audit.export._datasheet`, :mod:`~audit.export._create`,
:mod:`~audit.export._corrected` (corrected keys and original-vs-corrected
accuracy under a policy: the one implementation),
:mod:`~audit.export._diff`, :mod:`~audit.export._listing`.
"""
from audit.export._archive import release_name, release_zip
from audit.export._corrected import accuracy_comparison, corrected_key_accuracy, corrected_keys, report_section
from audit.export._create import VersionSummary, create_version, exports_root, preview_version
from audit.export._diff import diff_versions
from audit.export._listing import list_versions
from audit.export._manifest import read_manifest, verify_version
from audit.export._names import validate_benchmark, validate_version
from audit.export._policy import POLICIES, Policy, get_policy, list_policies, register_policy
from audit.export._write import csv_bytes

__all__: list[str] = [
    "VersionSummary", "create_version", "exports_root", "preview_version", "diff_versions", "list_versions", "read_manifest",
    "verify_version", "validate_benchmark", "validate_version", "POLICIES", "Policy", "get_policy",
    "list_policies", "register_policy", "release_name", "release_zip",
    "corrected_key_accuracy", "corrected_keys", "accuracy_comparison", "report_section", "csv_bytes",
]
