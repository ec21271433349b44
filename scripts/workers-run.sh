#!/usr/bin/env bash
# workers-run.sh: a prove's synthesis workers against its makespan, and a
# setup that reuses the cached .r1cs against one that compiles, on the
# GPU machine (issue 15: "make synthesis use the cores well"). For each
# SIZES entry (circuit:log2, default chain:22): setup --backend cuda
# (compiles), the .pk removed and setup again (the .r1cs reused), then
# PARTS partitions proved with the layout's auto workers and with
# synth_workers=W, cpu_bandwidth=2W for each W in WORKERS, each analyzed.
# A table of the runs is printed last and left in $OUT/workers.md.
#
#   run(command: "bash scripts/workers-run.sh", carry: ["build/cli"])   # build/cli/prooflane.gz
#
# Env: BIN (a prooflane binary instead of build/cli's), BACKEND (cuda),
# SIZES, PARTS (8), WORKERS ("2 8": the auto counts of before, and twice auto's on 16 cores), BUDGET (s, default 240: a step that
# would not fit its estimate is skipped), KEYS (/tmp/workers-keys).
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/workers-out}
KEYS=${KEYS:-/tmp/workers-keys}
BUDGET=${BUDGET:-240}
BACKEND=${BACKEND:-cuda}
PARTS=${PARTS:-8}
began=$SECONDS
mkdir -p "$OUT" "$KEYS"
bin=${BIN:-}
if [ -z "$bin" ]; then
	bin=/tmp/workers-prooflane
	gunzip -c build/cli/prooflane.gz >"$bin" && chmod +x "$bin" || exit 1
fi
table=$OUT/workers.md
echo "| circuit, size | step | wall | makespan / proofs per minute | synthesize mean | GPU busy | note |" >"$table"
echo "|---|---|---|---|---|---|---|" >>"$table"

# step NAME ESTIMATE CMD...: runs CMD when ESTIMATE seconds fit the
# budget; its output in $OUT/NAME.log, its wall time in $wall.
step() {
	local name=$1 est=$2
	shift 2
	wall=-
	if [ $((BUDGET - (SECONDS - began))) -lt "$est" ]; then
		echo "== $name: skipped ($est s estimated, $((BUDGET - (SECONDS - began))) s left)"
		return 1
	fi
	local t0=$SECONDS
	timeout -k 5 $((est * 3)) "$@" >"$OUT/$name.log" 2>&1
	local rc=$?
	wall=$((SECONDS - t0))s
	echo "== $name: rc $rc, ${wall}"
	tail -2 "$OUT/$name.log" | sed 's/^/   /'
	return $rc
}

# row LABEL STEP [NOTE]: a prove's figures from analyze's summary.
row() {
	local label=$1 name=$2 note=${3:-}
	local a=$OUT/$name.analyze
	local mk tp syn busy
	mk=$(grep -m1 -oE "makespan [^ ]+" "$a" 2>/dev/null)
	tp=$(grep -m1 -oE "^throughput: [0-9.]+ proofs/min" "$a" 2>/dev/null | sed 's/throughput: //')
	syn=$(awk '$1 == "synthesize" {print $5; exit}' "$a" 2>/dev/null)
	busy=$(grep -m1 -oE "device 0: busy [0-9.]+%" "$a" 2>/dev/null | sed 's/device 0: busy //')
	mk="${mk:--} / ${tp:--}"
	echo "| $label | $name | $wall | ${mk:--} | ${syn:--} | ${busy:--} | $note |" >>"$table"
}

for entry in ${SIZES:-chain:22}; do
	circuit=${entry%%:*}
	l=${entry#*:}
	size=$((1 << l))
	label="$circuit 2^$l"
	# estimates on the H200 (docs/scale.md): setup 17 s at 2^22, 74 s at 2^24
	est=$((l >= 24 ? 90 : 25))
	# the first setup compiles: no .r1cs of an earlier call to reuse
	rm -f "$KEYS/$circuit-$size.r1cs"
	if step "setup-$circuit-$l" "$est" "$bin" setup --backend "$BACKEND" --circuit "$circuit" --size "2^$l" --keys "$KEYS" --force; then
		echo "| $label | setup (compiles) | $wall | - | - | - | $(grep -m1 -oE 'compile [^,]*, qap [^,]*, g1 [^,]*, g2 [^ ]*' "$OUT/setup-$circuit-$l.log") |" >>"$table"
		rm -f "$KEYS/$circuit-$size.pk"
		step "resetup-$circuit-$l" "$est" "$bin" setup --backend "$BACKEND" --circuit "$circuit" --size "2^$l" --keys "$KEYS"
		echo "| $label | setup, .pk removed (.r1cs reused) | $wall | - | - | - | $(grep -m1 -oE 'compile cached \([^)]*\), qap [^,]*, g1 [^,]*, g2 [^ ]*|compile skipped' "$OUT/resetup-$circuit-$l.log") |" >>"$table"
	else
		continue
	fi
	pest=$((l >= 24 ? 60 : 20))
	for w in auto ${WORKERS:-2 8}; do
		name=prove-$circuit-$l-$w
		set_args=()
		if [ "$w" != auto ]; then
			set_args=(--set "synth_workers=$w" --set "cpu_bandwidth=$((2 * w))")
		fi
		rm -rf "/tmp/$name"
		if step "$name" "$pest" "$bin" prove --backend "$BACKEND" --circuit "$circuit" --size "2^$l" --keys "$KEYS" \
			--partitions "$PARTS" --out "/tmp/$name" --progress off "${set_args[@]}"; then
			"$bin" analyze "/tmp/$name/trace.jsonl" >"$OUT/$name.analyze" 2>&1
			"$bin" verify --keys "$KEYS" "/tmp/$name" >>"$OUT/$name.log" 2>&1 && v="verified" || v="VERIFY FAILED"
			row "$label" "$name" "synth_workers $w, $PARTS partitions, $v"
		fi
	done
done
echo
cat "$table"
