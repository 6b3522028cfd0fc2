"""The workbench's pages (one module each)."""
