#!/bin/sh
# Record the agent-geocoder example through the gate's real HTTP client against fakellm
# (PyPI), a third-party mock server that speaks chat-completions and Anthropic's Messages
# API, once per API; then replay each cassette with no server and compare the receipts.
#
#   bench/providers/record_fakellm.sh [WORKDIR]
#   WITH_LITELLM=1 bench/providers/record_fakellm.sh [WORKDIR]
#
# With WITH_LITELLM=1 it also installs litellm[proxy] (about 400 MB) and records through a
# LiteLLM proxy in front of fakellm (`litellm.yaml`): chat-completions to the proxy, which
# speaks the Messages API to fakellm, first with the default `seed: 0`, which the proxy
# refuses for an Anthropic model (the run stops with the hint to set `seed: null`), then
# with `seed: null`; and the Messages API to the proxy, which speaks chat-completions to
# fakellm.
#
# Installs fakellm 0.3.5 into WORKDIR/venv-fakellm (from PyPI), then runs the rest in a
# network namespace of its own (`unshare --net -r`, where the system allows it: only its
# loopback exists), serving fakellm on 127.0.0.1 and using the gate of this checkout
# (.venv/bin/toolfuzz-gate, or $TOOLFUZZ_GATE). Nothing leaves the machine but the install.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:-$(mktemp -d)}
gate=${TOOLFUZZ_GATE:-$repo/.venv/bin/toolfuzz-gate}
if [ -z "${TOOLFUZZ_RECORD_OFFLINE:-}" ]; then
    mkdir -p "$work"
    if [ ! -x "$work/venv-fakellm/bin/fakellm" ]; then
        python3 -m venv "$work/venv-fakellm"
        "$work/venv-fakellm/bin/pip" install -q fakellm==0.3.5
    fi
    if [ -n "${WITH_LITELLM:-}" ] && [ ! -x "$work/venv-litellm/bin/litellm" ]; then
        python3 -m venv "$work/venv-litellm"
        "$work/venv-litellm/bin/pip" install -q 'litellm[proxy]'
    fi
    if unshare --net -r true 2>/dev/null; then
        export TOOLFUZZ_RECORD_OFFLINE=1 TOOLFUZZ_GATE="$gate"
        exec unshare --net -r sh "$0" "$work"
    fi
    echo "(unshare --net is not allowed here: recording on this machine's loopback)"
fi
ip link set lo up 2>/dev/null || true
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$work/venv-fakellm/bin/fakellm" serve --host 127.0.0.1 --port "$port" \
    --config "$here/fakellm.yaml" >"$work/fakellm.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
wait_for() {
    python3 - "$1" <<'PY'
import socket, sys, time
for _ in range(600):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close()
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(f"nothing listens on 127.0.0.1:{sys.argv[1]}")
PY
}
wait_for "$port"
# record LEG BASE_URL API EXTRA_LLM_LINES: the example recorded through BASE_URL, then
# replayed with every server stopped, the receipts compared
record() {
    leg=$1 dir="$work/$1"
    rm -rf "$dir"
    cp -r "$repo/examples/agent-geocoder" "$dir"
    rm -f "$dir/cassette.json"
    python3 - "$dir/toolfuzz.yml" "$2" "$3" "$4" <<'PY'
import sys
path, base_url, api, extra = sys.argv[1:]
text = open(path, encoding="utf-8").read().split("llm:")[0]
extra = extra.replace("\\n", "\n")  # the shell passes the line breaks as \n
text += f"llm:\n  base_url: {base_url}\n  api: {api}\n{extra}"
text += "  cassette: cassette.json\n  mode: record\n"
open(path, "w", encoding="utf-8").write(text)
PY
    echo "== $leg: record against $2"
    code=0
    "$gate" agent --policy "$dir/toolfuzz.yml" --root "$dir" --receipts "$dir/receipts" \
        --out "$dir/recorded" || code=$?
    echo "(exit $code)"
    [ "$code" -le 1 ] || return 0  # the model could not be used: nothing to replay
    sed -i 's/  mode: record/  mode: replay/' "$dir/toolfuzz.yml"
    kill -STOP $servers  # the replay must not need them
    echo "== $leg: replay, the servers stopped"
    "$gate" agent --policy "$dir/toolfuzz.yml" --root "$dir" --receipts "$dir/receipts" \
        --out "$dir/replayed" || echo "(exit $?)"
    kill -CONT $servers
    diff -r "$dir/recorded" "$dir/replayed" && echo "== $leg: replay byte-identical"
    echo "cassette: $(wc -c <"$dir/cassette.json") bytes, sha256 $(sha256sum "$dir/cassette.json" | cut -c1-16)"
}

servers=$server
record chat-completions "http://127.0.0.1:$port/v1" chat-completions "  model: fakellm\n"
record anthropic-messages "http://127.0.0.1:$port/v1" anthropic-messages \
    "  model: fakellm\n  seed: null\n  max_completion_tokens: 1024\n"
if [ -x "$work/venv-litellm/bin/litellm" ]; then
    proxy_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    sed "s/FAKELLM_PORT/$port/" "$here/litellm.yaml" >"$work/litellm.yaml"
    LITELLM_LOCAL_MODEL_COST_MAP=True "$work/venv-litellm/bin/litellm" --config "$work/litellm.yaml" \
        --host 127.0.0.1 --port "$proxy_port" >"$work/litellm.log" 2>&1 &
    proxy=$!
    trap 'kill "$server" "$proxy" 2>/dev/null || true' EXIT
    wait_for "$proxy_port"
    servers="$server $proxy"
    export LITELLM_API_KEY=sk-litellm-master-0123456789
    key="  model: geo-claude\n  api_key_env: LITELLM_API_KEY\n"
    record litellm-seed-0 "http://127.0.0.1:$proxy_port/v1" chat-completions "$key"
    record litellm "http://127.0.0.1:$proxy_port/v1" chat-completions "$key  seed: null\n"
    record litellm-messages "http://127.0.0.1:$proxy_port/v1" anthropic-messages \
        "  model: geo-gpt\n  api_key_env: LITELLM_API_KEY\n"
fi
