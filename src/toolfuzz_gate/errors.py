"""The gate's own failures: one root exception, grouped by who must act (pure).

Findings about a handler are data (see `core.campaign.findings`), never exceptions. These
exceptions are for problems that stop the gate: bad usage, a bad schema, a handler
that cannot start. Each carries a stable `code` (an API: add, never repurpose) and
structured fields; the message is built from them.
"""

from __future__ import annotations

from dataclasses import dataclass


class ToolfuzzError(Exception):
    """Root of every error the gate reports to its user."""

    code = "toolfuzz.error"

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        """The text a user sees: code, what and where, then what to do."""
        text = f"error[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class UsageError(ToolfuzzError):
    """The command line was wrong: unknown flag, repeated flag, conflicting flags."""

    code = "usage.invalid"


@dataclass(frozen=True)
class SchemaProblem:
    """One thing wrong with a schema, located by JSON Pointer."""

    code: str
    pointer: str
    message: str
    keyword: str = ""

    def render(self) -> str:
        where = self.pointer or "(root)"
        return f"{self.code} at {where}: {self.message}"


class SchemaError(ToolfuzzError):
    """A schema the engine refuses: unsupported keywords, contradictions, limits.

    Carries every problem found in one pass, so a report can list them all.
    """

    code = "schema.invalid"

    def __init__(self, problems: list[SchemaProblem], *, source: str = "") -> None:
        if not problems:
            raise ValueError("SchemaError needs at least one problem")
        self.problems = tuple(problems)
        self.source = source
        first = problems[0]
        self.code = first.code
        where = f"{source}: " if source else ""
        lines = [f"{where}{len(problems)} problem(s) in the schema"]
        lines += [f"  {p.render()}" for p in problems]
        super().__init__(
            "\n".join(lines),
            hint=schema_hint(first.code),
        )


def schema_hint(code: str) -> str:
    """What to do about a schema problem of `code` (the hint a `SchemaError` prints)."""
    return _SCHEMA_HINTS.get(code, "fix the schema at the pointer shown")


_SCHEMA_HINTS = {
    "schema.unsupported-keyword": (
        "the engine only fuzzes keywords it fully understands; remove or rewrite the "
        "keyword, or wait for the subset to widen"
    ),
    "schema.unsupported-pattern": (
        "rewrite the pattern without the construct named at that offset (every validator the "
        "gate trusts must read it the same way, without catastrophic backtracking)"
    ),
    "schema.lone-surrogate": (
        "a lone surrogate (a \\uD800-\\uDFFF escape without its pair) is no character: "
        "rename the property or change the string, writing the character it was meant to be"
    ),
    "schema.unsafe-key": "rename the property: this name is a prototype-pollution vector",
    "schema.contradiction": "the keyword contradicts another one; no value can satisfy both",
    "schema.unbuildable": (
        "the schema is not shown to be wrong: the engine could not build a value for the part "
        "named; simplify that pattern or combination, or report it with the schema"
    ),
    "schema.unknown-type": (
        "use a standard type name, or name the schema's dialect with --dialect "
        "(openapi, bfcl, gemini)"
    ),
    "schema.unsupported-format": (
        "as an assertion the engine checks only the formats it knows; use one of them, or "
        "fuzz without --format-assertion to read format as an annotation"
    ),
}


class ToolsError(ToolfuzzError):
    """A tools declaration (tools file, pydantic model) that cannot be read as tools.

    `pointer` locates the problem inside a file (None: not in a file, such as a model);
    `source` names the file or model.
    """

    code = "tools.invalid"

    def __init__(
        self, message: str, *, pointer: str | None = None, source: str = "", hint: str = ""
    ) -> None:
        self.pointer = pointer
        self.source = source
        where = f"{source}: " if source else ""
        at = "" if pointer is None else f" at {pointer or '(root)'}"
        super().__init__(f"{where}{message}{at}", hint=hint)
        self.detail = message

    line: int | None = None
    """The line of `pointer` in the file, once `located` knows it."""

    def located(self, source: str, line: int | None = None) -> ToolsError:
        """The same problem, naming the file or model it came from (and the line)."""
        where = source if line is None else f"{source}:{line}"
        error = ToolsError(self.detail, pointer=self.pointer, source=where, hint=self.hint)
        error.line = line
        return error


