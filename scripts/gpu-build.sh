#!/usr/bin/env bash
# gpu-build.sh: builds here, into build/gpu/ (ignored), what
# scripts/gpu-e2e.sh runs on the GPU machine, which has no Go toolchain:
#
#   build/gpu/prooflane.gz            the CLI with the CUDA backend (setup, bench)
#   build/gpu/groth16-cuda.test.gz    stages/groth16 tests, -tags cuda
#   build/gpu/device-cuda.test.gz     device/cuda tests, -tags cuda
#   build/gpu/cuda.test.gz            the cuda package's tests (kernels against gnark-crypto)
#   build/gpu/cudabench.gz            the kernel benchmark (scripts/gpu-tables.sh)
#
# `gpu-build.sh cli` builds the CLI and cuda.test alone into build/cli.
#
# The kernels library cuda/build/libprooflane_cuda.a is brought up to date
# first (make -C cuda, needs nvcc); its hash goes into -X so that Go relinks when it changes
# (Go's build cache does not see the library). Binaries are stripped and
# gzipped to stay well under the device tool's 64 MiB carry limit; the
# script fails if they do not. Then carry build/gpu:
#
#   run(command: "bash scripts/gpu-e2e.sh 1", carry: ["build/gpu"], timeout_s: 600)
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/gpu
lib=cuda/build/libprooflane_cuda.a
# up to date with cuda/csrc (make rebuilds only what changed): a stale
# library would be linked as it is
if ! make -s -C cuda; then
	echo "gpu-build: the kernels did not build (make -C cuda; nvcc: scripts/install-cuda.sh)" >&2
	exit 1
fi
h=$(sha1sum "$lib" | cut -c1-16)
ld="-ldflags=-s -w -X=github.com/prooflane/prooflane/cuda.libHash=$h"
# `gpu-build.sh cli`: the CLI alone, into build/cli.
[ "${1:-}" = cli ] && out=build/cli
rm -rf "$out"
mkdir -p "$out"
go build -tags cuda "$ld" -o "$out/prooflane" ./cmd/prooflane
go test -c -tags cuda "$ld" -o "$out/cuda.test" ./cuda
if [ "${1:-}" != cli ]; then
	go test -c -tags cuda "$ld" -o "$out/groth16-cuda.test" ./stages/groth16
	go test -c -tags cuda "$ld" -o "$out/device-cuda.test" ./device/cuda
	go build -tags cuda "$ld" -o "$out/cudabench" ./cuda/cmd/cudabench
fi
git rev-parse HEAD >"$out/REVISION"
if ! git diff --quiet HEAD -- . ':!build'; then
	echo "dirty" >>"$out/REVISION" # built from uncommitted changes
fi
echo "$h" >"$out/LIBHASH"
for f in "$out"/*; do
	case $f in */REVISION | */LIBHASH) ;; *) gzip -9 "$f" ;; esac
done
total=$(du -cb "$out" | tail -1 | cut -f1)
ls -l "$out"
echo "gpu-build: $((total / 1024 / 1024)) MiB in $out (libprooflane_cuda.a $h, revision $(head -1 "$out/REVISION"))"
# The whole working tree travels too; leave it room under 64 MiB.
if [ "$total" -gt $((48 * 1024 * 1024)) ]; then
	echo "gpu-build: $out is over 48 MiB: too large to carry with the working tree (limit 64 MiB)" >&2
	exit 1
fi
