#!/bin/sh
# busted_par.sh — runs the busted specs (spec/*_spec.lua) in JOBS parallel busted processes, one
# spec file each, and writes their TAP output to OUT, each file's part after a "# file: NAME"
# line (spec/summary.lua checks that every file reached its own plan).
#   spec/busted_par.sh OUT [JOBS]      JOBS: default $MISH_TEST_JOBS, else the CPU count (at least 2)
# Each file gets its own user registry (MI_AIFKUF), removed after it. The files start longest
# first by their times in the last run (.test_lua.d/times; a file not timed yet goes first), so
# a long file does not start last. Environment: BUSTED (default "lua5.4 /usr/bin/busted"),
# SANRUN (a prefix, e.g. LD_PRELOAD for the sanitizer build).
set -u
out=${1:?usage: spec/busted_par.sh OUT [JOBS]}
jobs=${2:-${MISH_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=2
dir=.test_lua.d
mkdir -p "$dir/out"
rm -f "$dir"/out/*.tap "$dir"/out/*.time
times=$dir/times
# the files, longest first (untimed ones first of all)
for f in spec/*_spec.lua; do
  t=$(awk -v f="$f" '$2 == f { print $1 }' "$times" 2>/dev/null | tail -n 1)
  echo "${t:-999999} $f"
done | sort -k1,1nr -k2 | awk '{ print $2 }' > "$dir/order"

# Runs one spec file: its TAP in out/NAME.tap, its wall milliseconds in out/NAME.time.
export BUSTED="${BUSTED:-lua5.4 /usr/bin/busted}" SANRUN="${SANRUN:-}" DIR="$dir"
xargs -P "$jobs" -n 1 sh -c '
  f=$1; n=$(basename "$f" .lua); reg=$(mktemp -u)
  t0=$(date +%s%N)
  MI_AIFKUF=$reg env $SANRUN $BUSTED -o TAP "$f" > "$DIR/out/$n.tap" 2>&1
  t1=$(date +%s%N)
  rm -f "$reg" "$reg.lock"
  echo "$(( (t1 - t0) / 1000000 )) $f" > "$DIR/out/$n.time"
' sh < "$dir/order"

: > "$out"
for f in $(cat "$dir/order"); do
  n=$(basename "$f" .lua)
  echo "# file: $f" >> "$out"
  cat "$dir/out/$n.tap" >> "$out" 2>/dev/null
done
cat "$dir"/out/*.time > "$times" 2>/dev/null
rm -f "$dir"/out/*.tap "$dir"/out/*.time
