"""Read a policy file: bounded safe YAML with line numbers, then paths under the root (edge).

The YAML is composed once with PyYAML's safe loader; the node graph gives the line of
every key and item (so messages say `policy.yml:12: tools/0/handler: ...`) and is
walked with a budget before anything is constructed: anchors reused more than a few
times, recursive aliases, deep nesting, duplicate keys and non-string keys are refused
(an alias bomb costs nothing to write and everything to expand). Only then does the
safe constructor build the document, which `core.gate.policy` validates.

Relative paths resolve against the repository root: `--root`, else the nearest
directory holding `.git` above the policy file, else the policy's own directory.
A path that leaves the root once symlinks are resolved is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from toolfuzz_gate.core.gate.policy import Policy, ToolPolicy, parse_policy
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.errors import PolicyError

MAX_POLICY_BYTES = 256 * 1024
MAX_ALIASES = 32
"""Reuses of anchored nodes; a real policy needs a handful."""
MAX_NODES = 20_000
"""Nodes after expanding aliases."""
MAX_DEPTH = 32


@dataclass(frozen=True)
class LoadedPolicy:
    policy: Policy
    """With every path resolved (absolute, inside `root`)."""
    root: Path
    file: str
    lines: dict[str, int]
    mirrors: Path | None = None
    """On the base side, the head's root: handlers read its absolute paths from `root`
    (`edges.handlers.checkout`)."""
    base_corpus: tuple[tuple[str, bytes], ...] = ()
    """The base commit's regression cases (`tool/fingerprint.json`, bytes), replayed as the
    base has them whatever the pull request did to its own (`edges.corpus.load_corpus`)."""

    def error_at(self, key: str, message: str, *, near: str, hint: str = "") -> PolicyError:
        """The policy's error at the member `key` (a JSON Pointer), on its line, else on the
        line of `near` (the entry it belongs to), else on the first."""
        line = self.lines.get(key, self.lines.get(near, 1))
        return PolicyError(message, file=self.file, line=line, key=key[1:], hint=hint)


def policy_schema() -> JSONObject:
    """The JSON Schema of the policy that ships in the package."""
    text = resources.files("toolfuzz_gate").joinpath("policy.schema.json").read_text("utf-8")
    schema: JSONObject = json.loads(text)
    return schema


def load_policy(path: Path, root: Path | None = None, mirrors: Path | None = None) -> LoadedPolicy:
    """The policy at `path`, its paths resolved in `root`; `mirrors`: see `LoadedPolicy`."""
    file = str(path)
    document, lines = _read_yaml(path, file)
    policy = parse_policy(document, schema=policy_schema(), lines=lines, file=file)
    base = _root(path, root, file)
    resolved = _Resolver(base, file, lines)
    tools = tuple(resolved.tool(tool) for tool in policy.tools)
    corpus = policy.corpus and resolved.path("/corpus", policy.corpus, None)
    llm = policy.llm
    if llm is not None and llm.cassette is not None:
        llm = replace(llm, cassette=resolved.path("/llm/cassette", llm.cassette, None))
    resolved_policy = replace(policy, tools=tools, corpus=corpus, llm=llm)
    return LoadedPolicy(resolved_policy, base, file, lines, mirrors)


def _whole(file: str, message: str, hint: str = "") -> PolicyError:
    return PolicyError(message, file=file, line=1, key="(document)", hint=hint)


def policy_rules(raw: bytes, file: str) -> Policy:
    """The policy a file's bytes describe, paths left as written (for its rules only: the
    base commit's policy, read from git, judges the head; `core.gate.policy_trust`)."""
    document, lines = _parse_yaml(raw, file)
    return parse_policy(document, schema=policy_schema(), lines=lines, file=file)


def _read_yaml(path: Path, file: str) -> tuple[Any, dict[str, int]]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_POLICY_BYTES + 1)
    except OSError as error:
        raise _whole(file, f"cannot read the policy: {error.strerror}") from None
    return _parse_yaml(raw, file)


