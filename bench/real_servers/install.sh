#!/usr/bin/env bash
# install.sh: install the kit's servers (npm and PyPI only), pinned to the versions measured.
# Idempotent; run from anywhere. It writes policies/ from each server's live tools/list.
set -eu
KIT="$(cd "$(dirname "$0")" && pwd)"
cd "$KIT"
mkdir -p node policies results
nice -n 10 npm install --no-audit --no-fund --prefix "$KIT/node" \
  @modelcontextprotocol/server-everything@2026.8.31 \
  @modelcontextprotocol/server-memory@2026.8.31 \
  @modelcontextprotocol/server-filesystem@2026.8.31 \
  @modelcontextprotocol/server-sequential-thinking@2026.8.31 \
  @coo-quack/calc-mcp@2.1.1 \
  @itseasy21/mcp-knowledge-graph@1.0.7
venv() {  # venv NAME PIP-ARGS...
  local n=$1; shift
  [ -x "venv-$n/bin/python" ] || python3 -m venv "venv-$n"
  nice -n 10 "venv-$n/bin/pip" install -q "$@"
}
venv time mcp-server-time==2026.10.19
venv git mcp-server-git==2026.10.19
# sqlite and todo were written for the 1.x SDK: on mcp 2.x they die at start
# ("'Server' object has no attribute 'list_resources'" / "... 'list_tools'").
venv sqlite mcp-server-sqlite==2025.4.25 'mcp<2'
venv calculator mcp-server-calculator==0.2.1
venv todo mcp-todo==0.0.4 'mcp<2'
for n in $("$KIT/servers.py" names); do  # policies/ holds this machine's absolute paths
  unshare --net "$KIT/servers.py" policy "$n" >/dev/null 2>&1 || "$KIT/servers.py" policy "$n"
done
for n in $("$KIT/servers.py" names); do
  printf '%-20s ' "$n"
  unshare --net "$KIT/replay.py" --server "$n" --names 2>/dev/null | wc -l | tr -d "\n" || true
  echo " tools"
done
