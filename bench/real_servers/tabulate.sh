#!/usr/bin/env bash
# tabulate.sh LABEL: (re)build results/LABEL/{findings.tsv,walltime.tsv,counts.tsv} and each
# server's findings.tsv / findings.jsonl from the gate's out dirs (run_all.sh calls it).
set -u
KIT="$(cd "$(dirname "$0")" && pwd)"
RES="$KIT/results/$1"
printf 'server\twall_s\trc\ttools\tfindings\trefused\n' > "$RES/walltime.tsv"
printf 'server\ttool\tfailure\tpath\tflaky\tcause\tsaid\tinput\n' > "$RES/findings.tsv"
for NAME in $("$KIT/servers.py" names); do
  D="$RES/$NAME"
  [ -f "$D/wall.txt" ] || continue
  "$KIT/findings.py" "$NAME" "$D/out" "$(cat "$D/sandbox.txt")" > "$D/findings.tsv" 2>"$D/findings.err"
  cat "$D/findings.tsv" >> "$RES/findings.tsv"
  ntools=$(grep -c '^  - name:' "${POLICY_DIR:-$KIT/policies}/$NAME.yml")
  nf=$(awk -F'\t' '$3!="REFUSED"' "$D/findings.tsv" | wc -l)
  nr=$(awk -F'\t' '$3=="REFUSED"' "$D/findings.tsv" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$NAME" "$(cat "$D/wall.txt")" "$(cat "$D/rc.txt")" "$ntools" "$nf" "$nr" >> "$RES/walltime.tsv"
done
awk -F'\t' 'NR>1{c[$3]++; s[$1"\t"$3]++} END{for(k in c) printf "ALL\t%s\t%d\n", k, c[k]; for(k in s) printf "%s\t%d\n", k, s[k]}' \
  "$RES/findings.tsv" | sort > "$RES/counts.tsv"
