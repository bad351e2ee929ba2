"""Reading a schema: the node tree, options, references, dialects, and the keyword, format and
regex tables (pure)."""
