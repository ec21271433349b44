#!/usr/bin/env bash
# run-gpu.sh: what one call on the GPU machine runs, from the repo root:
# unpack the binaries carried in cuda/build/carry (built here with
# cuda/gobuild.sh, then gzip), correctness up to 2^MAXLOG, then the
# benchmark table (printed last). Results land in $OUT.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b
for f in cuda/build/carry/*.gz; do gunzip -c "$f" >"/tmp/b/$(basename "$f" .gz)"; done
chmod +x /tmp/b/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
PROOFLANE_CUDA_TEST_MAXLOG=${MAXLOG:-24} timeout "${TEST_TIMEOUT:-300}" /tmp/b/cuda.test -test.v -test.timeout 290s >"$OUT/test.log" 2>&1
echo "cuda tests rc=$?"
grep -E "^(--- |FAIL|ok|PASS|panic)| ok$|upload \[" "$OUT/test.log"
timeout 120 /tmp/b/device.test -test.v -test.run CUDA >"$OUT/device.log" 2>&1
echo "device tests rc=$?"
grep -E "^(--- |FAIL|PASS)" "$OUT/device.log"
# shellcheck disable=SC2086
PROOFLANE_CUDA_PROFILE=1 timeout "${BENCH_TIMEOUT:-300}" /tmp/b/cudabench ${BENCH_ARGS:-} -o "$OUT/table.md" >"$OUT/bench.log" 2>&1
echo "bench rc=$?"
grep "^profile" "$OUT/bench.log" | awk '!seen[$3 $4]++'
cat "$OUT/table.md"
