#!/bin/sh
# Record the agent-geocoder example through the gate's real HTTP client against fakellm
# (PyPI), a third-party mock server that speaks chat-completions and Anthropic's Messages
# API, once per API; then replay each cassette with no server and compare the receipts.
#
#   bench/providers/record_fakellm.sh [WORKDIR]
#
# Installs fakellm 0.3.5 into WORKDIR/venv-fakellm (from PyPI), serves it on 127.0.0.1
# only, and uses the gate of this checkout (.venv/bin/toolfuzz-gate, or $TOOLFUZZ_GATE).
# Nothing leaves the machine but the install.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:-$(mktemp -d)}
gate=${TOOLFUZZ_GATE:-$repo/.venv/bin/toolfuzz-gate}
mkdir -p "$work"
if [ ! -x "$work/venv-fakellm/bin/fakellm" ]; then
    python3 -m venv "$work/venv-fakellm"
    "$work/venv-fakellm/bin/pip" install -q fakellm==0.3.5
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$work/venv-fakellm/bin/fakellm" serve --host 127.0.0.1 --port "$port" \
    --config "$here/fakellm.yaml" >"$work/fakellm.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
python3 - "$port" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close()
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("fakellm did not start")
PY
for api in chat-completions anthropic-messages; do
    dir="$work/$api"
    rm -rf "$dir"
    cp -r "$repo/examples/agent-geocoder" "$dir"
    rm -f "$dir/cassette.json"
    python3 - "$dir/toolfuzz.yml" "$port" "$api" <<'PY'
import sys
path, port, api = sys.argv[1:]
text = open(path, encoding="utf-8").read().split("llm:")[0]
text += (
    "llm:\n"
    f"  base_url: http://127.0.0.1:{port}/v1\n"
    "  model: fakellm\n"
    f"  api: {api}\n"
    + ("  seed: null\n  max_completion_tokens: 1024\n" if api == "anthropic-messages" else "")
    + "  cassette: cassette.json\n  mode: record\n"
)
open(path, "w", encoding="utf-8").write(text)
PY
    echo "== $api: record against fakellm on 127.0.0.1:$port"
    "$gate" agent --policy "$dir/toolfuzz.yml" --root "$dir" --receipts "$dir/receipts" \
        --out "$dir/recorded" || echo "(exit $?)"
    sed -i 's/  mode: record/  mode: replay/' "$dir/toolfuzz.yml"
    kill -STOP "$server"  # the replay must not need it
    echo "== $api: replay, the server stopped"
    "$gate" agent --policy "$dir/toolfuzz.yml" --root "$dir" --receipts "$dir/receipts" \
        --out "$dir/replayed" || echo "(exit $?)"
    kill -CONT "$server"
    diff -r "$dir/recorded" "$dir/replayed" && echo "== $api: replay byte-identical"
    echo "cassette: $(wc -c <"$dir/cassette.json") bytes, sha256 $(sha256sum "$dir/cassette.json" | cut -c1-16)"
done
