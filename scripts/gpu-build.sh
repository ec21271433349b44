#!/usr/bin/env bash
# gpu-build.sh: builds the GPU binaries into build/gpu (which git ignores).
#
# Usage: bash scripts/gpu-build.sh
#
# Needs Go, nvcc 11.8 and g++-11 (bash scripts/install-cuda.sh), no GPU.
# Brings the kernels library cuda/build/libprooflane_cuda.a up to date
# (make -C cuda rebuilds what changed), then links against it with the
# library's hash in -X, so that Go relinks when the library changes (Go's
# build cache does not see it):
#
#   build/gpu/prooflane          the CLI with the CUDA backend
#   build/gpu/cudabench          the kernels against gnark-crypto and sppark (docs/gpu.md)
#   build/gpu/cuda.test          the kernels' tests against gnark-crypto
#   build/gpu/device-cuda.test   the CUDA backend's options
#   build/gpu/device-cuda-bls12381.test, device-cuda-bn254.test
#                                each curve's CUDA devices against the CPU backend's
#   build/gpu/groth16-cuda.test  every shipped Groth16 pipeline proving on the GPU
#   build/gpu/plonk-cuda.test    every shipped PLONK pipeline proving on the GPU
#   build/gpu/library-cuda.test  both families on BN254 through the library on the GPU
#   build/gpu/REVISION           the commit ("dirty" if built from uncommitted
#                                changes) and the library's hash
#
# The binaries link the CUDA runtime statically and need neither Go nor
# nvcc to run: a GPU host without a toolchain needs the folder and the
# repository's pipelines/ (scripts/gpu-test.sh and scripts/gpu-bench.sh
# run them from the repository's root).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/gpu
lib=cuda/build/libprooflane_cuda.a
if ! make -s -C cuda; then
	echo "gpu-build: the kernels did not build (make -C cuda needs nvcc: bash scripts/install-cuda.sh)" >&2
	exit 1
fi
h=$(sha1sum "$lib" | cut -c1-16)
ld="-ldflags=-s -w -X=github.com/prooflane/prooflane/cuda.libHash=$h"
rm -rf "$out"
mkdir -p "$out"
go build -tags cuda "$ld" -o "$out/prooflane" ./cmd/prooflane
go build -tags cuda "$ld" -o "$out/cudabench" ./cmd/cudabench
go test -c -tags cuda "$ld" -o "$out/cuda.test" ./cuda
go test -c -tags cuda "$ld" -o "$out/device-cuda.test" ./device/cuda
for c in bls12381 bn254; do
	go test -c -tags cuda "$ld" -o "$out/device-cuda-$c.test" ./device/cuda/$c
done
go test -c -tags cuda "$ld" -o "$out/groth16-cuda.test" ./stages/groth16/bls12381
go test -c -tags cuda "$ld" -o "$out/plonk-cuda.test" ./stages/plonk/bls12381
go test -c -tags cuda "$ld" -o "$out/library-cuda.test" .
{
	echo "prooflane $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!build' || echo ' dirty')"
	echo "libprooflane_cuda.a $h"
} >"$out/REVISION"
ls -l "$out"
echo "gpu-build: built into $out ($(tr '\n' ' ' <"$out/REVISION"))"
