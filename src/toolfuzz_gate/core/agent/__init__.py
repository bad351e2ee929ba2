"""Agent mode, the pure half: chat-completions requests and replies, the run's budget,
cassettes, the agent loop and the agent-reachability of runtime failures (pure).

The edges (`edges.llm`) do the HTTP and the files; everything here is given a `chat`
callable and a `call_tool` callable and computes.
"""
