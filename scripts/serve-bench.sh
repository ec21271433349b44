#!/usr/bin/env bash
# serve-bench.sh: the same Groth16 bench twice on one machine, through
# `prooflane bench` (one process, jobs straight on the engine) and through
# `prooflane serve` (submit and await over the API, the durable queue and a
# worker), and both tables with their ratio: what the service costs.
#
# Usage: bash scripts/serve-bench.sh
#
# Both runs use one key cache (set up first, outside the timings), the
# same pipeline, circuit, size, jobs x partitions and jobs in flight
# (bench --inflight = serve --workers = loadtest --concurrency), and each
# leaves its first job out (bench warms up; loadtest runs one job first).
#
# Environment: BIN (the prooflane binary; default build/gpu/prooflane, else
# prooflane on PATH), BACKEND (cuda), CIRCUIT (chain), SIZE (2^20), JOBS
# (3), PARTITIONS (10), INFLIGHT (3), PIPELINE (groth16), KEYS
# (/tmp/prooflane-keys), OUT (/tmp/serve-bench-out).
# Without a GPU: BACKEND=cpu SIZE=2^10 bash scripts/serve-bench.sh
set -u -o pipefail
cd "$(dirname "$0")/.."
BACKEND=${BACKEND:-cuda}
CIRCUIT=${CIRCUIT:-chain}
SIZE=${SIZE:-2^20}
JOBS=${JOBS:-3}
PARTITIONS=${PARTITIONS:-10}
INFLIGHT=${INFLIGHT:-3}
PIPELINE=${PIPELINE:-groth16}
KEYS=${KEYS:-/tmp/prooflane-keys}
OUT=${OUT:-/tmp/serve-bench-out}
mkdir -p "$OUT" "$KEYS"

bin=${BIN:-}
if [ -z "$bin" ]; then
	if [ -x build/gpu/prooflane ]; then
		bin=$PWD/build/gpu/prooflane
	elif command -v prooflane >/dev/null; then
		bin=$(command -v prooflane)
	else
		echo "serve-bench: no prooflane: set BIN, build build/gpu (scripts/gpu-build.sh) or put it on PATH" >&2
		exit 2
	fi
fi
common=(--circuit "$CIRCUIT" --size "$SIZE" --keys "$KEYS")

echo "== setup $CIRCUIT $SIZE" >&2
"$bin" setup "${common[@]}" >"$OUT/setup.log" 2>&1 || {
	cat "$OUT/setup.log" >&2
	exit 1
}

echo "== prooflane bench" >&2
"$bin" bench --backend "$BACKEND" "${common[@]}" --jobs "$JOBS" --partitions "$PARTITIONS" --inflight "$INFLIGHT" \
	"$PIPELINE" >"$OUT/bench.md" 2>"$OUT/bench.log" || {
	cat "$OUT/bench.log" >&2
	exit 1
}
echo "== prooflane serve + loadtest" >&2
data=$(mktemp -d)
"$bin" serve --backend "$BACKEND" --workers "$INFLIGHT" --keys "$KEYS" --data "$data" \
	--addr 127.0.0.1:0 --nats-listen none 2>"$OUT/serve.log" &
serve=$!
trap 'kill $serve 2>/dev/null; rm -rf "$data"' EXIT
url=""
for _ in $(seq 1 600); do
	url=$(sed -n 's/^prooflane serve: listening on //p' "$OUT/serve.log")
	[ -n "$url" ] && break
	kill -0 $serve 2>/dev/null || break
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "serve-bench: serve did not start:" >&2
	cat "$OUT/serve.log" >&2
	exit 1
fi
"$bin" loadtest --addr "$url" --pipeline "$PIPELINE" "${common[@]}" --jobs "$JOBS" --partitions "$PARTITIONS" \
	--concurrency "$INFLIGHT" --verify=false --json >"$OUT/serve.json" 2>"$OUT/loadtest.log" || {
	cat "$OUT/loadtest.log" "$OUT/serve.log" >&2
	exit 1
}
kill $serve
wait $serve 2>/dev/null

# proofs/s of the bench table's pipeline row, and of the loadtest run.
bench_ps=$(awk -F'|' -v pipe="$PIPELINE" '{ l = $2; gsub(/ /, "", l) } l == pipe { gsub(/ /, "", $5); print $5; exit }' "$OUT/bench.md")
serve_jps=$(tr -d ' \n' <"$OUT/serve.json" | sed -n 's/.*"jobs_per_s":\([^,}]*\).*/\1/p')
ns() { tr -d ' \n' <"$OUT/serve.json" | sed -n 's/.*"'"$1"'":\([0-9]*\).*/\1/p'; }
p50=$(ns p50_ns)
p99=$(ns p99_ns)
{
	echo "### prooflane bench ($BACKEND, $CIRCUIT $SIZE, $JOBS jobs x $PARTITIONS partitions, $INFLIGHT in flight)"
	echo
	cat "$OUT/bench.md"
	echo
	echo "### through prooflane serve (submit/await, the same jobs)"
	echo
	echo "| layout | proofs | s/proof | proofs/s | p50 job | p99 job |"
	echo "|---|---|---|---|---|---|"
	awk -v jps="$serve_jps" -v parts="$PARTITIONS" -v jobs="$JOBS" -v pipe="$PIPELINE" -v p50="$p50" -v p99="$p99" 'BEGIN {
		ps = jps * parts
		printf "| %s via serve | %d | %.3f | %.2f | %.2f s | %.2f s |\n", pipe, jobs * parts, 1 / ps, ps, p50 / 1e9, p99 / 1e9
	}'
	echo
	awk -v b="$bench_ps" -v s="$serve_jps" -v parts="$PARTITIONS" 'BEGIN {
		if (b > 0) printf "serve/bench proofs/s: %.3f (%.1f%%)\n", s * parts / b, 100 * (s * parts / b - 1)
	}'
} | tee "$OUT/serve-bench.md"
