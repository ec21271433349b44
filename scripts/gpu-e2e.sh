#!/usr/bin/env bash
# gpu-e2e.sh PART: the Groth16 end-to-end run on the GPU machine (issue 5),
# from the repo root, with the binaries built here by scripts/gpu-build.sh
# and carried in build/gpu/ (the GPU machine has no Go toolchain).
#
#   PART 1: the cuda-tagged tests (stages/groth16: every pipeline proves on
#           CUDA and gnark verifies, the two-lock overlap test, the on_oom
#           fallbacks on real streams, the fused H against the generic one;
#           device/cuda: CUDA against the CPU backend (MSMs, NTTs, vector
#           ops, Evict), event timing), then setup of sha256 at 2^20 and
#           `prooflane bench` of sha256 (4 layouts + gnark), then sha256 with
#           the G2 MSM on the host cores (groth16.yaml --set g2_on=cpu).
#   PART 2: setup of chain at 2^20, `prooflane bench` of chain (4 layouts +
#           gnark), then chain with g2_on=cpu.
#   PART all: both, as far as BUDGET allows.
#   PART tests: PART 1's tests alone.
#
# Environment: OUT (default /tmp/gpu-e2e-out), KEYS, BUDGET, SIZE, BACKEND
# (also setup's: keys made on the GPU), JOBS (3).
# Each part is self-contained (it sets up its own keys in $KEYS, a fixed
# path, so a part run again on a warm machine reuses them).
#
# Device time (H200; setup at 2^20 ~72 s; gnark 5.1 s/proof for chain,
# ~2.6 s for sha256; the layouts at 1-4 proofs/s; g2_on=cpu ~0.5 proofs/s,
# one job of 10 partitions):
#   PART 1: tests ~90 s + setup ~72 s + 4 layouts x (warm-up + 30 proofs)
#           ~90 s + 3 gnark proofs ~8 s + g2_on=cpu ~25 s      = ~5 min
#   PART 2: setup ~72 s + layouts ~90 s + gnark ~16 s + g2_on=cpu ~25 s
#                                                             = ~3.5 min
# plus a cold start of 1-2 min. Each part stops starting steps once its
# budget (BUDGET, default 570 s) is spent, skipping them with a message, so
# that what ran comes back. After `bash scripts/gpu-build.sh` here:
#
#   run(command: "bash scripts/gpu-e2e.sh 1", carry: ["build/gpu"], timeout_s: 600)
#   run(command: "bash scripts/gpu-e2e.sh 2", carry: ["build/gpu"], timeout_s: 600)
#
# Files written into $OUT (at most 8 come back): gpu.txt, tests.log (both
# test binaries), setup.log, bench.log (bench's progress on stderr),
# bench-<circuit>.md and bench-<circuit>-g2-cpu.md (the tables, also
# printed last).
set -u -o pipefail
part=${1:-}
case "$part" in
tests | 1 | 2 | all) ;;
*)
	echo "usage: scripts/gpu-e2e.sh tests|1|2|all (see the header)" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-e2e-out}
KEYS=${KEYS:-/tmp/prooflane-keys}
BUDGET=${BUDGET:-570}
SIZE=${SIZE:-2^20}
JOBS=${JOBS:-3} # jobs of 10 partitions a layout
BACKEND=${BACKEND:-cuda} # BACKEND=cpu SIZE=2^8 dry-runs the script on a machine without a GPU
bin=/tmp/prooflane-gpu-bin
mkdir -p "$OUT" "$KEYS" "$bin"
began=$SECONDS
failed=0

left() { echo $((BUDGET - (SECONDS - began))); }

