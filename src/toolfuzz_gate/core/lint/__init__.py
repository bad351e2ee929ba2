"""Lint: what a tool schema gets wrong as documentation, without running anything (pure)."""
