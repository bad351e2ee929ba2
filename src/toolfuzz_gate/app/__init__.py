"""The application layer: one function per use case, between the command line and the rest.

Each command of `cli/` becomes a typed request (`app.requests`); the functions here take a
request and the streams to print on, run it with `edges/` and `core/`, and return an
`ExitCode`. Nothing here parses arguments: `cli -> app -> edges -> core -> errors`.
"""
