#!/usr/bin/env bash
# gpu-final-session.sh: the final build's checks and side by side in one
# device call, most important first, as far as BUDGET seconds (590) allow:
#
#   1. the CUDA tests of stages/groth16 and device/cuda (every pipeline
#      proves on the GPU and gnark verifies each proof: gpu-e2e.sh tests;
#      about a minute, so first);
#   2. cuda.test at PROOFLANE_CUDA_TEST_MAXLOG=24: every kernel against
#      gnark-crypto on fresh random inputs at every size up to 2^24
#      (TestMulGenerator up to 2^20), with what is left of the budget
#      but 20 s: ~300 s on an H200, ~450 s on an H100 (TestNTT 104 s,
#      TestMSMTable 177 s, TestMulGenerator 43 s there), which leaves
#      the side by side out;
#   3. sppark side by side, one pass (build/sppark/sppark-side-by-side.sh,
#      STEPS "prooflane-1 sppark-1"), when 120 s are left.
#
#   bash scripts/gpu-build.sh; cp build/gpu/cudabench.gz build/sppark/   # here
#   run(command: "bash scripts/gpu-final-session.sh", carry: ["build/gpu", "build/sppark"], timeout_s: 600)
#
# Results in $OUT: final.md, results.tgz.
set -u -o pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-/tmp/gfs-out}
BUDGET=${BUDGET:-590}
work=/tmp/gfs
bin=/tmp/gfs-bin
mkdir -p "$work" "$RESULTS" "$bin"
began=$SECONDS
left() { echo $((BUDGET - (SECONDS - began))); }
say() { echo "== $* ($((SECONDS - began)) s)"; }
for f in build/gpu/*.gz; do gunzip -c "$f" >"$bin/$(basename "$f" .gz)"; done
chmod +x "$bin"/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee "$work/gpu.txt"

OUT=$work/e2e BUDGET=90 bash scripts/gpu-e2e.sh tests >"$work/e2e.log" 2>&1
say "groth16 and device cuda tests: rc $?"
grep -E "^(--- |FAIL|ok|PASS|panic)" "$work/e2e/tests.log"
grep -E "skipped" "$work/e2e.log"  # a part the e2e budget left out
t=$(($(left) - 20))
PROOFLANE_CUDA_TEST_MAXLOG=24 timeout "$t" "$bin/cuda.test" -test.v -test.timeout "$((t - 5))s" >"$work/cuda-test.log" 2>&1
say "cuda.test MAXLOG=24: rc $?"
grep -E "^(--- |FAIL|ok|PASS|panic)" "$work/cuda-test.log"
if [ "$(left)" -gt 120 ]; then
	REPS=5 OUT=$work/sbs WORK=$work/sbs-work BUDGET=$(($(left) - 15)) STEPS="prooflane-1 sppark-1" \
		CUDABENCH_ARGS="-cpu=false -reps 5 -seed 14 -distinct 0 -nttall -ntt 24 -g1 20,22,24 -g2 20,22 -t 19,20,22 -t2 19,20" \
		bash build/sppark/sppark-side-by-side.sh >"$work/sbs.log" 2>&1
	say "side by side: rc $?"
fi
{
	echo "# gpu-final-session $(tr '\n' ' ' <build/gpu/REVISION) lib $(cat build/gpu/LIBHASH)"
	cat "$work/gpu.txt"
	echo
	echo "## cuda.test, MAXLOG=24"
	grep -E "^(--- |FAIL|ok|PASS|panic)|equal gnark|upload \[" "$work/cuda-test.log"
	echo
	echo "## groth16 and device CUDA tests"
	grep -hE "^(--- |FAIL|ok|PASS|panic)" "$work/e2e/tests.log" 2>/dev/null
	echo
	cat "$work/sbs/side-by-side.md" 2>/dev/null
} >"$work/final.md"
cp "$work/final.md" "$RESULTS/"
tar czf "$RESULTS/results.tgz" -C "$work" --exclude=dump --exclude='sbs-work/dump' --exclude=bin .
say "done"
cat "$work/final.md"
