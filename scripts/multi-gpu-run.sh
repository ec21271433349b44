#!/usr/bin/env bash
# multi-gpu-run.sh: issue 16's run on a machine of two GPUs (device kind
# nvidia-h200-x2), from the repo root, with the binaries built here by
# scripts/gpu-build.sh and carried in build/gpu (the GPU machine has no Go).
#
# Steps, in order:
#   tests     the cuda package's and device/cuda's cuda-tagged tests (the
#             kernels and the host-bases MSMs against gnark-crypto)
#   setup     chain and sha256 keys at $SIZE, made on the device
#   rounds    $ROUNDS times, alternating: `bench groth16` of chain with
#             --devices 1, then --devices 2, the same jobs ($JOBS jobs of 10
#             partitions, $INFLIGHT in flight), every proof verified; the
#             first round writes its traces (bench --trace-dir) for
#             `prooflane simulate --devices 4/8` here
#   sha256    the same, once, with sha256 (more synthesis per partition)
#   headroom  chain on two devices with twice auto's synthesis workers and
#             cpu_bandwidth: whether the host stages still bound it
#
# The pipeline is groth16.yaml at its defaults: its `auto` counts size
# themselves for the devices of each run (2 synthesis workers and a
# cpu_bandwidth of 4 on one device; 4 and 8 on two).
#
# Resumable: each finished step is written to $STATE and skipped when the
# script runs again on the same (warm) machine. Results: $OUT/multi.md (the
# table, printed last), $OUT/multi.log, $OUT/tests.log, $OUT/*.json (bench
# --json), $OUT/traces/ (chain's round-1 traces, one file per device
# count).
#
#   bash scripts/gpu-build.sh     # here, after make -C cuda
#   run(kind: "nvidia-h200-x2", command: "bash scripts/multi-gpu-run.sh", carry: ["build/gpu"])
#
# Device time (H200s, 32 cores): tests ~60 s, setups ~30 s, a round ~40 s,
# sha256 ~40 s, headroom ~20 s: ~4 min with ROUNDS=2.
#
# Environment: OUT (default /tmp/multi-out), KEYS (/tmp/multi-keys), STATE
# ($KEYS/done), BIN_DIR (build/gpu), BACKEND (cuda), SIZE (2^20), JOBS (12),
# INFLIGHT (6), ROUNDS (2), BUDGET (seconds, 300). A dry run without a GPU:
#   BACKEND=cpu SIZE=2^8 BIN_DIR=/tmp/bin bash scripts/multi-gpu-run.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/multi-out}
KEYS=${KEYS:-/tmp/multi-keys}
STATE=${STATE:-$KEYS/done}
BIN_DIR=${BIN_DIR:-build/gpu}
BACKEND=${BACKEND:-cuda}
SIZE=${SIZE:-2^20}
JOBS=${JOBS:-12}
INFLIGHT=${INFLIGHT:-6}
ROUNDS=${ROUNDS:-2}
BUDGET=${BUDGET:-300}
bin=/tmp/multi-gpu-bin
mkdir -p "$OUT" "$KEYS" "$bin"
touch "$STATE"
began=$SECONDS
failed=0
log=$OUT/multi.log

for f in prooflane cuda.test device-cuda.test; do
	if [ -f "$BIN_DIR/$f.gz" ]; then
		gunzip -c "$BIN_DIR/$f.gz" >"$bin/$f"
	elif [ -f "$BIN_DIR/$f" ]; then
		cp "$BIN_DIR/$f" "$bin/$f"
	elif [ "$f" = prooflane ]; then
		echo "multi-gpu-run: $BIN_DIR/prooflane(.gz) is missing: run scripts/gpu-build.sh here and carry $BIN_DIR" >&2
		exit 1
	fi
