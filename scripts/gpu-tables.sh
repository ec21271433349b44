#!/usr/bin/env bash
# gpu-tables.sh: the run on the GPU machine that made the tables in
# docs/cuda-benchmarks.md (v4) and docs/groth16.md ("GPU end to end"), from
# the repo root, with the binaries of scripts/gpu-build.sh in build/gpu/:
#
#   run(command: "bash scripts/gpu-tables.sh", carry: ["build/gpu"], timeout_s: 600)
#
# 1. cudabench -reps 3 (kernels against gnark-crypto on the host cores);
# 2. for sha256 and chain at 2^20: setup, then `prooflane bench` of the four
#    shipped layouts and gnark (10 partitions per job, 6 jobs, 3 in
#    flight), then groth16.yaml with synth_workers=4 cpu_bandwidth=8 and
#    with resident=3.
# About 380 s on the H200 plus the machine's start. Tables land in $OUT
# and are printed last. CUDABENCH_ARGS (default "-reps 3") replaces
# cudabench's flags, e.g. "-reps 3 -distinct 0" for bases that do not
# repeat (the committed v4 table repeats 4096).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-tables-out}
KEYS=${KEYS:-/tmp/prooflane-keys}
bin=/tmp/prooflane-gpu-bin
mkdir -p "$OUT" "$KEYS" "$bin"
for f in prooflane cudabench; do
	if [ ! -f "build/gpu/$f.gz" ]; then
		echo "gpu-tables: build/gpu/$f.gz is missing: run scripts/gpu-build.sh here and carry build/gpu" >&2
		exit 1
	fi
	gunzip -c "build/gpu/$f.gz" >"$bin/$f"
	chmod +x "$bin/$f"
done
began=$SECONDS
say() { echo "== $* ($((SECONDS - began))s)"; }

# shellcheck disable=SC2086
PROOFLANE_CUDA_PROFILE=1 timeout 150 "$bin/cudabench" ${CUDABENCH_ARGS:--reps 3} -o "$OUT/kernels.md" >"$OUT/kernels.log" 2>&1
say "cudabench rc=$?"
grep "^profile" "$OUT/kernels.log" | awk '!seen[$3 $4]++'

layouts=(pipelines/groth16.yaml pipelines/groth16-single-lock.yaml pipelines/groth16-dual-worker.yaml pipelines/groth16-two-lock.yaml)
for c in sha256 chain; do
	timeout 150 "$bin/prooflane" setup --circuit "$c" --size '2^20' --keys "$KEYS" >>"$OUT/setup.log" 2>&1
	say "setup $c rc=$?"
	bench=("$bin/prooflane" bench --backend cuda --circuit "$c" --size '2^20' --keys "$KEYS" --partitions 10 --jobs 6 --inflight 3)
	timeout 150 "${bench[@]}" --gnark 3 "${layouts[@]}" >"$OUT/e2e-$c.md" 2>>"$OUT/bench.log"
	say "bench $c rc=$?"
	timeout 60 "${bench[@]}" --set synth_workers=4 --set cpu_bandwidth=8 pipelines/groth16.yaml >"$OUT/e2e-$c-synth4.md" 2>>"$OUT/bench.log"
	say "bench $c synth_workers=4 rc=$?"
	timeout 60 "${bench[@]}" --set resident=3 pipelines/groth16.yaml >"$OUT/e2e-$c-resident3.md" 2>>"$OUT/bench.log"
	say "bench $c resident=3 rc=$?"
done
grep -E "verified|gnark:" "$OUT/bench.log"
cat "$OUT/kernels.md"
for f in "$OUT"/e2e-*.md; do
	echo "### $(basename "$f" .md)"
	cat "$f"
done