# step NAME NEED CAP LOG CMD...: runs CMD with a timeout of min(CAP, what is
# left), appending its output to LOG; skipped when less than NEED seconds
# are left.
step() {
	local name=$1 need=$2 cap=$3 log=$4
	shift 4
	local l
	l=$(left)
	if [ "$l" -lt "$need" ]; then
		echo "== $name: skipped, ${l}s left of the ${BUDGET}s budget, needs ~${need}s" | tee -a "$log"
		failed=1
		return
	fi
	local t=$((cap < l ? cap : l)) s=$SECONDS rc=0
	echo "== $name (timeout ${t}s)" | tee -a "$log"
	timeout "$t" "$@" >>"$log" 2>&1 || rc=$?
	echo "== $name: rc=$rc in $((SECONDS - s))s" | tee -a "$log"
	if [ "$rc" -ne 0 ]; then
		failed=1
	fi
	return 0
}

for f in build/gpu/prooflane.gz build/gpu/groth16-cuda.test.gz build/gpu/device-cuda.test.gz; do
	if [ ! -f "$f" ]; then
		echo "gpu-e2e: $f is missing: run scripts/gpu-build.sh here and carry build/gpu" >&2
		exit 1
	fi
	gunzip -c "$f" >"$bin/$(basename "$f" .gz)"
done
chmod +x "$bin"/*
{
	echo "revision: $(tr '\n' ' ' <build/gpu/REVISION) libprooflane_cuda.a: $(cat build/gpu/LIBHASH)"
	nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader
	echo "cpus: $(nproc)"
} | tee "$OUT/gpu.txt"

pl="$bin/prooflane"
layouts=(pipelines/groth16.yaml pipelines/groth16-single-lock.yaml pipelines/groth16-dual-worker.yaml pipelines/groth16-two-lock.yaml)

tests() {
	# The test binaries find ../../pipelines from their package directory.
	step "groth16 cuda tests" 60 240 "$OUT/tests.log" \
		bash -c "cd stages/groth16 && $bin/groth16-cuda.test -test.run CUDA -test.v -test.timeout 230s"
	step "device cuda tests" 20 90 "$OUT/tests.log" \
		bash -c "cd device/cuda && $bin/device-cuda.test -test.run CUDA -test.v -test.timeout 80s"
	grep -E "^(--- |FAIL|ok|PASS|panic)|overlapping pairs|took .* on the device" "$OUT/tests.log"
}

# bench CIRCUIT NEED CAP: setup, the four layouts with gnark, then the
# recommended layout with the G2 MSM on the host cores (g2_on=cpu).
bench() {
	local c=$1 need=$2 cap=$3
	step "setup $c $SIZE" 90 150 "$OUT/setup.log" "$pl" setup --backend "$BACKEND" --circuit "$c" --size "$SIZE" --keys "$KEYS"
	step "bench $c $SIZE" "$need" "$cap" "$OUT/bench.log" bash -c \
		"$pl bench --backend $BACKEND --circuit $c --size '$SIZE' --keys $KEYS --partitions 10 --jobs $JOBS --inflight 3 --gnark 3 ${layouts[*]} >$OUT/bench-$c.md"
	step "bench $c $SIZE g2_on=cpu" 40 90 "$OUT/bench.log" bash -c \
		"$pl bench --backend $BACKEND --circuit $c --size '$SIZE' --keys $KEYS --partitions 10 --jobs 1 --inflight 1 --set g2_on=cpu pipelines/groth16.yaml >$OUT/bench-$c-g2-cpu.md"
}

case "$part" in
tests)
	tests
	;;
1)
	tests
	bench sha256 120 300
	;;
2)
	bench chain 240 420
	;;
all)
	tests
	bench sha256 120 300
	bench chain 240 420
	;;
esac

echo "gpu-e2e part $part: $((SECONDS - began))s; logs in $OUT"
for f in "$OUT"/bench-sha256.md "$OUT"/bench-sha256-g2-cpu.md "$OUT"/bench-chain.md "$OUT"/bench-chain-g2-cpu.md; do
	[ -s "$f" ] || continue
	echo
	shape="10 partitions x $JOBS jobs, 3 in flight"
	case "$f" in *-g2-cpu.md) shape="10 partitions x 1 job" ;; esac
	echo "### $(basename "$f" .md) ($SIZE, $shape)"
	cat "$f"
done
exit "$failed"
