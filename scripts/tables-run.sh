#!/usr/bin/env bash
# tables-run.sh: the GPU run of the precomputed MSM tables (issue 14, v6
# in docs/cuda-perf-notes.md), from the repo root, with the binaries of
# scripts/gpu-build.sh in build/gpu/:
#
#   run(command: "bash scripts/tables-run.sh", carry: ["build/gpu"], timeout_s: 600)
#
# 1. stages/groth16's tests with the CUDA backend (every proof verified by
#    gnark; the shipped layouts' tables: auto builds the tables);
# 2. the cuda package's table and MSM tests against gnark-crypto up to
#    2^MAXLOG (default 24);
# 3. chain at 2^20: setup, `prooflane bench` of the four layouts (tables:
#    auto), then groth16.yaml with tables=off (the ratio, same run), then
#    groth16.yaml with synth_workers=8 cpu_bandwidth=16.
# Results in $OUT, printed last.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tables-out}
KEYS=${KEYS:-/tmp/prooflane-keys}
bin=/tmp/prooflane-gpu-bin
mkdir -p "$OUT" "$KEYS" "$bin"
for f in prooflane groth16-cuda.test cuda.test; do
	gunzip -c "build/gpu/$f.gz" >"$bin/$f" && chmod +x "$bin/$f" || exit 1
done
began=$SECONDS
say() { echo "== $* ($((SECONDS - began))s)"; }
(cd stages/groth16 && timeout "${TGROTH:-150}" "$bin/groth16-cuda.test" -test.short >"$OUT/groth16-tests.txt" 2>&1)
say "groth16 cuda tests rc=$?"
tail -3 "$OUT/groth16-tests.txt"
PROOFLANE_CUDA_TEST_MAXLOG=${MAXLOG:-24} timeout "${TCUDA:-170}" "$bin/cuda.test" -test.run 'TestMSMTable|TestMSMG1|TestSum$' -test.v >"$OUT/cuda-tests.txt" 2>&1
say "cuda tests rc=$?"
grep -E "^(--- |ok|FAIL|PASS)|differs|panic" "$OUT/cuda-tests.txt" | head
timeout 100 "$bin/prooflane" setup --backend cuda --circuit chain --size '2^20' --keys "$KEYS" >"$OUT/setup.log" 2>&1
say "setup rc=$?"
bench=("$bin/prooflane" bench --backend cuda --circuit chain --size '2^20' --keys "$KEYS" --partitions 10 --jobs 6 --inflight 3)
timeout 150 "${bench[@]}" pipelines/groth16.yaml pipelines/groth16-single-lock.yaml pipelines/groth16-dual-worker.yaml pipelines/groth16-two-lock.yaml >"$OUT/e2e-auto.md" 2>"$OUT/bench.log"
say "bench four layouts (tables auto) rc=$?"
timeout 60 "${bench[@]}" --set tables=off pipelines/groth16.yaml >"$OUT/e2e-off.md" 2>>"$OUT/bench.log"
say "bench tables=off rc=$?"
timeout 60 "${bench[@]}" --set synth_workers=8 --set cpu_bandwidth=16 pipelines/groth16.yaml >"$OUT/e2e-synth8.md" 2>>"$OUT/bench.log"
say "bench synth_workers=8 rc=$?"
grep -iE "verified|table|error" "$OUT/bench.log" | sort | uniq -c | head
for f in "$OUT"/e2e-*.md; do
	echo "### $(basename "$f" .md)"
	cat "$f"
done
