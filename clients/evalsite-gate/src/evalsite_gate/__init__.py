"""Gate an agent in CI on an evalsite server (no dependency beyond the standard library)."""

__version__ = "0.1.0"
