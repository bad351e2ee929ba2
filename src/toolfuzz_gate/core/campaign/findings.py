"""Findings: invariant violations as values, and their stable fingerprints (pure)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject


class Failure(StrEnum):
    """The closed vocabulary of failure classes (an API: add, never repurpose)."""

    HOSTILE_ACCEPTED = "hostile-accepted"
    VALID_REJECTED = "valid-rejected"
    CRASH = "crash"
    TIMEOUT = "timeout"
    MUTATION_ON_REJECTION = "mutation-on-rejection"
    DRY_RUN_MUTATION = "dry-run-mutation"
    REPLAY_UNSTABLE = "replay-unstable"
    METAMORPHIC_KEY_ORDER = "metamorphic-key-order"
    OUTPUT_UNBOUNDED = "output-unbounded"
    ERROR_VOCABULARY = "error-vocabulary"
    ORACLE_DISAGREEMENT = "oracle-disagreement"
    RESOURCE_EXHAUSTION = "resource-exhaustion"
    READ_ONLY_MUTATION = "read-only-mutation"
    UNDER_SPECIFIED = "under-specified"
    """Not a defect: a clean rejection of a schema-valid call where the schema is not
    declared complete. Receipts keep these apart from counterexamples, as notes."""
    OUTPUT_SCHEMA_VIOLATION = "output-schema-violation"
    NOT_IDEMPOTENT = "not-idempotent"
    SLOW = "slow"
    """A timeout told apart: the call answered, but only when given far more than the budget
    (`core.campaign.confirm.HANG_FACTOR` times it)."""
    HUNG = "hung"
    """A timeout told apart: the call never answered, not even given far more time."""
    INTERNAL_ERROR = "internal-error"
    """The handler answered an internal error of its own (a JSON-RPC -32603) and its process
    lived: an exception it did not handle, not a dead process."""
    SEQUENCE_CRASH = "sequence-crash"
    """A call crashed in a sequence of calls, and not alone on a fresh state."""
    SEQUENCE_TIMEOUT = "sequence-timeout"
    """A call hung in a sequence of calls, and not alone on a fresh state."""
    RESOURCE_UNAVAILABLE = "resource-unavailable"
    """A read rejected what a create had just returned (the link certain)."""
    USE_AFTER_DELETE = "use-after-delete"
    """A read or delete of something just deleted was accepted, or a listing still held it."""
    UPDATE_NOT_VISIBLE = "update-not-visible"
    """The read after an idempotent update did not return what the update wrote."""
    WRITE_OUTSIDE_ROOT = "write-outside-root"
    """A confined handler created, changed or removed a file outside its allowed root."""


TOLD_APART = {Failure.SLOW: Failure.TIMEOUT, Failure.HUNG: Failure.TIMEOUT}
"""Classes a call's observation cannot give by itself, and the class it gives instead: a
timeout is told slow or hung only by waiting far longer (`core.campaign.confirm`)."""


HANGS = frozenset({Failure.TIMEOUT, Failure.SLOW, Failure.HUNG})
"""The classes of a call that did not answer in time. One that never failed on a handler
started afresh is noted, never failing: the campaign's own state made the call slow."""


def as_observed(failure: Failure) -> Failure:
    """The class one observation of a `failure` gives (`TOLD_APART`)."""
    return TOLD_APART.get(failure, failure)


class InputKind(StrEnum):
    VALID = "valid"
    HOSTILE = "hostile"
    SEAM = "seam"


@dataclass(frozen=True)
class Finding:
    """One invariant violated by one case.

    `path` is the instance JSON Pointer the finding is about (the mutated location
    for hostile cases and probes, the root for whole-call properties of valid
    cases); `mutation` is the family (`valid` for valid cases, the mutation family
    for hostile ones, `seam:<probe>` for probes); `cause` is the failure's cause in
    stable words (`core.campaign.cause`: an exception type, a rejection or server error code;
    empty for failures that have none, such as an accepted hostile call).
    """

    failure: Failure
    path: str
    mutation: str
    input_kind: InputKind
    input: JSON
    keyword: str = ""
    case: int = 0
    error: JSONObject = field(default_factory=dict)
    cause: str = ""

    @property
    def identity(self) -> tuple[str, str, str]:
        """What shrinking must keep: the failure class, the path and the cause (a crash
        shrunk into another exception, or a rejection into another code, is another bug)."""
        return (self.failure.value, self.path, self.cause)


FINGERPRINT_LENGTH = 24


def is_fingerprint(value: object) -> bool:
    """Does `value` have the form `fingerprint` gives (so a forged receipt cannot slip
    arbitrary text where reports print a fingerprint)?"""
    return (
        isinstance(value, str)
        and len(value) == FINGERPRINT_LENGTH
        and all(c in "0123456789abcdef" for c in value)
    )


def fingerprint(tool: str, failure: str, path: str, mutation: str, cause: str = "") -> str:
    """Stable across runs and input bytes: only what the finding is about counts.

    The cause (stable words, never the message) tells apart two bugs of one class at one
    path, and then the mutation family that happened to reach the bug does not: a crash
    found by a valid case and by three seam probes, all shrunk to `{}`, is one bug. A
    finding without a cause (an accepted hostile call: the family names the keyword it
    breaks) keeps the fingerprint it had before causes were kept.
    """
    if cause:
        parts: tuple[str, ...] = ("toolfuzz-fp/2", tool, failure, path, cause)
    else:
        parts = ("toolfuzz-fp/1", tool, failure, path, mutation)
    text = "\x1f".join(parts)
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
    return digest[:FINGERPRINT_LENGTH]
