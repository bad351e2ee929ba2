"""GitHub pieces: the event payload, identifiers, action inputs, comment plans and the text the
Actions runner reads (pure)."""