class HandlerError(ToolfuzzError):
    """The handler cannot be used at all (bad spec, cannot import, exits on start)."""

    code = "handler.unusable"


class TaskRequiredError(HandlerError):
    """An MCP tool that may only be called as a task (`execution.taskSupport: "required"`):
    the gate calls tools plainly, so it skips the tool (a note, not a failure of the gate)."""

    code = "handler.task-required"


class ReceiptError(ToolfuzzError):
    """A receipt file that cannot be read or does not follow its format."""

    code = "receipt.invalid"


class InputFileError(ToolfuzzError):
    """A file the user named cannot be read, is too large or is not JSON."""

    code = "input.unreadable"


class GitError(ToolfuzzError):
    """git cannot give the gate the commit it needs (missing, shallow clone, git failing).

    `code` is one of `git.failed`, `git.shallow-clone`, `git.base-unresolved`,
    `git.worktree`.
    """

    code = "git.failed"

    def __init__(self, message: str, *, code: str = "git.failed", hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.code = code


class PolicyError(ToolfuzzError):
    """A policy file that cannot be used: unreadable, not YAML, or not a valid policy.

    `file` names the policy, `line` is 1-based (the line of `key`, or where the YAML
    problem is), `key` is the path of the offending member (`tools/0/handler`, or
    `(document)` for the file as a whole).
    """

    code = "policy.invalid"

    def __init__(self, message: str, *, file: str, line: int, key: str, hint: str = "") -> None:
        self.file = file
        self.line = line
        self.key = key
        self.detail = message
        super().__init__(f"{file}:{line}: {key}: {message}", hint=hint)


class ShardError(ToolfuzzError):
    """Shard outputs that cannot be merged: a manifest missing or unsound, shards of
    different runs, a shard missing or given twice, a receipt not the one the shard ran."""

    code = "shard.invalid"


class CorpusError(ToolfuzzError):
    """A regression corpus case file that cannot be read or does not follow its format."""

    code = "corpus.invalid"


class GitHubError(ToolfuzzError):
    """The GitHub REST API could not do what the gate asked (posting the PR comment).

    `code` is one of `github.unreachable` (network error, timeout), `github.forbidden`
    (401, or a 403 that is not a rate limit), `github.not-found` (404),
    `github.rate-limited` (429, or a rate-limit 403, beyond the retry bound),
    `github.rejected` (422) and `github.failed` (anything else, 5xx included).
    `status` is the HTTP status (None when no response came); `github_message` is the short,
    single-line message from GitHub's answer ("" when it gave none).
    """

    code = "github.failed"

    def __init__(
        self,
        message: str,
        *,
        code: str = "github.failed",
        status: int | None = None,
        github_message: str = "",
        hint: str = "",
    ) -> None:
        self.status = status
        self.github_message = github_message
        self.detail = message
        text = message
        if status is not None:
            text += f" (HTTP {status})"
        if github_message:
            text += f": {github_message}"
        super().__init__(text, hint=hint)
        self.code = code


class LlmError(ToolfuzzError):
    """Agent mode could not get what it needed from the model (exit code 4).

    `code` is one of `llm.missing-key` (the policy's `api_key_env` is unset),
    `llm.budget-exceeded` (the run's `max_requests` or `max_tokens` is spent),
    `llm.cassette-miss` (a `replay` request the cassette does not hold),
    `llm.cassette-invalid` (a cassette file that is not sound),
    `llm.malformed-response` (an answer that is not a chat completion),
    `llm.unreachable` (network error or timeout after the retries),
    `llm.rate-limited` (429 beyond the retries), `llm.forbidden` (401, 403),
    `llm.rejected` (another 4xx), `llm.failed` (5xx beyond the retries),
    `llm.request-deadline` (one request past `llm.request_deadline_s`, retries included) and
    `llm.run-deadline` (the run past `llm.run_deadline_s`). The message
    never holds the API key: the client removes it from any text it reports.
    """

    code = "llm.failed"

    def __init__(self, message: str, *, code: str = "llm.failed", hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.code = code
