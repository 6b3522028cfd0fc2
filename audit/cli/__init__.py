"""The ``audit`` command line: a thin layer over the public Python API.
Each command calls one public function and prints what it returns; every
command has ``--help``, and an error is one line on stderr with exit code 1."""
from audit.cli._app import app, main

__all__ = ["app", "main"]
