#!/usr/bin/env bash
# Two `flycol run --model rtl` of a configuration without built-in RTL start at once on an empty
# cache directory: both must succeed, exactly one may Verilate (the other waits on the entry's
# lock and reuses it), no temporary or failed entry may remain, and a third run must reuse the
# entry without building. Usage: rtl_cache_race.sh <flycol> <config.yaml> <cache dir>
set -euo pipefail
flycol=$1 config=$2 cache=$3
layer=C=4,H=6,W=7,K=5,k=3,p=1
rm -rf "$cache"
mkdir -p "$cache"
log=$cache/../$(basename "$cache")-race-logs
rm -rf "$log" && mkdir -p "$log"
export FLYCOL_RTL_CACHE=$cache
start=$(date +%s)
"$flycol" run --model rtl --config "$config" --layer "$layer" --check >"$log/a.out" 2>"$log/a.err" &
pa=$!
"$flycol" run --model rtl --config "$config" --layer "$layer" --check >"$log/b.out" 2>"$log/b.err" &
pb=$!
ra=0 rb=0
wait $pa || ra=$?
wait $pb || rb=$?
first=$(($(date +%s) - start))
fail() { echo "FAIL: $*"; for f in "$log"/*; do echo "== $f"; cat "$f"; done; exit 1; }
[ $ra -eq 0 ] || fail "first run exited $ra"
[ $rb -eq 0 ] || fail "second run exited $rb"
builds=$(cat "$log/a.err" "$log/b.err" | grep -c "Verilating the RTL of" || true)
[ "$builds" -eq 1 ] || fail "$builds runs Verilated the model (want exactly 1)"
waits=$(cat "$log/a.err" "$log/b.err" | grep -c "waiting for another flycol" || true)
[ "$waits" -eq 1 ] || fail "$waits runs waited on the lock (want 1: both started together)"
entries=$(find "$cache" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$entries" -eq 1 ] || fail "$entries entries in $cache (want 1)"
if find "$cache" -maxdepth 1 \( -name '*.tmp' -o -name '*.failed.log' \) | grep -q .; then fail "a half entry remains"; fi
[ -f "$(find "$cache" -mindepth 1 -maxdepth 1 -type d)/model.so" ] || fail "the entry has no model.so"
start=$(date +%s)
"$flycol" run --model rtl --config "$config" --layer "$layer" --check >"$log/c.out" 2>"$log/c.err" || fail "third run failed"
again=$(($(date +%s) - start))
if grep -q "Verilating the RTL of" "$log/c.err"; then fail "the third run built again instead of reusing"; fi
echo "rtl_cache_race: passed; two runs at once with one build: ${first} s; a later run reusing the cache: ${again} s"
