"""Ingest: importers for every source format, answer extraction, model families."""
from audit.ingest.models import import_models, infer_family, list_models, set_family

__all__ = ["import_models", "infer_family", "list_models", "set_family"]
