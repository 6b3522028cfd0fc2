"""Corrected answer-key versions: derive a version from the settled verdicts
under a named policy, publish it (data files, changelog, datasheet,
manifest), list, verify and diff versions, and the accuracy on the original
against the corrected keys.

Beside the names below: :mod:`audit.export.policy` (the named policies; a
documented extension point), :mod:`audit.export.archive` (a version as one
zip file) and :mod:`audit.export.names` (the rule for benchmark and version
names that become folders).
"""
from audit.export._corrected import corrected_key_accuracy, corrected_keys, report_section
from audit.export._create import create_version, preview_version
from audit.export._diff import diff_versions
from audit.export._listing import list_versions
from audit.export._manifest import read_manifest, verify_version
from audit.export._write import csv_bytes
from audit.export.archive import release_zip
from audit.export.policy import list_policies, register_policy

__all__ = [
    "create_version", "preview_version", "diff_versions", "list_versions", "read_manifest", "verify_version",
    "corrected_key_accuracy", "corrected_keys", "report_section", "release_zip", "register_policy", "list_policies",
    "csv_bytes",
]
