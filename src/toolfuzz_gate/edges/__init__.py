"""Edges: files, processes, the network. I/O lives here and nothing clever."""
