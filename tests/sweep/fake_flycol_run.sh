#!/bin/sh
# Stand-in for `flycol run` in the sweep runner tests: answers like the real command (a JSON report,
# exit 0, or 1 when the check fails) and misbehaves on request, chosen by the layer's K:
# 13 crashes (SIGSEGV), 14 hangs, 15 fails its golden check, 16 exits 2 with an error. cycles = 1000 x C.
report=""
layer=""
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report="$2"; shift ;;
    --layer) layer="$2"; shift ;;
  esac
  shift
done
c=$(echo "$layer" | sed -n 's/.*,C=\([0-9]*\),.*/\1/p')
k=$(echo "$layer" | sed -n 's/.*,K=\([0-9]*\),.*/\1/p')
echo "fake flycol run: layer $layer"
case "$k" in
  13) echo "about to crash"; kill -SEGV $$ ;;
  14) echo "hanging"; sleep 60; exit 0 ;;
  16) echo "flycol: error: --layer: something is wrong" >&2; exit 2 ;;
esac
exact=true
mismatches=0
code=0
if [ "$k" = 15 ]; then exact=false; mismatches=3; code=1; fi
cat > "$report" <<JSON
{
  "model": "sc",
  "cycles": $((c * 1000)),
  "macs": $((c * 4000)),
  "mac_cycles": $((c * 500)),
  "utilization": 0.25,
  "stalls": {"feeder": 7, "weights": 0, "context_switch": 1, "pipeline": 2, "dram": 30, "tail": 4},
  "sram": {"ifmap": {"reads": 100, "writes": 10}, "weights": {"reads": 200, "writes": 20}, "psums": {"reads": 50, "writes": 60}},
  "dram_bytes": {"ifmap": 1000, "weights": 2000, "psums_in": 0, "ofmap": 500, "total": 3500},
  "check": {"reference": "golden", "bit_exact": $exact, "mismatches": $mismatches, "first_mismatch": "n=0,k=1,y=0,x=2", "got": "0x3c00", "want": "0x3c01"}
}
JSON
exit $code
