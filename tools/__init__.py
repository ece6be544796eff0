"""Maintainer tools, imported as a package from the repository root (``python -m tools.refresh_notebooks``)."""
