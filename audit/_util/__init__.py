"""The private kernel every package may import: strict file readers, safe CSV
output, catalogue SQL, secret redaction, identifier and folder-name rules,
the version.  It imports nothing of the project but :mod:`audit.errors`."""
