#!/usr/bin/env bash
# gpu-test.sh: runs the GPU tests on this machine's GPU, with the binaries
# of scripts/gpu-build.sh in build/gpu, from the repository's root.
#
# Usage: bash scripts/gpu-test.sh [MAXLOG]
#
#   1. every shipped Groth16 pipeline proves on the GPU and gnark verifies
#      each proof; the two-lock layout's uploads overlap other partitions'
#      kernels; both on_oom fallbacks on real streams (groth16-cuda.test);
#      every shipped PLONK pipeline likewise (plonk-cuda.test);
#      both families on BN254, gnark's verifier on each proof
#      (library-cuda.test);
#   2. the CUDA backend against the CPU backend on both curves: MSMs,
#      NTTs, vector operations, kernel timing by CUDA events
#      (device-cuda*.test);
#   3. every kernel against gnark-crypto on fresh random inputs at every
#      size up to 2^MAXLOG (cuda.test; MAXLOG 20 by default, 24 for the
#      sizes the benchmarks use: about 5 minutes on an H200, 8 on an H100).
#
# Logs in $OUT (default /tmp/prooflane-gpu-test); the exit status is 1 if
# any part failed.
set -u -o pipefail
cd "$(dirname "$0")/.."
maxlog=${1:-20}
OUT=${OUT:-/tmp/prooflane-gpu-test}
bin=$PWD/build/gpu
for f in cuda.test device-cuda.test device-cuda-bls12381.test device-cuda-bn254.test groth16-cuda.test plonk-cuda.test library-cuda.test; do
	if [ ! -x "$bin/$f" ]; then
		echo "gpu-test: $bin/$f is missing: run bash scripts/gpu-build.sh first" >&2
		exit 1
	fi
done
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
failed=0
# run NAME DIR CMD...: CMD in DIR (the test binaries read testdata and
# ../../pipelines from their package's folder), its log in $OUT/NAME.log.
run() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && "$@") >"$OUT/$name.log" 2>&1
	local rc=$?
	echo "== $name: exit $rc"
	grep -E "^(--- |FAIL|ok|PASS|panic)" "$OUT/$name.log"
	[ "$rc" -eq 0 ] || failed=1
}
run groth16 stages/groth16/bls12381 "$bin/groth16-cuda.test" -test.run CUDA -test.v -test.timeout 10m
run plonk stages/plonk/bls12381 "$bin/plonk-cuda.test" -test.run CUDA -test.v -test.timeout 10m
run bn254 . "$bin/library-cuda.test" -test.run CUDABN254 -test.v -test.timeout 10m
run device device/cuda "$bin/device-cuda.test" -test.v -test.timeout 5m
for c in bls12381 bn254; do
	run device-$c device/cuda/$c "$bin/device-cuda-$c.test" -test.run CUDA -test.v -test.timeout 5m
done
run kernels cuda env PROOFLANE_CUDA_TEST_MAXLOG="$maxlog" "$bin/cuda.test" -test.v -test.timeout 30m
echo "gpu-test: logs in $OUT"
exit "$failed"
