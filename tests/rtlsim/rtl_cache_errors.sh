#!/usr/bin/env bash
# The error paths of the on-demand RTL build (sim/rtlsim/rtl_on_demand.cpp): a missing Verilator
# is named, and a build that fails (here the C++ compiler is /bin/false) exits 2 with an error
# naming its log, which exists, and leaves no entry and no temporary directory behind.
# Usage: rtl_cache_errors.sh <flycol> <config.yaml> <cache dir>
set -euo pipefail
flycol=$1 config=$2 cache=$3
layer=C=4,H=6,W=7,K=5,k=3,p=1
rm -rf "$cache" && mkdir -p "$cache"
export FLYCOL_RTL_CACHE=$cache
fail() { echo "FAIL: $*"; exit 1; }

rc=0
err=$(FLYCOL_VERILATOR=/nonexistent/verilator_bin "$flycol" run --model rtl --config "$config" --layer "$layer" 2>&1) || rc=$?
echo "$err"
[ $rc -eq 2 ] || fail "missing Verilator: exit $rc, want 2"
grep -q "Verilator ('/nonexistent/verilator_bin') is missing" <<<"$err" || fail "missing Verilator not named"

rc=0
err=$(FLYCOL_RTL_CXX=/bin/false "$flycol" run --model rtl --config "$config" --layer "$layer" 2>&1) || rc=$?
echo "$err"
[ $rc -eq 2 ] || fail "failed build: exit $rc, want 2"
log=$(grep -o "the log is [^ ]*\.failed\.log" <<<"$err" | sed 's/the log is //') || fail "no log named"
[ -s "$log" ] || fail "the log $log is missing or empty"
left=$(find "$cache" -mindepth 1 -maxdepth 1 ! -name '*.lock' ! -name '*.failed.log')
[ -z "$left" ] || fail "a failed build left: $left"
echo "rtl_cache_errors: passed"
