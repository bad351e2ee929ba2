"""Built-in tool contracts: the embedded default the gate runs anywhere."""
