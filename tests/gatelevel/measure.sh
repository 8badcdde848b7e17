#!/bin/sh
# Times the gate-level runs (docs/verification.md, "Gate level, 4-state"): the Icarus compile of
# each exported netlist, then every layer the gatelevel tests ran, again with vvp, one at a time:
# simulated cycles, wall and user seconds. Run the tests first (ctest -L gatelevel) so that the
# netlists and the layers' files exist. Usage: tests/gatelevel/measure.sh [BUILD_DIR]
set -eu
out="${1:-build}/tests/gatelevel/out"
tb="$(dirname "$0")/gate_tb.v"
[ -d "$out" ] || { echo "measure.sh: no $out: run ctest --test-dir ${1:-build} -L gatelevel first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-40s %9s %8s %8s\n' "compile (iverilog -g2005)" "" "wall s" "user s"
for d in "$out"/*/; do
  [ -f "$d/gate.vvp" ] || continue
  /usr/bin/time -f '%e %U' -o "$tmp/t" iverilog -g2005 -I "$d" -o "$tmp/x.vvp" "$d/package/netlist/flycol_top.v" "$tb"
  printf '%-40s %9s %8s %8s\n' "$(basename "$d")" "" $(cat "$tmp/t")
done
printf '%-40s %9s %8s %8s\n' "layer (vvp)" "cycles" "wall s" "user s"
for d in "$out"/gatelevel_*/; do
  [ -f "$d/vvp_args.txt" ] || continue
  name=$(basename "$d")
  case "$name" in *_fail_*) continue ;; esac
  (cd "$d" && /usr/bin/time -f '%e %U' -o "$tmp/t" vvp -n $(cat vvp_args.txt) > /dev/null)
  cycles=$(sed -n 's/.*cycles=\([0-9]*\).*/\1/p' "$d/status.txt")
  printf '%-40s %9s %8s %8s\n' "$name" "$cycles" $(cat "$tmp/t")
done
