#!/usr/bin/env bash
# gpu-bench.sh: measures what the README's GPU table shows, on this
# machine's GPU, with the binaries of scripts/gpu-build.sh in build/gpu,
# from the repository's root.
#
# Usage: bash scripts/gpu-bench.sh
#
#   1. the kernels: cudabench times G1 MSMs of 2^20, 2^22 and 2^24 points
#      (and 2^24 over a precomputed table of window 22), G2 MSMs of 2^20
#      and 2^22, and the four NTT orders at 2^24, every base distinct as in
#      a proving key, each result checked against gnark-crypto, which it
#      also times on this host's cores. With sppark's harness built
#      (bash scripts/sppark-build.sh, build/sppark), the same run times
#      sppark on the same inputs and checks its results against ours
#      (scripts/sppark-side-by-side.sh, one pass);
#   2. the proofs: keys made on the GPU, then `prooflane bench` of chain at
#      2^20 with groth16 and groth16-dual-worker and gnark's CPU prover;
#      sha256 at 2^20 with groth16; PLONK's chain at a 2^20 domain (--size
#      2^19) with plonk and gnark's CPU prover. 10-partition jobs, every
#      proof verified.
#
# About 15 minutes on an H100 or H200 with 16 host cores (key setups
# included); the keys go to $KEYS (default /tmp/prooflane-bench-keys) and
# are reused by a second run. Tables and logs in $OUT (default
# /tmp/prooflane-gpu-bench), printed at the end. Environment: CURVE
# (bls12-381, the default, or bn254: kernels, keys and proofs of that
# curve), JOBS (6) and INFLIGHT (3) for the benches, REPS (5) for
# cudabench, SKIP_KERNELS=1 or SKIP_PROOFS=1 to run one half. To try the script without a GPU:
#   go build -o bin/prooflane ./cmd/prooflane
#   BIN_DIR=bin BACKEND=cpu LOG=10 SKIP_KERNELS=1 bash scripts/gpu-bench.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/prooflane-gpu-bench}
KEYS=${KEYS:-/tmp/prooflane-bench-keys}
JOBS=${JOBS:-6}
INFLIGHT=${INFLIGHT:-3}
REPS=${REPS:-5}
BACKEND=${BACKEND:-cuda}
LOG=${LOG:-20}
CURVE=${CURVE:-bls12-381}
case $CURVE in
bls12-381 | bn254) ;;
*)
	echo "gpu-bench: CURVE=$CURVE: want bls12-381 or bn254" >&2
	exit 2
	;;
esac
bin=$(realpath "${BIN_DIR:-build/gpu}")
need=prooflane
[ "${SKIP_KERNELS:-0}" = 1 ] || need="prooflane cudabench"
for f in $need; do
	if [ ! -x "$bin/$f" ]; then
		echo "gpu-bench: $bin/$f is missing: run bash scripts/gpu-build.sh first" >&2
		exit 1
	fi
done
mkdir -p "$OUT" "$KEYS"
failed=0
say() { echo "== $*"; }
{
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
	echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
	cat "$bin/REVISION" 2>/dev/null
	echo "curve: $CURVE"
} | tee "$OUT/machine.txt"

kernel_args="-cpu=true -reps $REPS -seed 14 -distinct 0 -nttall -ntt 24 -g1 20,22,24 -g2 20,22 -t 22 -t2="
if [ "${SKIP_KERNELS:-0}" != 1 ]; then
	if [ -x build/sppark/sppark-bench ]; then
		say "kernels, with sppark on the same inputs"
		CURVE=$CURVE OUT=$OUT/sppark CUDABENCH_ARGS="$kernel_args" STEPS="prooflane-1 sppark-1" \
			bash scripts/sppark-side-by-side.sh >"$OUT/kernels.log" 2>&1 || failed=1
		cp "$OUT/sppark/side-by-side.md" "$OUT/kernels.md" 2>/dev/null
	else
		say "kernels (no sppark column: build/sppark/sppark-bench is missing, see scripts/sppark-build.sh)"
		# shellcheck disable=SC2086
		"$bin/cudabench" -curve "$CURVE" $kernel_args -o "$OUT/kernels.md" >"$OUT/kernels.log" 2>&1 || failed=1
	fi
	tail -3 "$OUT/kernels.log"
fi

# bench NAME SETUP_ARGS -- BENCH_ARGS: keys made on the GPU (once: the
# cache in $KEYS is reused), then `prooflane bench`, its table in
# $OUT/NAME.md.
bench() {
	local name=$1 setup=()
	shift
	while [ "$1" != -- ]; do setup+=("$1"); shift; done
	shift
	say "$name"
	if ! "$bin/prooflane" setup --backend "$BACKEND" --curve "$CURVE" --keys "$KEYS" "${setup[@]}" >>"$OUT/setup.log" 2>&1; then
		echo "   setup failed: $OUT/setup.log"
		failed=1
		return
	fi
	if ! "$bin/prooflane" bench --backend "$BACKEND" --curve "$CURVE" --keys "$KEYS" --partitions 10 --jobs "$JOBS" --inflight "$INFLIGHT" \
		"$@" >"$OUT/$name.md" 2>>"$OUT/bench.log"; then
		echo "   bench failed: $OUT/bench.log"
		failed=1
	fi
}
if [ "${SKIP_PROOFS:-0}" != 1 ]; then
	bench groth16-chain --circuit chain --size "2^$LOG" -- \
		--circuit chain --size "2^$LOG" --gnark 1 groth16 groth16-dual-worker
	bench groth16-sha256 --circuit sha256 --size "2^$LOG" -- \
		--circuit sha256 --size "2^$LOG" groth16
	# chain's PLONK domain is about twice --size: 2^(LOG-1) gives 2^LOG
	bench plonk-chain --pipeline plonk --circuit chain --size "2^$((LOG - 1))" -- \
		--circuit chain --size "2^$((LOG - 1))" --gnark 1 plonk
fi

for f in machine.txt kernels.md groth16-chain.md groth16-sha256.md plonk-chain.md; do
	[ -s "$OUT/$f" ] || continue
	echo
	echo "### $f"
	cat "$OUT/$f"
done
echo
echo "gpu-bench: tables and logs in $OUT"
exit "$failed"
