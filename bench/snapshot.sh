#!/usr/bin/env bash
# bench/snapshot.sh CHECKOUT OUT: every file a run writes, from the gate in CHECKOUT, into OUT
# (an absolute path), for checking that a change meant to change nothing changed nothing:
#
#   bench/snapshot.sh /path/to/before /tmp/before && bench/snapshot.sh "$PWD" /tmp/after
#   diff -r /tmp/before /tmp/after      # nothing, or only what the change meant to change
#
# It runs, in a throwaway git repository with fixed commit dates: the built-in contract; a
# five-entry policy over the fixtures (python, a command handler with two seeds, two MCP
# servers); the same policy with --baseline HEAD~1; two shards and merge. Timings are masked.
# PY (default: this checkout's .venv) must be the same interpreter for both runs, since the
# handlers' argv (and so the receipts) name it. Runs are serialised by a lock.
set -euo pipefail
exec 9>/tmp/toolfuzz-snapshot.lock; flock 9
PY="${PY:-$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python}"
src="$1"; final="$2"; out=/tmp/toolfuzz-snapshot-out
rm -rf "$out" "$final"; mkdir -p "$out"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
repo=/tmp/toolfuzz-snapshot-repo/repo; rm -rf /tmp/toolfuzz-snapshot-repo; mkdir -p "$repo"
cp -r "$src/tests/fixtures/poster_faults" "$repo/"
mkdir -p "$repo/stdio_tool" "$repo/mcp_tool"
cp "$src/tests/fixtures/stdio_tool/poster_stdio.py" "$repo/stdio_tool/"
cp "$src/tests/fixtures/mcp_tool/mixed_mcp.py" "$src/tests/fixtures/mcp_tool/poster_mcp.py" "$repo/mcp_tool/"
rm -rf "$repo"/*/__pycache__
cat > "$repo/policy.yml" <<'YML'
version: 1
defaults:
  seeds: [41]
  runs: 40
gate:
  fail_on: [new-counterexample]
tools:
  - name: renderPoster
    schema: poster_faults/poster_schema.json
    handler:
      python: "correct:render_poster"
      rejects: ["toolfuzz_gate.contract.poster:ToolError"]
      effects: "correct:snapshot"
      cwd: poster_faults
    expected_rejections: [policy-pixel-budget, policy-duplicate-semantic-intent]
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
  - name: stdio_poster
    schema: poster_faults/poster_schema.json
    seeds: [41, 7]
    handler:
      command: [PYEXE, stdio_tool/poster_stdio.py, --fault, FAULT]
  - name: mcp_mixed
    handler:
      mcp: [PYEXE, mcp_tool/mixed_mcp.py]
      tool: count
  - name: mcp_poster
    handler:
      mcp: [PYEXE, mcp_tool/poster_mcp.py, --fault, FAULT]
      tool: render_poster
YML
sed -i "s#PYEXE#$PY#g" "$repo/policy.yml"
cd "$repo"
sed -i 's/FAULT/crash/g' policy.yml
git init -q . && git add -A && git -c user.name=s -c user.email=s@x commit -qm base
sed -i 's/crash/lax/g' policy.yml
git -c user.name=s -c user.email=s@x commit -qam head
export PYTHONPATH="$src/src"
"$PY" -m toolfuzz_gate run --out "$out/builtin" > "$out/builtin.stdout" 2>&1 || echo "builtin rc=$?" >> "$out/rc"
"$PY" -m toolfuzz_gate run --policy policy.yml --out "$out/policy" > "$out/policy.stdout" 2>&1 || echo "policy rc=$?" >> "$out/rc"
"$PY" -m toolfuzz_gate run --policy policy.yml --baseline HEAD~1 --out "$out/baseline" > "$out/baseline.stdout" 2>&1 || echo "baseline rc=$?" >> "$out/rc"
sed -i "s#$repo#REPO#g; s#/tmp/[A-Za-z0-9._/-]*#TMP#g" "$out"/*.stdout || true
"$PY" -m toolfuzz_gate run --policy policy.yml --shard 1/2 --out "$out/s1" > "$out/s1.stdout" 2>&1 || echo "s1 rc=$?" >> "$out/rc"
"$PY" -m toolfuzz_gate run --policy policy.yml --shard 2/2 --out "$out/s2" > "$out/s2.stdout" 2>&1 || echo "s2 rc=$?" >> "$out/rc"
"$PY" -m toolfuzz_gate merge "$out/s1" "$out/s2" --policy policy.yml --out "$out/merged" > "$out/merge.stdout" 2>&1 || echo "merge rc=$?" >> "$out/rc"
sed -i "s#$repo#REPO#g; s#/tmp/[A-Za-z0-9._/-]*#TMP#g" "$out"/*.stdout || true
sed -i -E "s#[0-9]+\.[0-9]+ s\b#N s#g" "$out"/*.stdout
# head and base run side by side: their progress lines interleave by timing, so that console
# is compared as sorted lines
sort -o "$out/baseline.stdout" "$out/baseline.stdout"
mv "$out" "$final"
