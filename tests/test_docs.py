"""The documentation keeps step with the code: the tables in docs/ are the registries they
describe (keywords, formats, invariants, mutation families, policy keys), every relative link
in README.md, CONTRIBUTING.md and docs/ resolves (file and heading), and the README's
quickstart policies parse and pass against the fixtures they name."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli_helpers import free_port, invoke
from toolfuzz_gate.core.campaign.invariants import INVARIANTS
from toolfuzz_gate.core.gate.policy import parse_policy
from toolfuzz_gate.core.schema.formats import FORMATS
from toolfuzz_gate.core.schema.keywords import FAMILIES, KEYWORDS
from toolfuzz_gate.edges.policy_file import policy_schema
from toolfuzz_gate.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]
DRAFT_ORDER = ("2020-12", "draft-07")
FENCE = re.compile(r"^(`{3,}|~{3,})")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
PACKAGE = ROOT / "src" / "toolfuzz_gate"
CODE_PATH = re.compile(
    r"`((?:src/toolfuzz_gate|tests|bench|\.ci|\.github|docker|core|edges|cli|app)/[\w./-]*)`"
)
"""A path in code quotes: from the repository root, or from the package for core/, edges/, ..."""
QUICKSTART = ("quickstart-mcp", "quickstart-python", "quickstart-http")


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _marked(text: str, marker: str) -> str:
    match = re.search(rf"<!-- {marker}:begin -->\n(.*?)<!-- {marker}:end -->", text, re.S)
    assert match, f"no {marker} block"
    return match[1]


def _rows(table: str) -> list[list[str]]:
    """The body rows of a Markdown table, each cell stripped of its code backticks."""
    lines = [line for line in table.splitlines() if line.startswith("|")]
    assert len(lines) > 2 and set(lines[1]) <= set("|-: ")
    return [[cell.strip().strip("`") for cell in line.strip("|").split("|")] for line in lines[2:]]


def _drafts(cell: str) -> frozenset[str]:
    drafts = frozenset(part.strip() for part in cell.split(","))
    assert drafts <= set(DRAFT_ORDER), cell
    return drafts


# --- the schema-subset page ---------------------------------------------------------------------

SUBSET = DOCS / "schema-subset.md"


def test_the_keyword_table_lists_exactly_the_supported_keywords() -> None:
    rows = _rows(_marked(_text(SUBSET), "keywords"))
    listed = [row[0] for row in rows]
    assert len(listed) == len(set(listed)), "a keyword is listed twice"
    assert set(listed) - set(KEYWORDS) == set(), "listed but not in KEYWORDS"
    assert set(KEYWORDS) - set(listed) == set(), "in KEYWORDS but not listed"
    for name, drafts, family in rows:
        assert _drafts(drafts) == KEYWORDS[name].drafts, name
        expected = KEYWORDS[name].family
        if expected is None:
            assert family.startswith("("), f"{name} has no family of its own, not {family}"
        else:
            assert family == expected, name


def test_the_exit_code_table_is_the_exit_code_enum() -> None:
    page = (DOCS / "commands.md").read_text("utf-8")
    section = page.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    listed = {int(code) for code in re.findall(r"^\| (\d+) \|", section, re.MULTILINE)}
    assert listed == {int(code) for code in ExitCode}


def test_the_format_table_lists_exactly_the_supported_formats() -> None:
    rows = _rows(_marked(_text(SUBSET), "formats"))
    listed = [row[0] for row in rows]
    assert sorted(listed) == sorted(FORMATS) and len(listed) == len(set(listed))
    for name, drafts, _standard in rows:
        assert _drafts(drafts) == FORMATS[name].drafts, name


# --- what it checks ----------------------------------------------------------------------------

CHECKS = DOCS / "what-it-checks.md"


def test_the_invariant_table_is_the_invariant_registry() -> None:
    rows = _rows(_marked(_text(CHECKS), "invariants"))
    listed = [(invariant, failure) for _what, invariant, failure in rows]
    assert listed == [(inv.name, failure.value) for inv in INVARIANTS for failure in inv.failures]


def test_the_family_table_lists_exactly_the_mutation_families() -> None:
    listed = [row[0] for row in _rows(_marked(_text(CHECKS), "families"))]
    assert sorted(listed) == sorted(FAMILIES) and len(listed) == len(set(listed))


# --- the policy page ----------------------------------------------------------------------------

POLICY_SCHEMA = ROOT / "src" / "toolfuzz_gate" / "policy.schema.json"


def test_the_policy_key_table_is_the_shipped_schema() -> None:
    schema = json.loads(POLICY_SCHEMA.read_text(encoding="utf-8"))
    tool = schema["$defs"]["tool"]["properties"]
    wanted = {(name, "top") for name in schema["properties"]}
    wanted |= {(name, "gate") for name in schema["properties"]["gate"]["properties"]}
    wanted |= {(name, "tool") for name in tool}
    wanted |= {(name, "handler") for name in schema["$defs"]["handler"]["properties"]}
    section = _text(DOCS / "policy.md").split("\n## Every key\n", 1)[1].split("\n## ", 1)[0]
    rows = _rows(section)
    assert {(key, where.split(",")[0].strip("`")) for key, where, _meaning in rows} == wanted
    in_defaults = {key for key, where, _meaning in rows if "defaults" in where}
    assert in_defaults == set(schema["properties"]["defaults"]["properties"])


# --- the action page ---------------------------------------------------------------------------


def test_the_action_page_lists_every_input_and_output() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    text = _text(DOCS / "action.md")
    section = text.split("\n## Inputs and outputs\n", 1)[1].split("\n## ", 1)[0]
    table, _, after = section.partition("\n\nOutputs: ")
    inputs = {name for row in _rows(table) for name in re.findall(r"[a-z][a-z-]+", row[0])}
    assert inputs == set(action["inputs"])
    outputs = set(re.findall(r"`([a-z][a-z-]+)`", after.split("\n\n", 1)[0]))
    assert set(action["outputs"]) <= outputs
    assert outputs - set(action["outputs"]) <= {"passed", "failed"}


# --- links --------------------------------------------------------------------------------------


def _outside_fences(text: str) -> Iterator[str]:
    fence = ""
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence:
            if opened and opened[1][0] == fence[0] and len(opened[1]) >= len(fence):
                if not line[len(opened[1]) :].strip():
                    fence = ""
            continue
        if opened:
            fence = opened[1]
            continue
        yield line


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    """Every heading's anchor; a repeated heading gets `-1`, `-2`, ... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in _outside_fences(_text(page)):
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            slug = _slug(match[1])
            found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
            seen[slug] = seen.get(slug, 0) + 1
    return found


