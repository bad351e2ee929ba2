"""Where a side of the gate reads the code it runs: one resolution for every process (edge).

A pull request is judged twice: the head in the repository, the base in a temporary
worktree. Everything either side starts — a `python:` worker's imports, a `command:` or
`mcp:` argv, an HTTP handler's `server:`, an `effects_command`, a pydantic model's
schema child — is resolved here against that side's checkout `root`, never against the
gate's current directory (which is the head's, or anywhere at all):

- a relative executable (`./tool`, `bin/tool`) and any relative argument naming an
  existing path under the root (or under the handler's `cwd`) become absolute;
- the root leads PYTHONPATH, so `python server.py` and `python -m pkg.server` import the
  side's own modules;
- on the base side, `mirrors` is the head checkout: absolute paths inside it, in
  PYTHONPATH and in the variables the policy passes through, are read from the base's
  root instead (a CI job's `PYTHONPATH=$PWD/src` must not smuggle the head's code in).

The configured argv stays as written in receipts; only the launched process sees the
absolute forms. A handler run in a workspace (`workspace`: a sandbox, fixtures) has `{sandbox}`
in its argv replaced by the workspace's root, and, when confined, HOME and TMPDIR set inside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolfuzz_gate.edges.handlers.environment import scrubbed_environment

SANDBOX_TOKEN = "{sandbox}"
"""In a handler's argv: the absolute path of its workspace's root (`workspace`)."""


@dataclass(frozen=True)
class WorkTree:
    """A handler's workspace as its processes see it: the root (their working directory,
    `SANDBOX_TOKEN` in argv) and, when confined, the variables pointing scratch into it."""

    root: str
    scratch: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Checkout:
    root: str
    """The directory relative paths and imports are read from (absolute)."""
    mirrors: str | None = None
    """The other side's checkout (absolute): paths inside it are read from `root`."""
    work_tree: WorkTree | None = None
    """The handler's workspace, when it runs in one."""

    @classmethod
    def at(
        cls, root: str | None, mirrors: str | None = None, work_tree: WorkTree | None = None
    ) -> Checkout:
        """The checkout at `root`; None: the gate's current directory (the command line)."""
        return cls(
            os.path.abspath(root if root is not None else os.getcwd()),
            os.path.abspath(mirrors) if mirrors is not None else None,
            work_tree,
        )

    def path(self, value: str) -> str:
        """`value` read in this checkout: an absolute path inside `mirrors` moves to `root`."""
        if self.mirrors is None or not os.path.isabs(value):
            return value
        relative = os.path.relpath(os.path.normpath(value), self.mirrors)
        if relative == os.curdir:
            return self.root
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return value
        return os.path.join(self.root, relative)

    def argv(self, argv: Sequence[str], cwd: str | None = None) -> list[str]:
        """The command to start, relative paths made absolute: looked up in the root, then
        in `cwd`. A bare program name (`python`, `npx`) stays for PATH to find, as a shell
        would; a relative executable that exists nowhere is named under the root."""
        places = [self.root, *([os.path.abspath(cwd)] if cwd else [])]
        resolved = [self.path(argument) for argument in argv]
        if self.work_tree is not None:
            root = self.work_tree.root
            resolved = [argument.replace(SANDBOX_TOKEN, root) for argument in resolved]
        for index, argument in enumerate(resolved):
            if argument.startswith("-") or os.path.isabs(argument) or not argument:
                continue
            if index == 0 and os.sep not in argument:
                continue
            found = [os.path.normpath(os.path.join(place, argument)) for place in places]
            existing = [path for path in found if os.path.lexists(path)]
            if existing:
                resolved[index] = existing[0]
            elif index == 0:
                resolved[index] = found[0]
        return resolved

    def environment(
        self,
        passthrough: Sequence[str] = (),
        *,
        source: Mapping[str, str] | None = None,
        import_root: str | None = None,
    ) -> dict[str, str]:
        """The scrubbed environment with the checkout leading PYTHONPATH (after
        `import_root` when given), relative entries read from the root and the other
        side's paths moved to this one."""
        env = scrubbed_environment(os.environ if source is None else source, passthrough)
        for name in passthrough:
            if name in env and name != "PYTHONPATH":
                env[name] = self._paths(env[name])
        entries = [
            *([os.path.abspath(import_root)] if import_root else []),
            self.root,
            *(self._entry(entry) for entry in env.get("PYTHONPATH", "").split(os.pathsep)),
        ]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(entry for entry in entries if entry))
        if self.work_tree is not None:
            env.update(self.work_tree.scratch)
        # no bytecode written beside what a handler imports: the dependencies lent to the
        # base's worktree are checked unchanged after the run (`edges.dependencies`)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def _entry(self, entry: str) -> str:
        if not entry:
            return entry
        return self.path(entry) if os.path.isabs(entry) else os.path.join(self.root, entry)

    def _paths(self, value: str) -> str:
        """A variable's value with the other side's absolute paths moved: the value itself,
        or each entry of a list of absolute paths (`a:b`)."""
        if self.mirrors is None or not value.startswith(os.sep):
            return value
        return os.pathsep.join(self.path(part) for part in value.split(os.pathsep))
