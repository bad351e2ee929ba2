"""Handler adapters: one module per kind of handler, one registry."""