def _links(page: Path) -> Iterator[str]:
    for line in _outside_fences(_text(page)):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # not https:, mailto:, ...
                yield target


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in _anchors(destination):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_path_the_docs_name_exists(page: Path) -> None:
    missing = []
    for path in CODE_PATH.findall(_text(page)):
        top = path.split("/")[0]
        if top == "app" or path.startswith("src/toolfuzz_gate/app/"):
            if not (PACKAGE / "app").exists():
                continue  # the application layer issue 13 adds; checked once it exists
        base = PACKAGE if top in ("core", "edges", "cli", "app") else ROOT
        if not (base / path).exists():
            missing.append(path)
    assert not missing, missing


def test_the_link_checker_sees_what_it_must() -> None:
    assert _slug("Forks: the `workflow_run` report") == "forks-the-workflow_run-report"
    assert _slug("Runtime failures, and how to fix the schema") == (
        "runtime-failures-and-how-to-fix-the-schema"
    )
    assert "the-pr-comment" in _anchors(DOCS / "reports-and-receipts.md")
    assert "toolfuzz-gate--failed" not in _anchors(DOCS / "reports-and-receipts.md")  # fenced
    readme = list(_links(ROOT / "README.md"))
    assert "docs/architecture.md" in readme and "CONTRIBUTING.md" in readme


# --- the README's quickstart --------------------------------------------------------------------


def _quickstart(marker: str) -> dict[str, Any]:
    block = _marked(_text(ROOT / "README.md"), marker)
    loaded = yaml.safe_load(block.split("```yaml\n", 1)[1].split("```", 1)[0])
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.parametrize("marker", QUICKSTART)
def test_the_quickstart_policies_parse(marker: str) -> None:
    policy = parse_policy(_quickstart(marker), schema=policy_schema(), lines={}, file=marker)
    assert [tool.name for tool in policy.tools] == ["list_items"]
    assert policy.tools[0].handler.kind == marker.rpartition("-")[2]


@pytest.mark.slow
@pytest.mark.parametrize("marker", QUICKSTART)
def test_the_quickstart_policies_pass_on_the_fixtures(marker: str, tmp_path: Path) -> None:
    policy = tmp_path / "toolfuzz.yml"
    text = yaml.safe_dump(_quickstart(marker))
    policy.write_text(text.replace("8765", str(free_port())), encoding="utf-8")
    out = tmp_path / "out"
    status, said, err = invoke(
        "run", "--policy", str(policy), "--root", str(ROOT), "--out", str(out), "--runs", "24"
    )
    assert status == 0, said + err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["verdict"] == "passed"
    assert summary["counts"]["tools"] == 1 and summary["counts"]["refused"] == 0
