#!/bin/sh
# run.sh — builds and runs the fuzz harnesses of spec/fuzz (clang + libFuzzer).
#   run.sh check      each harness over its seed corpus and regression inputs once (make test)
#   run.sh fuzz [N]   each harness fuzzed for N seconds (make fuzz; default 60) from its seeds
#   run.sh crashes    each input of crashes/<harness>/ once: "open" if it still fails, "fixed" if not
# Prints "ok"/"not ok" lines and "fuzz: P passed, F failed"; where clang is missing, a "# skip fuzz"
# line per harness and "fuzz: 0 passed, 0 failed, K skipped".
set -u
mode=${1:-check}
secs=${2:-60}
cc=${FUZZ_CC:-clang}
make=${MAKE:-make}
dir=spec/fuzz
build=$dir/build
harnesses=${FUZZ_HARNESSES:-"aif proc registry workload lua_workload select http http_conn export record attach"}
pass=0 fail=0 n=0
# UBSan reports with a stack; the sanitizers stop at the first error (a crash libFuzzer keeps)
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Prints a skip line for each harness (each is a check not run) and the count.
skip_all() {  # skip_all <reason>
  k=0
  for h in $harnesses; do echo "# skip fuzz $h: $1"; k=$((k + 1)); done
  echo "fuzz: 0 passed, 0 failed, $k skipped"
}

if ! command -v "$cc" >/dev/null 2>&1; then
  skip_all "clang not installed (Debian: apt-get install clang libclang-rt-dev)"
  exit 0
fi
mkdir -p "$build"
probe=$build/probe
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$probe.c"
if [ ! -x "$probe" ] && ! "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >/dev/null 2>&1; then
  skip_all "$cc cannot link libFuzzer (Debian: apt-get install libclang-rt-dev)"
  exit 0
fi

# Sets cpu to the CPU seconds (user + system) of this shell's finished children so far (the times
# builtin, run in this shell: a command substitution would be a subshell with no children).
cpu_children() {
  times > "$build/times"
  cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } printf "%.2f", t }' "$build/times")
}

# Prints a TAP line and counts it.
result() {  # result <0|1> <text>
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then pass=$((pass + 1)); echo "ok $n - $2"; else fail=$((fail + 1)); echo "not ok $n - $2"; fi
}

if ! $make --no-print-directory fuzz-harnesses FUZZ_CC="$cc" > "$build/build.log" 2>&1; then
  result 1 "fuzz harnesses build (see $build/build.log)"
  tail -n 30 "$build/build.log" | sed 's/^/#   /'
  echo "fuzz: $pass passed, $fail failed"
  exit 1
fi

for h in $harnesses; do
  bin=$build/fuzz_$h
  log=$build/$h.log
  if [ "$mode" = crashes ]; then
    for f in $(find "$dir/crashes/$h" -type f ! -name '.*' 2>/dev/null | sort); do
      if "$bin" -timeout=10 "$f" > "$log" 2>&1; then echo "fixed $f"
      else echo "open  $f: $(grep -a -v '^Running' "$log" | grep -a -m1 -E 'INVARIANT|ERROR:|runtime error|timeout' | sed 's/^[* ]*//' | cut -c1-110)"; fi
    done
    continue
  fi
  if [ "$mode" = fuzz ]; then
    # a scratch corpus in build/ grows; the checked-in seeds are only read. Regression inputs are
    # checked by make test, not fuzzed: some run long on purpose (aif's 400,000 deaths take 1.1 s)
    # and their mutations held aif to 37 inputs a second.
    mkdir -p "$build/corpus/$h" "$dir/crashes/$h"
    echo "# fuzz $h for $secs s (crashes go to $dir/crashes/$h/)"
    dict=""
    [ -f "$dir/$h.dict" ] && dict="-dict=$dir/$h.dict"
    cpu_children; cpu0=$cpu
    "$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 -print_final_stats=1 $dict \
      -artifact_prefix="$dir/crashes/$h/" "$build/corpus/$h" "$dir/corpus/$h" > "$log" 2>&1
    rc=$?
    cpu_children; cpu=$(awk -v a="$cpu0" -v b="$cpu" 'BEGIN { printf "%.1f", b - a }')
    # libFuzzer's final stats: executions over the time it ran (its own average rounds a short run
    # down), and over the CPU time it had (the machine is shared: the wall rate says how busy it was)
    runs=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    took=$(grep -a -o 'Done [0-9]* runs in [0-9]* second' "$log" | awk '{print $5}')
    rate=$(grep -a 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
    [ -n "$runs" ] && [ -n "$took" ] && [ "$took" -gt 0 ] && rate=$((runs / took))
    per_cpu=$(awk -v r="${runs:-0}" -v c="$cpu" 'BEGIN { if (c > 0 && r > 0) printf "%d", r / c; else printf "?" }')
    result $rc "fuzz $h: ${secs} s, ${runs:-?} executions, ${rate:-?} executions/s (${per_cpu} per CPU second, ${cpu} CPU s)"
  else
    files=$(find "$dir/corpus/$h" "$dir/regress/$h" -type f ! -name '.*' 2>/dev/null | sort)
    count=$(echo "$files" | grep -c . || true)
    # shellcheck disable=SC2086
    "$bin" -timeout=20 $files > "$log" 2>&1
    rc=$?
    result $rc "fuzz $h: $count seed and regression inputs"
  fi
  if [ "$rc" -ne 0 ]; then
    grep -a -E 'INVARIANT|ERROR|runtime error|SUMMARY|Running:|Test unit written|#[0-9]+ 0x' "$log" | head -n 25 | sed 's/^/#   /'
  fi
done
[ "$mode" = crashes ] && exit 0
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
