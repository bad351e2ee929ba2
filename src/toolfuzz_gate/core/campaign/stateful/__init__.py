"""Stateful campaigns: sequences of calls across the tools of one server (pure)."""
