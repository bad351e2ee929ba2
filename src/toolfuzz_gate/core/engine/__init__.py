"""The engine: compile a schema into its node tree, generate valid values and hostile near-misses
(pure)."""
