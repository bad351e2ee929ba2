"""Agent receipt directories: the sound agent receipts (`toolfuzz-agent/1`) a directory
holds, in file-name order (edge). Read for the base's side of a diff (a stored baseline's
`agent/`) and by report mode (the first run's `agent/`), both untrusted: every file is
checked, and one that claims to be an agent receipt but is not sound is an error naming it.
"""

from __future__ import annotations

from pathlib import Path

from toolfuzz_gate.core.agent.agent_receipt import FORMAT, agent_receipt_problems
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.files import MAX_JSON_FILE_BYTES, load_json
from toolfuzz_gate.errors import InputFileError, ReceiptError

AGENT_DIRECTORY = "agent"
"""Where agent receipts go by default: this directory under the schema receipts'."""
MAX_AGENT_RECEIPTS = 1_000
"""Agent receipts read from one directory (a schema receipt directory's bound)."""


def load_agent_receipts(directory: Path) -> list[JSONObject] | None:
    """The agent receipts in `directory` (not its subdirectories); None when there is no
    such directory (agent mode did not run there)."""
    if not directory.is_dir() or directory.is_symlink():
        return None
    try:
        names = sorted(p for p in directory.iterdir() if p.suffix == ".json")
    except OSError as error:
        raise InputFileError(f"cannot list agent receipts in {directory}: {error}") from None
    if len(names) > MAX_AGENT_RECEIPTS:
        raise InputFileError(f"{directory} holds over {MAX_AGENT_RECEIPTS} agent receipts")
    found: list[JSONObject] = []
    for path in names:
        if path.is_symlink() or not path.is_file():
            continue
        try:
            document = load_json(path, max_bytes=MAX_JSON_FILE_BYTES, what="agent receipt")
        except InputFileError as error:
            raise ReceiptError(error.message) from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            continue
        problems = agent_receipt_problems(document)
        if problems:
            raise ReceiptError(
                f"agent receipt {path} is not sound: {'; '.join(problems)}",
                hint="regenerate it with toolfuzz-gate; receipts are not edited by hand",
            )
        found.append(document)
    return found
