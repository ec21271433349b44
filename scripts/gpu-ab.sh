#!/usr/bin/env bash
# gpu-ab.sh: an A/B end-to-end run on the GPU machine: the same Groth16
# bench with an earlier build (A) and the current one (B), alternating, in
# one device call, so that the machine's drift falls on both alike. Build
# both here with scripts/gpu-build.sh (move the earlier one's build/gpu to
# build/gpu-old first), then carry both:
#
#   run(command: "bash scripts/gpu-ab.sh", carry: ["build/gpu-old", "build/gpu"], timeout_s: 600)
#
# Steps: B's cuda-tagged tests (TESTS=0 skips them), a key setup per build
# (their key files may differ in format, so each has its own cache), then
# ROUNDS rounds of `bench` (A then B) over LAYOUTS. Tables land in $OUT and
# are printed last. Environment: OUT, SIZE (2^20), CIRCUIT (chain), ROUNDS
# (2), JOBS (6), TESTS (1), SHARE_KEYS (0), SETUP_FLAGS (e.g. "--backend
# cuda": the key made on the GPU, seconds instead of a minute), LAYOUTS (the four shipped Groth16 layouts).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-ab-out}
SIZE=${SIZE:-2^20}
CIRCUIT=${CIRCUIT:-chain}
ROUNDS=${ROUNDS:-2}
JOBS=${JOBS:-6}
TESTS=${TESTS:-1}
SETUP_FLAGS=${SETUP_FLAGS:-}
LAYOUTS=${LAYOUTS:-pipelines/groth16.yaml pipelines/groth16-single-lock.yaml pipelines/groth16-dual-worker.yaml pipelines/groth16-two-lock.yaml}
mkdir -p "$OUT"
began=$SECONDS
say() { echo "== $* ($((SECONDS - began))s)"; }
for side in old new; do
	src=build/gpu
	[ "$side" = old ] && src=build/gpu-old
	mkdir -p "/tmp/ab-$side"
	for f in "$src"/*.gz; do
		gunzip -c "$f" >"/tmp/ab-$side/$(basename "$f" .gz)"
	done
	chmod +x /tmp/ab-"$side"/*
	echo "$side: $(tr '\n' ' ' <"$src/REVISION")" | tee -a "$OUT/revisions.txt"
done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$OUT/revisions.txt"

if [ "$TESTS" = 1 ]; then
	for t in /tmp/ab-new/*.test; do
		# stages/groth16's tests find ../../pipelines from there; the
		# device tests need no files.
		(cd stages/groth16 && timeout 240 "$t" -test.run CUDA -test.v -test.timeout 230s) >>"$OUT/tests.log" 2>&1
		say "tests $(basename "$t") rc=$?"
	done
	grep -E "^(--- FAIL|FAIL|ok|PASS|panic)" "$OUT/tests.log" | sort | uniq -c
fi

# SHARE_KEYS=1: both builds read the same key format, so the key is set
# up once, by the new build, and the old one reads it (saves a setup).
sides="old new"
if [ "${SHARE_KEYS:-0}" = 1 ]; then
	sides=new
	ln -sfn /tmp/ab-keys-new /tmp/ab-keys-old
fi
for side in $sides; do
	# shellcheck disable=SC2086
	timeout 170 "/tmp/ab-$side/prooflane" setup $SETUP_FLAGS --circuit "$CIRCUIT" --size "$SIZE" --keys "/tmp/ab-keys-$side" >>"$OUT/setup.log" 2>&1
	say "setup $side rc=$?"
done
for r in $(seq 1 "$ROUNDS"); do
	for side in old new; do
		# shellcheck disable=SC2086
		timeout 150 "/tmp/ab-$side/prooflane" bench --backend cuda --circuit "$CIRCUIT" --size "$SIZE" \
			--keys "/tmp/ab-keys-$side" --partitions 10 --jobs "$JOBS" --inflight 3 $LAYOUTS \
			>"$OUT/bench-$side-$r.md" 2>>"$OUT/bench.log"
		say "bench $side round $r rc=$?"
	done
done
grep -iE "verified|fail|error" "$OUT/bench.log" | sort | uniq -c | head -20
for f in "$OUT"/bench-*.md; do
	echo "### $(basename "$f" .md)"
	cat "$f"
done
