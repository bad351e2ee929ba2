"""The gate: the policy, the diff of two receipt sets, the verdict, the regression corpus and
sharding (pure)."""
