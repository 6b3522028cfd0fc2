__all__: list[str] = []

# Agreement statistics (judge-G): Cohen's / Fleiss' kappa, pairwise matrices.
from audit.analyze.agreement import FleissResult, KappaResult, agreement_matrix, cohen_kappa, fleiss_kappa  # noqa: E402

__all__ += ["KappaResult", "FleissResult", "cohen_kappa", "fleiss_kappa", "agreement_matrix"]