def _parse_yaml(raw: bytes, file: str) -> tuple[Any, dict[str, int]]:
    if len(raw) > MAX_POLICY_BYTES:
        raise _whole(file, f"the policy is larger than {MAX_POLICY_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise PolicyError("not UTF-8", file=file, line=line, key="(document)") from None
    try:
        loader = _Loader(text)  # its reader refuses non-printable characters here
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + 1
        raise PolicyError(
            f"not valid YAML: character #x{error.character:04x} is not allowed in YAML"
            if isinstance(error.character, int)
            else "not valid YAML: a character YAML does not allow",
            file=file,
            line=line,
            key="(document)",
        ) from None
    try:
        node = loader.get_single_node()
        if node is None:
            raise _whole(file, "the policy is empty", hint="start with `version: 1`")
        lines: dict[str, int] = {}
        _Walk(file, lines, loader.alias_lines).visit(node, "", node.start_mark.line + 1, 0)
        document = loader.construct_document(node)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = error.problem or error.context or "malformed"
        raise PolicyError(
            f"not valid YAML: {problem}", file=file, line=line, key="(document)"
        ) from None
    except yaml.YAMLError as error:
        raise _whole(file, f"not valid YAML: {error}") from None
    finally:
        loader.dispose()
    return document, lines


class _Loader(yaml.SafeLoader):
    """The safe loader, noting the line of each alias as it composes (in document order:
    a composed alias is its anchor's node, which starts at the anchor)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.alias_lines: list[int] = []

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self.alias_lines.append(self.peek_event().start_mark.line + 1)  # type: ignore[no-untyped-call]
        return super().compose_node(parent, index)


class _Walk:
    """One bounded pass over the composed nodes: records lines, refuses bombs.

    The walk meets reused nodes in the order their aliases appear, so the n-th reuse
    is the n-th alias and messages can name its line."""

    def __init__(self, file: str, lines: dict[str, int], alias_lines: list[int]) -> None:
        self.file = file
        self.lines = lines
        self.alias_lines = alias_lines
        self.seen: set[int] = set()
        self.reuses = 0
        self.nodes = 0
        self.path: set[int] = set()

    def refuse(self, pointer: str, line: int, message: str) -> PolicyError:
        key = "/".join(jp.split(pointer)) or "(document)"
        return PolicyError(message, file=self.file, line=line, key=key)

    def visit(
        self, node: yaml.Node, pointer: str, line: int, depth: int, reused: bool = False
    ) -> None:
        """`reused`: inside an alias already counted (its nodes count toward the size)."""
        identity = id(node)
        if identity in self.seen and not reused:
            reused = True
            if self.reuses < len(self.alias_lines):
                line = self.alias_lines[self.reuses]
            self.reuses += 1
        self.lines.setdefault(pointer, line)
        if identity in self.path:
            raise self.refuse(pointer, line, "a recursive alias (an anchor used inside itself)")
        if self.reuses > MAX_ALIASES:
            raise self.refuse(pointer, line, f"more than {MAX_ALIASES} aliases")
        self.seen.add(identity)
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.refuse(pointer, line, f"more than {MAX_NODES} values once aliases expand")
        if depth > MAX_DEPTH:
            raise self.refuse(pointer, line, f"nested deeper than {MAX_DEPTH} levels")
        self.path.add(identity)
        if isinstance(node, yaml.MappingNode):
            self._mapping(node, pointer, depth, reused)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                # an alias's node starts at its anchor: name the line that uses it
                shared = reused or id(item) in self.seen
                item_line = line if shared else item.start_mark.line + 1
                self.visit(item, jp.join(pointer, index), item_line, depth + 1, reused)
        self.path.discard(identity)

    def _mapping(self, node: yaml.MappingNode, pointer: str, depth: int, reused: bool) -> None:
        names: set[str] = set()
        for key, value in node.value:
            line = key.start_mark.line + 1
            if key.tag == "tag:yaml.org,2002:merge":
                self.visit(value, pointer, line, depth + 1, reused)
                continue
            if not isinstance(key, yaml.ScalarNode) or key.tag != "tag:yaml.org,2002:str":
                raise self.refuse(pointer, line, "keys must be strings")
            if key.value in names:
                raise self.refuse(jp.join(pointer, key.value), line, "duplicate key")
            names.add(key.value)
            self.visit(value, jp.join(pointer, key.value), line, depth + 1, reused)


def _root(path: Path, given: Path | None, file: str) -> Path:
    if given is not None:
        root = given.resolve()
        if not root.is_dir():
            raise _whole(file, f"the root {given} is not a directory")
        return root
    directory = path.resolve().parent
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return directory


class _Resolver:
    """Resolves a policy's paths against the root and checks what they name."""

    def __init__(self, root: Path, file: str, lines: dict[str, int]) -> None:
        self.root = root
        self.file = file
        self.lines = lines

    def path(self, pointer: str, value: str, must_be: str | None) -> str:
        key = "/".join(jp.split(pointer))
        line = self.lines.get(pointer, 1)
        resolved = (self.root / value).resolve()
        if not resolved.is_relative_to(self.root):
            raise PolicyError(
                f"{value!r} escapes the repository root {self.root}",
                file=self.file,
                line=line,
                key=key,
                hint="policy paths are relative to the root and stay inside it (see --root)",
            )
        checks = {"file": Path.is_file, "directory": Path.is_dir, "path": Path.exists}
        if must_be is not None and not checks[must_be](resolved):
            raise PolicyError(
                f"no such {must_be}: {value!r} (under {self.root})",
                file=self.file,
                line=line,
                key=key,
            )
        return str(resolved)

    def tool(self, tool: ToolPolicy) -> ToolPolicy:
        def at(*tokens: str) -> str:
            return jp.join(tool.pointer, *tokens)

        schema = tool.schema and self.path(at("schema"), tool.schema, "file")
        tools = tool.tools and self.path(at("tools"), tool.tools, "file")
        handler = tool.handler
        cwd = handler.cwd
        effects = handler.effects_directory
        handler = replace(
            handler,
            cwd=str(self.root)
            if cwd is None
            else self.path(at("handler", "cwd"), cwd, "directory"),
            effects_directory=effects
            and self.path(at("handler", "effects_directory"), effects, "directory"),
        )
        fixtures = tuple(
            (pointer, tuple(self.path(at("fixtures", pointer), path, "path") for path in paths))
            for pointer, paths in tool.fixtures
        )
        if fixtures:
            laid = dict.fromkeys(path for _, paths in fixtures for path in paths)
            handler = replace(handler, fixtures=tuple(laid), cwd=None)
        elif handler.sandbox:
            handler = replace(handler, cwd=None)
        return replace(tool, handler=handler, schema=schema, tools=tools, fixtures=fixtures)
