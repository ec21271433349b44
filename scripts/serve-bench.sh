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
#
# Your own circuit instead of a built-in one: CCS=FILE and WITNESSES=DIR
# (its witness-*.bin files, each a partition of every job; for instance
# go run ./examples/sizedcircuit -log 20 -witnesses 10 DIR). Then `prove
# --ccs --witness ...` runs the job JOBS times, and serve proves it JOBS
# times through `circuits add` and `submit --circuit-id --witness ...
# --await`, after a first job of each that is not counted; each side's
# proofs are checked by the command that writes them. A prove process
# also reads the key and loads it onto the device, which serve's workers
# keep resident: the ratio is taken against the proving time prove
# prints, and the table shows both.
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

# start_serve starts serve with INFLIGHT workers on the key cache and
# sets url; the trap stops it.
start_serve() {
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
}

# own_circuit is the run of CCS and WITNESSES (see the top).
own_circuit() {
	local ws=("$WITNESSES"/witness-*.bin) wflags=() i t0 t1
	[ -f "${ws[0]}" ] || {
		echo "serve-bench: no witness-*.bin in WITNESSES=$WITNESSES" >&2
		exit 2
	}
	for w in "${ws[@]}"; do wflags+=(--witness "$w"); done
	echo "== setup --ccs $CCS" >&2
	"$bin" setup --backend "$BACKEND" --ccs "$CCS" --pipeline "$PIPELINE" --keys "$KEYS" >"$OUT/setup.log" 2>&1 || {
		cat "$OUT/setup.log" >&2
		exit 1
	}
	echo "== prooflane prove, $JOBS jobs of ${#ws[@]} witnesses after a first" >&2
	: >"$OUT/prove.tsv"
	for i in $(seq 0 "$JOBS"); do
		t0=$(date +%s.%N)
		"$bin" prove --backend "$BACKEND" --pipeline "$PIPELINE" --ccs "$CCS" "${wflags[@]}" --keys "$KEYS" \
			--out "$OUT/prove-out" --progress off >"$OUT/prove.log" 2>&1 || {
			cat "$OUT/prove.log" >&2
			exit 1
		}
		t1=$(date +%s.%N)
		# prove's own line says how long the proving took, its process
		# and reading the key aside.
		[ "$i" -gt 0 ] && echo "$t0 $t1 $(sed -n 's/.* in \([0-9.]*\)s: .*/\1/p' "$OUT/prove.log")" >>"$OUT/prove.tsv"
	done
	echo "== prooflane serve, the same jobs" >&2
	start_serve
	id=$("$bin" circuits add --addr "$url" --ccs "$CCS" --pipeline "$PIPELINE" 2>>"$OUT/submit.log" | tail -1)
	[ -n "$id" ] || {
		echo "serve-bench: circuits add printed no id" >&2
		exit 1
	}
	: >"$OUT/serve.tsv"
	for i in $(seq 0 "$JOBS"); do
		t0=$(date +%s.%N)
		"$bin" submit --addr "$url" --circuit-id "$id" "${wflags[@]}" --keys "$KEYS" --await \
			--out "$OUT/serve-out" >"$OUT/submit.log" 2>&1 || {
			cat "$OUT/submit.log" "$OUT/serve.log" >&2
			exit 1
		}
		t1=$(date +%s.%N)
		[ "$i" -gt 0 ] && echo "$t0 $t1" >>"$OUT/serve.tsv"
	done
	kill $serve
	wait $serve 2>/dev/null
	{
		echo "### $(basename "$CCS") ($PIPELINE, $BACKEND): $JOBS jobs of ${#ws[@]} witnesses, one at a time"
		echo
		echo "| path | proofs | s/job | proofs/s |"
		echo "|---|---|---|---|"
		awk -v n="${#ws[@]}" '{ s += $2 - $1; j++ } END { printf "| prove --ccs (the process) | %d | %.2f | %.2f |\n", j * n, s / j, j * n / s }' "$OUT/prove.tsv"
		awk -v n="${#ws[@]}" '{ s += $3; j++ } END { printf "| prove --ccs (its proving, as it prints it) | %d | %.2f | %.2f |\n", j * n, s / j, j * n / s }' "$OUT/prove.tsv"
		awk -v n="${#ws[@]}" -v name=serve '{ s += $2 - $1; j++ } END { printf "| %s (submit --await) | %d | %.2f | %.2f |\n", name, j * n, s / j, j * n / s }' "$OUT/serve.tsv"
		echo
		awk 'NR == FNR { p += $3; next } { s += $2 - $1 } END { printf "serve/prove proofs/s, against prove'"'"'s proving: %.3f (%+.1f%%)\n", p / s, 100 * (p / s - 1) }' "$OUT/prove.tsv" "$OUT/serve.tsv"
	} | tee "$OUT/serve-bench.md"
}

if [ -n "${CCS:-}" ]; then
	[ -n "${WITNESSES:-}" ] || {
		echo "serve-bench: CCS needs WITNESSES=DIR" >&2
		exit 2
	}
	own_circuit
	exit 0
fi

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
start_serve
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
