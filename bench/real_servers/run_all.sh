#!/usr/bin/env bash
# run_all.sh [GATE_CHECKOUT] [RUNS]
#
# Runs `toolfuzz-gate run --policy policies/NAME.yml --runs RUNS` for every server of the kit,
# with the gate from GATE_CHECKOUT (PYTHONPATH=CHECKOUT/src, CHECKOUT/.venv/bin/python -m
# toolfuzz_gate), each server in a fresh sandbox under /tmp, under `nice -n 10` and in a
# network namespace with no interfaces (`unshare --net`, or `unshare -rn` when unprivileged).
#
# Environment: LABEL (default: run-<short sha of the checkout>), POLICIES=recommended (the
# recommended policies, policies/recommended/NAME.yml; default: the default configuration,
# policies/NAME.yml), SERVERS (space-separated subset,
# default every server), PY (default CHECKOUT/.venv/bin/python), FIXED_SANDBOX=1 (sandbox
# /tmp/realservers-sb/NAME, emptied first, so receipts are byte-identical run to run; the sandbox
# path is the only thing that differs otherwise), KEEP_SANDBOX=0 to delete the sandboxes (kept by default, to inspect state),
# STATEFUL=off (each policy with `stateful: {enabled: false}` added: no stateful campaigns, to
# measure what they add against a run without them).
# Writes results/LABEL/NAME/{out/, console.txt, wall.txt, rc.txt, findings.tsv, findings.jsonl,
# sandbox.txt} and results/LABEL/{findings.tsv, walltime.tsv, counts.tsv}.
set -u
KIT="$(cd "$(dirname "$0")" && pwd)"
CHECKOUT="$(cd "${1:-$KIT/../..}" && pwd)"
RUNS="${2:-20}"
PY="${PY:-$CHECKOUT/.venv/bin/python}"
SHA="$(git -C "$CHECKOUT" rev-parse --short HEAD 2>/dev/null || echo nogit)"
LABEL="${LABEL:-run-$SHA}"
SERVERS="${SERVERS:-$("$KIT/servers.py" names | tr '\n' ' ')}"
RES="$KIT/results/$LABEL"
POLICY_DIR="$KIT/policies${POLICIES:+/$POLICIES}"
[ -d "$POLICY_DIR" ] || { echo "run_all.sh: no $POLICY_DIR (run ./servers.py policy)" >&2; exit 2; }
if [ "${STATEFUL:-on}" = off ]; then  # the same policies without their stateful campaigns
  OFF_DIR="$(mktemp -d /tmp/rs-policies-off.XXXXXX)"
  for P in "$POLICY_DIR"/*.yml; do
    { cat "$P"; printf 'stateful: {enabled: false}\n'; } > "$OFF_DIR/$(basename "$P")"
  done
  POLICY_DIR="$OFF_DIR"
fi
export POLICY_DIR
mkdir -p "$RES"

if unshare --net true 2>/dev/null; then NET=(unshare --net)
elif unshare -rn true 2>/dev/null; then NET=(unshare -rn)
else echo "run_all.sh: neither 'unshare --net' nor 'unshare -rn' works here; refusing to run without network isolation" >&2; exit 2
fi

{
  echo "label: $LABEL"
  echo "checkout: $CHECKOUT ($SHA, $(git -C "$CHECKOUT" log -1 --format=%s 2>/dev/null | cut -c1-80))"
  echo "runs: $RUNS"
  echo "policies: $POLICY_DIR"
  echo "stateful: ${STATEFUL:-on}"
  echo "isolation: ${NET[*]}; nice -n 10"
  echo "started: $(date -u +%FT%TZ)"
} > "$RES/run.txt"
for NAME in $SERVERS; do
  D="$RES/$NAME"
  rm -rf "$D"; mkdir -p "$D"
  if [ "${FIXED_SANDBOX:-0}" = 1 ]; then  # same path every run: receipts byte-comparable across runs
    SB="/tmp/realservers-sb/$NAME"; rm -rf "$SB"; mkdir -p "$SB"
  else
    SB="$(mktemp -d "/tmp/rs-$LABEL-$NAME.XXXXXX")"
  fi
  echo "$SB" > "$D/sandbox.txt"
  echo "== $NAME (sandbox $SB)" >&2
  start=$(date +%s.%N)
  (
    eval "$("$KIT/servers.py" prep "$NAME" "$SB")"
    cd "$SB" || exit 2
    exec nice -n 10 "${NET[@]}" env PYTHONPATH="$CHECKOUT/src" "$PY" -m toolfuzz_gate run \
      --policy "$POLICY_DIR/$NAME.yml" --root "$SB" --out "$D/out" --runs "$RUNS"
  ) > "$D/console.txt" 2>&1
  rc=$?
  end=$(date +%s.%N)
  wall=$(python3 -c "print(f'{$end - $start:.1f}')")
  echo "$wall" > "$D/wall.txt"; echo "$rc" > "$D/rc.txt"
  nf=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counts']['counterexamples'])" "$D/out/summary.json" 2>/dev/null || echo '?')
  echo "   $NAME: ${wall}s rc=$rc counterexamples=$nf" >&2
  [ "${KEEP_SANDBOX:-1}" = 1 ] || rm -rf "$SB"
done

echo "finished: $(date -u +%FT%TZ)" >> "$RES/run.txt"
"$KIT/tabulate.sh" "$LABEL"
column -t -s $'\t' "$RES/walltime.tsv" >&2
grep '^ALL' "$RES/counts.tsv" >&2
