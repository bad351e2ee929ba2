"""toolfuzz-gate: fuzz AI-agent tool handlers from their JSON Schema and gate pull requests."""

__version__ = "0.6.0"
ENGINE_NAME = "toolfuzz-gate"
