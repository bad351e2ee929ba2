"""JSON utilities: canonical encoding, value semantics, pointers, patches, locating, redaction
(pure)."""
