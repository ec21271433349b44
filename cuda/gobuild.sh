#!/usr/bin/env bash
# gobuild.sh OUTDIR: builds the cuda test binaries and cudabench into OUTDIR,
# relinking whenever build/libprooflane_cuda.a changed (Go's build cache
# does not track the library: the -X value carries its hash).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-cuda/build/bin}
mkdir -p "$out"
h=$(sha1sum cuda/build/libprooflane_cuda.a | cut -c1-16)
ld="-ldflags=-X=github.com/prooflane/prooflane/cuda.libHash=$h"
go test -c -tags cuda "$ld" -o "$out/cuda.test" ./cuda
go test -c -tags cuda "$ld" -o "$out/device.test" ./device/cuda
go build -tags cuda "$ld" -o "$out/cudabench" ./cuda/cmd/cudabench
echo "built with libprooflane_cuda.a $h"
