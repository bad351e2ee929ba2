"""Verdicts for the baseline findings, written by hand after replaying one sample of each
distinct (server, tool, failure class, cause) with replay.py (see TRIAGE.md).

classify(finding) -> (verdict, group, reason); verdict is real | debatable | false.
`group` names the sub-kind a verdict was given for (the rows of TRIAGE.md's detail table).
A finding no rule covers is UNCLASSIFIED: triage it by hand and add a rule.
"""

from __future__ import annotations

import json
import re

REAL, DEB, FALSE = "real", "debatable", "false"


def _msg(c: dict) -> str:
    e = c.get("error") or {}
    return e.get("message") or e.get("code") or ""


def classify(c: dict) -> tuple[str, str, str]:
    s, t, f, m = c["server"], c["tool"], c["failure"], _msg(c)
    inp = c.get("input") or {}

    if f == "valid-rejected":
        if s == "sequential-thinking":
            return (
                REAL,
                "boolean-or-any-string",
                "the published schema types the flag as [boolean, string] (any string) but the "
                'server takes only booleans and "true"/"false": the schema is wrong (an enum fixes it)',
            )
        if s == "everything" and t == "get-resource-reference":
            return (
                DEB,
                "positive-integer-id",
                "resourceId is typed `number`; the tool wants a positive integer, which "
                "`type: integer, minimum: 1` would say: incomplete schema, correct behaviour",
            )
        if s == "everything" and t == "simulate-research-query":
            return (
                FALSE,
                "taskSupport-required",
                "the tool declares execution.taskSupport: required and the gate called it as a "
                "plain tools/call, which the server must refuse (-32601): a gate defect",
            )
        if s == "calculator":
            return (
                FALSE,
                "expression-grammar",
                "clean rejection of an expression the calculator cannot evaluate (syntax, unknown "
                "identifier, NUL byte): no schema can express the grammar",
            )
        if s == "time":
            if "Missing required argument" in m:
                return (
                    DEB,
                    "empty-string-as-missing",
                    '"" is treated as a missing time zone; `minLength: 1` would declare it',
                )
            return (
                FALSE,
                "unknown-time-zone",
                "clean rejection of a name that is not an IANA time zone: a rule of the "
                "environment's zone database, not of the schema",
            )
        if s == "git":
            if "outside the allowed repository" in m:
                return (
                    FALSE,
                    "repo-outside-allowed",
                    "repo_path other than the one --repository allows is refused cleanly: an "
                    "environment-bound argument (needs fixed_arguments), no handler code reached",
                )
            if "embedded null byte" in m:
                return (
                    FALSE,
                    "nul-in-path",
                    "a path with a NUL byte is refused cleanly (no OS path can hold one)",
                )
        if s == "filesystem":
            if "EISDIR" in m and t == "write_file":
                return (
                    REAL,
                    "write-outside-sandbox",
                    'path "" is the allowed directory itself; write_file then writes the caller\'s '
                    "content to <allowed-dir>.<hex>.tmp, a sibling OUTSIDE the allowed directory, "
                    "before the rename fails (seen with strace; the temp file is unlinked after)",
                )
            if (
                t == "move_file"
                and inp.get("source") == ""
                and ("EINVAL" in m or "already exists" in m)
            ):
                return (
                    DEB,
                    "move-sandbox-root",
                    'source "" names the allowed root itself; only the kernel\'s EINVAL (or the '
                    "exists check) stops moving the sandbox root: clean, but the server allows the attempt",
                )
            if "Cannot specify both head and tail" in m:
                return (
                    DEB,
                    "head-xor-tail",
                    "head and tail are mutually exclusive, which the schema could say (oneOf) but does not",
                )
            if "ENAMETOOLONG" in m:
                return (
                    FALSE,
                    "name-too-long",
                    "clean ENAMETOOLONG: the OS limit is 255 bytes per name, not a character count "
                    "a schema can state",
                )
            if "Access denied - path outside allowed" in m:
                return (
                    FALSE,
                    "nul-path-denied",
                    "a NUL-byte path is refused cleanly (the message says 'outside allowed "
                    "directories', which is misleading but safe)",
                )
            if "EISDIR" in m:
                return (
                    FALSE,
                    "directory-as-file",
                    '"" is the allowed directory itself; reading/editing a directory as a file is '
                    "refused cleanly",
                )
            if re.search(r"ENOENT|ENOTDIR|EEXIST|could not find exact match", m, re.I):
                return (
                    FALSE,
                    "path-state",
                    "the path does (not) exist or is (not) a directory: a rule of the file system's "
                    "state, which no schema can express (in a fresh sandbox the replay gives ENOENT or ok)",
                )
        if s == "memory" and "not found" in m:
            return (
                FALSE,
                "entity-not-created",
                "the entity was not created yet: a rule of the stored graph, not of the schema",
            )
        if s == "calc-mcp":
            if re.search(r"required for|is required|does not support HMAC", m):
                return (
                    DEB,
                    "conditional-required",
                    "a member required only for some `action`/`algorithm` values: expressible with "
                    "oneOf over the action, absent from the schema",
                )
            if "values array is empty" in m:
                return (DEB, "min-items", "an empty `values` array: `minItems: 1` would declare it")
            if "Pattern too long" in m:
                return (
                    REAL,
                    "utf16-length",
                    "the schema says maxLength 500 (JSON Schema counts code points) but the tool counts "
                    "UTF-16 units: a 260-emoji pattern the schema admits is refused ('524 chars, max: "
                    "500'); every zod .max() of this server has the same mismatch",
                )
            if "Input must contain only digits" in m:
                return (DEB, "digits-pattern", "digits only: a `pattern` would declare it")
            if "Invalid digit '-'" in m:
                return (
                    DEB,
                    "negative-base",
                    "negative numbers are not converted: `minimum: 0` would declare it (or a missing feature)",
                )
            if "Charset is empty after exclusions" in m:
                return (
                    FALSE,
                    "cross-field-charset",
                    "excludeChars removes the whole charset: a cross-field rule no schema can express",
                )
            return (
                FALSE,
                "value-grammar",
                "clean rejection of a value outside the grammar the tool parses (date, URL, cron, "
                "unit, colour, JWT, regex flags, math expression, semver, IP/CIDR): no schema "
                "can express it",
            )

    if f == "hostile-accepted":
        if s == "knowledge-graph":
            return (
                REAL,
                "no-validation",
                "no argument validation: null/missing names, non-object items and duplicates the "
                "schema forbids are accepted, stored or reported as success (a stored null name "
                "then breaks search_nodes)",
            )
        if s == "sequential-thinking":
            return (
                REAL,
                "integer-accepts-string",
                'an integer field accepts a numeric string ("8"): the server\'s validator coerces '
                "what its published schema forbids",
            )

    if f == "crash":
        if s == "knowledge-graph":
            if re.search(r"not found", m):
                return (
                    DEB,
                    "business-rejection-as-32603",
                    "'Entity/Relation not found' is a clean business rejection, but sent as JSON-RPC "
                    "-32603 internal error instead of an isError result",
                )
            if t == "search_nodes" and inp.get("query") == "":
                return (
                    REAL,
                    "stored-null-breaks-search",
                    "TypeError on toLowerCase: a null/missing name stored through create_entities makes "
                    "every search crash (replayed: create_entities name:null, then search_nodes)",
                )
            return (
                REAL,
                "typeerror-on-invalid-input",
                "TypeError (-32603) on a missing or null member the schema requires: the server "
                "never validates its arguments (some only once the graph is non-empty)",
            )

    if f == "replay-unstable":
        if s == "sequential-thinking":
            return (
                DEB,
                "stateful-declared-idempotent",
                "appends to a thought history (thoughtHistoryLength grows) although the tool "
                "declares readOnlyHint and idempotentHint true: the annotation is wrong, the "
                "behaviour is by design",
            )
        reasons = {
            "everything": "a toggle: on then off by design (idempotentHint: false)",
            "memory": "creates/adds on the first call, nothing new on the second (idempotentHint: false)",
            "knowledge-graph": "creates/updates by design (version and createdAt change)",
            "filesystem": "mutates the file system by design (idempotentHint: false)",
            "calc-mcp": "random values / the current time by design",
            "todo": "creates a task with a new id on every call",
        }
        if s in reasons:
            return (FALSE, "stateful-by-design", reasons[s])

    if f == "output-unbounded":
        if s == "calc-mcp" and t == "random":
            return (
                FALSE,
                "echo-of-input",
                "a shuffle returns the caller's items: output the size of the input",
            )
        if s == "calc-mcp":
            return (
                DEB,
                "amplified-output",
                "output about 100x the input (per-character info / one match per position): "
                "bounded by the input, but no limit is declared",
            )
        return (
            DEB,
            "grows-with-store",
            "the whole store is returned with no paging (here 75-170 KB, filled by the other tools' "
            "fuzzing in the same sandbox); a fresh store gives ~100 B",
        )

    if f == "timeout" and s == "everything" and _asks_for_hours(inp):
        return (
            DEB,
            "asked-to-run-forever",
            "`duration`/`steps` have no maximum: asked to run for 10^15 s it does, reporting "
            "progress each second until the gate's overall ceiling; a `maximum` would declare "
            "the limit (the tool does what it is told)",
        )
    if f == "timeout" and s == "git" and "😀" in json.dumps(inp, ensure_ascii=False):
        return (
            REAL,
            "surrogate-in-error",
            "a 1024-emoji file name: git fails (name too long) and the server's answer holds the "
            "OS's surrogate-escaped bytes; pydantic cannot serialize them, the exception kills "
            "the session's task group and the call is never answered (replayed: no answer, "
            "traceback 'surrogates not allowed')",
        )
    if f == "hostile-accepted" and s == "git":
        return (
            REAL,
            "numeric-string-for-integer",
            'an integer field (context_lines, max_count) accepts the string "2": pydantic\'s lax '
            "mode coerces what the published schema forbids",
        )
    if f == "timeout" and s == "everything":
        return (
            FALSE,
            "long-running-by-design",
            "trigger-long-running-operation runs 10 s by default (its `duration`), over the "
            "policy's 2 s timeout: a per-tool timeout is the fix",
        )

    if f == "metamorphic-key-order" and s == "calc-mcp":
        return (FALSE, "clock", "action `now` returns the current time: differs on any two calls")

    return ("UNCLASSIFIED", "?", "")


def _asks_for_hours(inp: dict) -> bool:
    numbers = [v for v in inp.values() if isinstance(v, (int, float))]
    return any(v >= 3600 for v in numbers)
