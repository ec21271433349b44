#!/usr/bin/env bash
# scale-run.sh: the 2^24 and 2^26 Groth16 runs of issue 15 on the GPU
# machine, from the repo root, with the CLI built here by
# scripts/gpu-build.sh and carried in build/gpu (the GPU machine has no Go).
#
# Steps, in order (chain and sha256, --backend cuda, groth16.yaml):
#   setup chain 2^24; prove chain 2^24, 4 partitions; setup sha256 2^24;
#   prove sha256 2^24, 4 partitions (its keys deleted); bench chain 2^24
#   with gnark's CPU prover once (--gnark 1, for the ratio); setup sha256
#   2^26; prove sha256 2^26, 4 partitions; its keys deleted; setup chain
#   2^26; prove chain 2^26, 4 partitions; its keys deleted; last, where
#   chain 2^24's keys are still on the disk, prove chain 2^24 again with
#   the key's bases in host memory (--set bases=host, what streaming them
#   costs).
#
# Each step records, in $OUT/scale.md (printed last) and its log: its exit
# status and wall time, the peak RSS of the prooflane command itself (GNU
# time's %M of `timeout prooflane ...`: the kernel counts the largest
# waited-for descendant, so it is prooflane's, not the wrapper's), the peak
# device memory (nvidia-smi sampled every 100 ms), setup's phases (compile,
# QAP, G1, G2, write) and, for a prove, `prooflane analyze` of its trace
# (per-stage means: synthesize, vram_stage, gpu_compute, b_g2_msm; the
# kernels) with the device time per partition.
#
# Resumable: a step that succeeded is written to $STATE and skipped when the
# script runs again on the same (warm) machine, so the same call repeated
# goes on where the last one stopped. A step starts only when the budget
# left (BUDGET seconds from the script's start, default 560) covers its
# estimate on the H200; it runs under `timeout`. So:
#
#   bash scripts/gpu-build.sh     # here: make -C cuda first
#   run(command: "bash scripts/scale-run.sh", carry: ["build/gpu"], timeout_s: 600)
#   run(command: "bash scripts/scale-run.sh", carry: ["build/gpu"], timeout_s: 600)
#   run(command: "bash scripts/scale-run.sh", carry: ["build/gpu"], timeout_s: 600)
#
# Estimates (measured 2026-12-01 on the H200s, docs/scale.md; chain 2^26
# scaled from 2^24 and sha256 2^26):
#   call 1: the 2^24 steps, ~80+40+105+35+95 s = ~355 s, then the host
#           bases prove (~40 s) where the budget allows
#   call 2: sha256 2^26, setup ~140 s + prove ~100 s (the R1CS gadget,
#           twentieth session), ~100 s more with G2CPU=1
#   call 3: chain 2^26, setup ~360 s + prove ~170 s = ~530 s
# A cold machine between calls loses the keys: the steps whose keys are
# gone fail and say so (run the setup step again: rm its line from $STATE).
#
# Disk (64 GiB): the chain 2^26 key is ~36 GiB (.pk) + ~5 GiB (.r1cs), so
# the 2^24 keys go before any 2^26 setup and each 2^26 key goes once
# proved; a setup is skipped when the free space of $KEYS is below its
# key's size with 15% margin.
#
# Environment: OUT (default /tmp/scale-out), KEYS (/tmp/scale-keys), STATE
# ($KEYS/done), BUDGET (560), BIN_DIR (build/gpu), BACKEND (cuda),
# SIZES ("24 26": log2 sizes), PARTITIONS (4), G2CPU (1: each prove once
# more with --set g2_on=cpu, the G2 MSM on the host cores, step
# prove-g2cpu-CIRCUIT-LOG2). A dry run without a GPU:
#   BACKEND=cpu SIZES="10 11" bash scripts/scale-run.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/scale-out}
KEYS=${KEYS:-/tmp/scale-keys}
STATE=${STATE:-$KEYS/done}
BUDGET=${BUDGET:-560}
BIN_DIR=${BIN_DIR:-build/gpu}
BACKEND=${BACKEND:-cuda}
SIZES=${SIZES:-24 26}
PARTITIONS=${PARTITIONS:-4}
bin=/tmp/scale-run-bin
mkdir -p "$OUT" "$KEYS" "$bin"
touch "$STATE"
began=$SECONDS
failed=0
summary=$OUT/scale.md

if [ -f "$BIN_DIR/prooflane.gz" ]; then
	gunzip -c "$BIN_DIR/prooflane.gz" >"$bin/prooflane"
elif [ -f "$BIN_DIR/prooflane" ]; then
	cp "$BIN_DIR/prooflane" "$bin/prooflane"
else
	echo "scale-run: $BIN_DIR/prooflane(.gz) is missing: run scripts/gpu-build.sh here and carry $BIN_DIR" >&2
	exit 1
fi
chmod +x "$bin/prooflane"
pl=$bin/prooflane
timer=/usr/bin/time
if [ ! -x "$timer" ]; then
	timer="" # no GNU time: no peak RSS (the table says so)
