"""The top of the data flow: what combines several stages into one account
of a benchmark, or of several.

* :mod:`audit.report.full` — the full ``audit report`` of a benchmark: each
  stage's sections, composed explicitly;
* :mod:`audit.report.scores` — ``audit report scores``: every model under
  every key version, rendered;
* :mod:`audit.report.compare` — ``audit report compare``: several
  benchmarks side by side, and what differs across parallel languages.
"""
from audit.report.full import benchmark_report, build_report

__all__ = ["build_report", "benchmark_report"]
