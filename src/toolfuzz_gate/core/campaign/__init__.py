"""The campaign: run one tool's cases through its handler, judge them with the oracle and the
invariants, shrink and confirm the findings, and seal the receipt (pure over `Handler`)."""
