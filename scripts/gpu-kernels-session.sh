#!/usr/bin/env bash
# gpu-kernels-session.sh: one device call for issue 14's measurements and
# issue 15's workers, most important first, each part in what is left of
# BUDGET seconds (default 500):
#
#   0. the kernels' device self test (cuda.test -test.run TestSelfTest)
#   1. sppark side by side, first pass (scripts/sppark-side-by-side.sh:
#      prooflane's cudabench with -dump, then sppark on the same inputs)
#   2. the kernel variants, round 1 (scripts/kernel-variants.sh)
#   3. synthesis workers and the setup's .r1cs reuse at 2^22
#      (scripts/workers-run.sh)
#   4. the plain G1 MSM's window at 2^25 and 2^26 (base build, phase profile)
#   5. sppark side by side, second pass (sppark first)
#   6. the kernel variants, round 2
#
# Built here first, then carried:
#
#   SPPARK=... BLST=... bash scripts/sppark-build.sh   # build/sppark
#   bash scripts/kernel-variants.sh build              # build/variants
#   bash scripts/gpu-build.sh cli                      # build/cli: prooflane.gz, cuda.test.gz
#   run(command: "bash scripts/gpu-kernels-session.sh", carry: ["build/sppark", "build/variants", "build/cli"], timeout_s: 600)
#
# Everything lands in $OUT: session.md (every table), results.tgz.
set -u -o pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-/tmp/gks-out}
BUDGET=${BUDGET:-500}
work=/tmp/gks
mkdir -p "$work" "$RESULTS"
began=$SECONDS
left() { echo $((BUDGET - (SECONDS - began))); }
say() { echo "== $* ($((SECONDS - began)) s)"; }
report=$work/session.md
: >"$report"

sbs() {
	REPS=5 OUT=$work/sbs WORK=$work/sbs-work BUDGET=$(($(left) < $1 ? $(left) : $1)) STEPS="$2" \
		CUDABENCH_ARGS="-cpu=false -reps 5 -seed 14 -distinct 0 -nttall -ntt 24 -g1 20,22,24 -g2 20,22 -t 18,20,22 -t2 18,20" \
		bash build/sppark/sppark-side-by-side.sh >"$work/sbs-$3.log" 2>&1
	say "side by side, pass $3: rc $?"
	grep '^==' "$work/sbs-$3.log" | tail -6
}
variants() {
	OUT=$work/variants ROUNDS=1 ROUND=$1 VARIANT_TIMEOUT=60 \
		ARGS="-cpu=false -reps 3 -ntt= -g1 22,24 -t 22 -g2 22 -t2 20" \
		bash scripts/kernel-variants.sh run >"$work/variants-$1.log" 2>&1
	say "variants round $1: rc $?"
	grep -E "rc=|DIFFER" "$work/variants-$1.log"
}

# the kernels' self test first (the v7 arithmetic against the reference
# multiplication on the device): a few seconds
if [ -f build/cli/cuda.test.gz ]; then
	gunzip -c build/cli/cuda.test.gz >/tmp/gks-cuda.test && chmod +x /tmp/gks-cuda.test
	timeout 60 /tmp/gks-cuda.test -test.run 'TestSelfTest' -test.v >"$work/selftest.log" 2>&1
	say "self test: rc $?"
	grep -E "^(--- |ok|FAIL|PASS)" "$work/selftest.log"
fi
sbs 230 "prooflane-1 sppark-1" 1
[ "$(left)" -gt 130 ] && variants 1
[ "$(left)" -gt 80 ] && {
	OUT=$work/workers BUDGET=$(($(left) - 20)) SIZES=chain:22 PARTS=8 WORKERS="2 8" bash scripts/workers-run.sh >"$work/workers.log" 2>&1
	say "workers: rc $?"
}
[ "$(left)" -gt 50 ] && {
	gunzip -c build/variants/base.gz >/tmp/gks-base && chmod +x /tmp/gks-base
	PROOFLANE_CUDA_PROFILE=1 timeout 90 /tmp/gks-base -cpu=false -reps 3 -ntt= -g1 25,26 -c 18,20,22 -g2= -seed 7 \
		-o "$work/window26.md" >"$work/window26.log" 2>&1
	say "window 2^25, 2^26: rc $?"
}
[ "$(left)" -gt 60 ] && sbs $(($(left) - 10)) "sppark-2 prooflane-2" 2
[ "$(left)" -gt 130 ] && variants 2

{
	echo "# gpu-kernels-session $(cat build/variants/REVISION 2>/dev/null | head -1)"
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null
	echo
	cat "$work/sbs/side-by-side.md" 2>/dev/null
	for f in "$work"/variants-*.log; do echo; echo "## $(basename "$f")"; sed -n '/^| op/,$p' "$f"; grep DIFFER "$f"; done
	echo
	echo "## self test"
	grep -E "^(--- |ok|FAIL|PASS)" "$work/selftest.log" 2>/dev/null
	echo
	echo "## workers"
	cat "$work/workers/workers.md" 2>/dev/null
	echo
	echo "## G1 window at 2^25 and 2^26 (plain, 4096 distinct bases repeated)"
	cat "$work/window26.md" 2>/dev/null
	grep "^profile" "$work/window26.log" 2>/dev/null
} >"$report"
cp "$report" "$RESULTS/"
tar czf "$RESULTS/results.tgz" -C "$work" --exclude=dump --exclude=bin --exclude='sbs-work/dump' .
say "done"
cat "$report"
