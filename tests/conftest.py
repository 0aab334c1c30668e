"""Shared pytest configuration for the Las Vegas Arena test suite.

`pyproject.toml` puts the repository root and `platform/` on sys.path.
"""