fi
gpu=0
if [ "$BACKEND" = cuda ] && command -v nvidia-smi >/dev/null; then
	gpu=1
fi
{
	echo "## scale-run $(date -u +%FT%TZ)"
	echo
	echo "revision: $({ tr '\n' ' ' <"$BIN_DIR/REVISION"; } 2>/dev/null || echo unknown); cpus: $(nproc); host: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo); disk free at $KEYS: $(df -BG --output=avail "$KEYS" | tail -1 | tr -d ' ')"
	if [ "$gpu" = 1 ]; then
		nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader
	fi
	echo
	echo "| step | rc | wall | peak RSS | peak device memory |"
	echo "|---|---|---|---|---|"
} >>"$summary"

left() { echo $((BUDGET - (SECONDS - began))); }

# step NAME NEED CAP CMD...: runs CMD (a prooflane command line, without
# the binary) under timeout min(CAP, left) and GNU time, sampling the
# device memory; skipped when done before (in $STATE) or when less than
# NEED seconds are left. Its output goes to $OUT/NAME.log.
step() {
	local name=$1 need=$2 cap=$3
	shift 3
	if grep -qxF "$name" "$STATE"; then
		echo "== $name: done in an earlier call, skipped"
		return 0
	fi
	local l
	l=$(left)
	if [ "$l" -lt "$need" ]; then
		echo "== $name: not started, ${l}s left of the ${BUDGET}s budget, needs ~${need}s: run the script again" | tee -a "$OUT/steps.log"
		failed=1
		return 1
	fi
	local t=$((cap < l ? cap : l)) s=$SECONDS rc=0 log=$OUT/$name.log smi="" rss="-" dev="-"
	echo "== $name (timeout ${t}s): prooflane $*" | tee -a "$OUT/steps.log"
	if [ "$gpu" = 1 ]; then
		nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 -lms 100 >"$OUT/$name.smi" 2>/dev/null &
		smi=$!
	fi
	if [ -n "$timer" ]; then
		"$timer" -f '%M' -o "$OUT/$name.rss" timeout "$t" "$pl" "$@" >"$log" 2>&1 || rc=$?
		rss=$(tail -1 "$OUT/$name.rss" | awk '$1 ~ /^[0-9]+$/ {printf "%.2f GiB", $1/1048576}')
	else
		timeout "$t" "$pl" "$@" >"$log" 2>&1 || rc=$?
	fi
	if [ -n "$smi" ]; then
		kill "$smi" 2>/dev/null
		wait "$smi" 2>/dev/null
		dev=$(sort -n "$OUT/$name.smi" | tail -1 | awk '{printf "%.1f GiB", $1/1024}')
	fi
	local wall=$((SECONDS - s))
	echo "== $name: rc=$rc in ${wall}s, peak RSS ${rss:--}, peak device memory ${dev:--}" | tee -a "$OUT/steps.log"
	tail -5 "$log"
	echo "| $name | $rc | ${wall} s | ${rss:--} | ${dev:--} |" >>"$summary"
	if [ "$rc" -ne 0 ]; then
		failed=1
		return 1
	fi
	echo "$name" >>"$STATE"
	return 0
}

# fits CIRCUIT LOG2: whether $KEYS has room for the key (580 bytes a
# constraint for the .pk, 80 for the .r1cs, with 15% margin; sha256's is
# smaller, counted the same).
fits() {
	local need avail
	need=$(((1 << $2) * 660 * 115 / 100 / 1024 / 1024 / 1024 + 1))
	avail=$(df -BG --output=avail "$KEYS" | tail -1 | tr -dc '0-9')
	if [ "$avail" -lt "$need" ]; then
		echo "== setup $1 2^$2: not started, ${avail} GiB free at $KEYS, its key needs ~${need} GiB" | tee -a "$OUT/steps.log"
		failed=1
		return 1
	fi
}

# drop CIRCUIT LOG2: deletes the cached key files of that circuit and size.
drop() {
	rm -f "$KEYS/$1-$((1 << $2))".*
	echo "== keys of $1 2^$2 deleted; disk free at $KEYS: $(df -BG --output=avail "$KEYS" | tail -1 | tr -d ' ')" | tee -a "$OUT/steps.log"
}

# analyzed DIR FILE: prooflane analyze of the trace in a prove's --out DIR
# into FILE, then DIR deleted; nothing when DIR is gone (a step skipped as
# done in an earlier call keeps that call's analysis).
analyzed() {
	[ -f "$1/trace.jsonl" ] || return 0
	"$pl" analyze "$1/trace.jsonl" >"$2" 2>&1
	rm -rf "$1"
}

