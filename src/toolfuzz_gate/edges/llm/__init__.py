"""Agent mode's edge: the chat-completions HTTP client and cassette files (edge)."""
