"""The engine's version, written into every game log."""

__version__ = "0.1.0"