# run CIRCUIT LOG2 NEED_SETUP NEED_PROVE [NEED_BENCH [host]]: with host, the
# prove again with --set bases=host.
run() {
	local c=$1 e=$2 ns=$3 np=$4 nb=${5:-0} size="2^$2" ok=1
	local common=(--backend "$BACKEND" --circuit "$c" --size "$size" --keys "$KEYS")
	if ! grep -qxF "setup-$c-$e" "$STATE"; then
		fits "$c" "$e" || return 1
	fi
	step "setup-$c-$e" "$ns" $((ns * 2)) setup "${common[@]}" || return 1
	if step "prove-$c-$e" "$np" $((np * 3)) prove "${common[@]}" --partitions "$PARTITIONS" --out "$OUT/proofs-$c-$e" --progress off; then
		# analyze: per-stage means and the kernels; the device time per
		# partition is the sum of vram_stage, gpu_compute and b_g2_msm.
		analyzed "$OUT/proofs-$c-$e" "$OUT/analyze-$c-$e.txt"
	else
		ok=0
	fi
	if [ "$nb" -gt 0 ]; then
		step "bench-gnark-$c-$e" "$nb" $((nb * 2)) bench "${common[@]}" --partitions "$PARTITIONS" --jobs 1 --inflight 1 --warmup 1 --gnark 1 pipelines/groth16.yaml || ok=0
	fi
	# The variants below run on the keys the steps above left: without
	# them a prove would make its own keys (minutes, on the host cores).
	if [ ! -f "$KEYS/$c-$((1 << e)).pk" ]; then
		[ "${6:-}${G2CPU:-0}" = 0 ] || echo "== variants of $c 2^$e: not started, its keys are not in $KEYS" | tee -a "$OUT/steps.log"
		[ "$ok" = 1 ]
		return
	fi
	if [ "${6:-}" = g2cpu ] || [ "${G2CPU:-0}" = 1 ]; then
		# The same prove with the G2 MSM on the host cores (--set
		# g2_on=cpu, as SupraSeal runs B's G2 MSM): the GPU time is then
		# the G1 kernels' alone.
		if step "prove-g2cpu-$c-$e" "$np" $((np * 3)) prove "${common[@]}" --partitions "$PARTITIONS" --set g2_on=cpu --out "$OUT/proofs-g2cpu-$c-$e" --progress off; then
			analyzed "$OUT/proofs-g2cpu-$c-$e" "$OUT/analyze-g2cpu-$c-$e.txt"
		else
			ok=0
		fi
	fi
	if [ "${6:-}" = host ]; then
		# The same prove with the key's bases kept in host memory and
		# streamed through the MSMs (--set bases=host): what the copies cost.
		if step "prove-host-$c-$e" "$np" $((np * 3)) prove "${common[@]}" --partitions "$PARTITIONS" --set bases=host --out "$OUT/proofs-host-$c-$e" --progress off; then
			analyzed "$OUT/proofs-host-$c-$e" "$OUT/analyze-host-$c-$e.txt"
		else
			ok=0
		fi
	fi
	[ "$ok" = 1 ]
}

set -- $SIZES
small=$1 large=${2:-}
# 2^24 (call 1): both circuits proved; then gnark's prover on chain, for
# the ratio.
run chain "$small" 100 60
run sha256 "$small" 100 40 && drop sha256 "$small"
run chain "$small" 100 60 120
if [ -n "$large" ] && ! grep -qxF "prove-chain-$small" "$STATE"; then
	echo "== 2^$large: not started until chain 2^$small is proved" | tee -a "$OUT/steps.log"
	large=""
fi
if [ -n "$large" ]; then
	# 2^26 (calls 2 and 3): one circuit at a time, its key deleted once
	# proved; chain 2^24's keys go first when the disk is short.
	free=$(df -BG --output=avail "$KEYS" | tail -1 | tr -dc '0-9')
	if [ "$free" -lt $(((1 << large) * 660 * 115 / 100 / 1024 / 1024 / 1024 + 1)) ]; then
		drop chain "$small"
	fi
	run sha256 "$large" 180 140 && drop sha256 "$large"
	if grep -qxF "prove-sha256-$large" "$STATE"; then
		run chain "$large" 360 170 && drop chain "$large"
	fi
fi
# Last, where chain 2^24's keys are still there: its prove again with the
# key's bases in host memory.
if [ -f "$KEYS/chain-$((1 << small)).r1cs" ]; then
	run chain "$small" 100 60 0 host
fi

{
	echo
	echo "took $((SECONDS - began)) s of the ${BUDGET} s budget; done so far: $(tr '\n' ' ' <"$STATE")"
} >>"$summary"
for f in "$OUT"/setup-*.log; do
	[ -f "$f" ] || continue
	echo
	echo "### $(basename "$f" .log)"
	grep -iE "setup|compile|qap|write|estimat|memory|error" "$f" | tail -8
done >>"$summary"
for f in "$OUT"/analyze-*.txt; do
	[ -f "$f" ] || continue
	echo
	echo "### $(basename "$f" .txt)"
	cat "$f"
done >>"$summary"
for f in "$OUT"/bench-*.log; do
	[ -f "$f" ] || continue
	echo
	echo "### $(basename "$f" .log)"
	cat "$f"
done >>"$summary"
echo
cat "$summary"
exit "$failed"