done
chmod +x "$bin"/*
pl=$bin/prooflane

left() { echo $((BUDGET - (SECONDS - began))); }

# step NAME NEED CAP CMD...: runs CMD under timeout min(CAP, left), its
# output appended to $log; skipped when done before (in $STATE) or when
# less than NEED seconds are left.
step() {
	local name=$1 need=$2 cap=$3
	shift 3
	if grep -qxF "$name" "$STATE"; then
		return 0
	fi
	local l
	l=$(left)
	if [ "$l" -lt "$need" ]; then
		echo "== $name: not started, ${l}s left of ${BUDGET}s, needs ~${need}s: run the script again" | tee -a "$log"
		failed=1
		return 1
	fi
	local t=$((cap < l ? cap : l)) s=$SECONDS rc=0
	echo "== $name (timeout ${t}s): $*" | tee -a "$log"
	timeout "$t" "$@" >>"$log" 2>&1 || rc=$?
	echo "== $name: rc=$rc in $((SECONDS - s))s" | tee -a "$log"
	if [ "$rc" -ne 0 ]; then
		failed=1
		return 1
	fi
	echo "$name" >>"$STATE"
}

# bench NAME CIRCUIT DEVICES JOBS [FLAGS...]: one bench of groth16.yaml,
# its JSON in $OUT/NAME.json.
bench() {
	local name=$1 c=$2 d=$3 jobs=$4
	shift 4
	step "$name" 15 240 bash -c "$pl bench --backend $BACKEND --circuit $c --size '$SIZE' --keys $KEYS --partitions 10 --jobs $jobs --inflight $INFLIGHT --devices $d --json $* groth16 >$OUT/$name.json"
}

{
	echo "## multi-gpu-run $(date -u +%FT%TZ)"
	echo "revision: $({ tr '\n' ' ' <"$BIN_DIR/REVISION"; } 2>/dev/null || echo unknown); cpus: $(nproc)"
	nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2>/dev/null
} | tee -a "$log"

if [ "$BACKEND" = cuda ]; then
	for t in cuda device-cuda; do
		[ -x "$bin/$t.test" ] || continue
		dir=cuda
		[ "$t" = device-cuda ] && dir=device/cuda
		step "tests-$t" 30 150 bash -c "cd $dir && $bin/$t.test -test.v -test.timeout 140s >>$OUT/tests.log 2>&1; rc=\$?; grep -E '^(--- |FAIL|ok|PASS|panic)' $OUT/tests.log | grep -v '^--- PASS' ; exit \$rc"
	done
fi
for c in chain sha256; do
	step "setup-$c" 20 120 "$pl" setup --backend "$BACKEND" --circuit "$c" --size "$SIZE" --keys "$KEYS"
done
for r in $(seq 1 "$ROUNDS"); do
	for d in 1 2; do
		trace=""
		[ "$r" = 1 ] && trace="--trace-dir $OUT/traces/d$d"
		bench "chain-d$d-r$r" chain "$d" "$JOBS" $trace
	done
done
for d in 1 2; do
	bench "sha256-d$d" sha256 "$d" $((JOBS / 2))
done
bench "chain-d2-headroom" chain 2 "$JOBS" --set synth_workers=8 --set cpu_bandwidth=16

# The table: proofs/s of each run, and two devices over one (chain: the
# mean over rounds of each).
python3 - "$OUT" >"$OUT/multi.md" <<'EOF'
import json, glob, os, sys, statistics
out = sys.argv[1]
rows, rate = [], {}
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(f)[:-5]
    try:
        b = json.load(open(f))
    except ValueError:
        continue
    r = b["rows"][0]
    rows.append((name, b["devices"], r["proofs"], r["seconds"], r["proofs_per_s"], r["gpu_busy_pct"], r["peak_rss_bytes"] / 2**30))
    key = name.split("-r")[0]
    rate.setdefault(key, []).append(r["proofs_per_s"])
print("| run | devices | proofs | seconds | proofs/s | GPU busy | peak RSS |")
print("|---|---|---|---|---|---|---|")
for n, d, p, s, ps, busy, rss in rows:
    print(f"| {n} | {d} | {p} | {s:.2f} | {ps:.2f} | {busy:.0f}% | {rss:.1f} GiB |")
print()
for c in ("chain", "sha256"):
    one, two = rate.get(c + "-d1"), rate.get(c + "-d2")
    if one and two:
        print(f"{c}: 2 devices / 1 device = {statistics.mean(two) / statistics.mean(one):.2f}x ({statistics.mean(two):.2f} / {statistics.mean(one):.2f} proofs/s)")
head = rate.get("chain-d2-headroom")
if head and rate.get("chain-d1"):
    print(f"chain, 2 devices, synth_workers=8 cpu_bandwidth=16: {head[0]:.2f} proofs/s = {head[0] / statistics.mean(rate['chain-d1']):.2f}x one device")
EOF
echo "took $((SECONDS - began)) s; done: $(tr '\n' ' ' <"$STATE")" >>"$OUT/multi.md"
cat "$OUT/multi.md"
exit "$failed"
