"""`python -m toolfuzz_gate` runs the command line."""

from toolfuzz_gate.cli import main

raise SystemExit(main())
