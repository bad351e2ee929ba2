"""The pure core: compile, generate, mutate, judge, shrink, receipt. No I/O here."""
