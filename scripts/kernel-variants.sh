#!/usr/bin/env bash
# kernel-variants.sh: A/B measurements of kernel changes. Each variant is
# the kernels library built with extra nvcc defines (the PL_* knobs in
# cuda/csrc: PL_SEG, PL_G1_BLOCKS, PL_BA_BLOCKS, PL_BA_SLOTS,
# PL_WINDOW_CHUNK, PL_PLAIN_ARITHMETIC, PL_SQR_CALL, PL_FR_LOW_LIMBS,
# PL_FR_HI1_BORROW, PL_Y3_LAZY, PL_NTT_LOW_SUB, PL_NTT_SWIZZLE,
# PL_NTT_TILE_LOG, PL_NTT_MINBLOCKS, ...) or the kernels of another commit,
# linked into its own cudabench; `run` times every variant in alternation
# on the same inputs (the same -seed) and reports a variant whose results
# differ from the base build's.
#
# Usage:
#   bash scripts/kernel-variants.sh build [NAME=DEFINES | NAME=@REV ...]
#   bash scripts/kernel-variants.sh run
#
# `build` (needs Go and nvcc, no GPU) writes build/variants/NAME for each
# variant and `base` (no defines), always built. NAME=@REV builds the
# kernels of commit REV with this tree's cgo side and cudabench (cuda/api.h
# must not have changed between them): the "before" of an A/B. With no
# variants it builds the list below. `run` (on the GPU) takes ARGS
# (cudabench's flags), ROUNDS (2) or ROUND (one round of that number),
# SEED, VARIANT_TIMEOUT (seconds a run, 150) and OUT (/tmp/kv-out), and
# prints each variant's rows side by side for the last round.
#
# docs/design/ says which variants were measured and what they showed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/variants

default_variants=(
	# window-reduction chunks of at most 8 buckets (msm_window_chunk's cap
	# is 16)
	"chunk8=-DPL_WINDOW_CHUNK=8"
	# a fixed segment cap of 128 points instead of msm_seg_cap's
	"seg128=-DPL_SEG=128"
	# the G1 accumulation at 4 blocks an SM (128 registers) instead of 5
	"g1b4=-DPL_G1_BLOCKS=4"
)

build() {
	local variants=("$@")
	[ ${#variants[@]} -eq 0 ] && variants=("${default_variants[@]}")
	variants=("base=" "${variants[@]}")
	local lib=cuda/build/libprooflane_cuda.a
	# The library of cuda/build is swapped for each variant's while its
	# cudabench links, and put back whatever happens.
	make -C cuda >/dev/null
	cp "$lib" /tmp/kv-main.a
	trap 'cp /tmp/kv-main.a '"$lib" EXIT
	rm -rf "$dir"
	mkdir -p "$dir"
	for v in "${variants[@]}"; do
		local name=${v%%=*} defs=${v#*=}
		echo "kernel-variants: $name ($defs)"
		if [ "${defs#@}" != "$defs" ]; then
			# NAME=@REV: the kernels of commit REV (csrc at REV, cgo and
			# cudabench of the working tree: api.h must not have changed)
			rm -rf "/tmp/kv-src-$name"
			mkdir -p "/tmp/kv-src-$name"
			git archive "${defs#@}" cuda | tar -x -C "/tmp/kv-src-$name"
			make -s -C "/tmp/kv-src-$name/cuda" -j2 BUILD="/tmp/kv-$name" >/dev/null
		else
			make -s -C cuda -j2 BUILD="/tmp/kv-$name" NVCCEXTRA="$defs" >/dev/null
		fi
		cp "/tmp/kv-$name/libprooflane_cuda.a" "$lib"
		local h
		h=$(sha1sum "$lib" | cut -c1-16)
		go build -tags cuda -ldflags="-s -w -X=github.com/prooflane/prooflane/cuda.libHash=$h" -o "$dir/$name" ./cmd/cudabench
		echo "$defs" >"$dir/$name.defines"
	done
	git rev-parse HEAD >"$dir/REVISION"
	git diff --quiet HEAD -- cuda cmd/cudabench || echo dirty >>"$dir/REVISION"
	du -sh "$dir"
}

# run: every variant's cudabench, ROUNDS rounds in alternation, the same
# seed; then each variant's rows side by side and whether its results
# equal base's.
run() {
	local out=${OUT:-/tmp/kv-out} seed=${SEED:-20261201}
	local args=${ARGS:--cpu=false -reps 3 -ntt= -g1 20,22,24 -t 22 -g2 20,22 -t2 20}
	mkdir -p "$out"
	local names=()
	for f in "$dir"/*; do
		[ -x "$f" ] && [ -f "$f" ] && names+=("$(basename "$f")")
	done
	if [ ${#names[@]} -eq 0 ]; then
		echo "kernel-variants: no builds in $dir: run bash scripts/kernel-variants.sh build first" >&2
		exit 1
	fi
	# ROUND runs one round (numbered so, for a second call), else ROUNDS
	local rounds
	rounds=${ROUND:-$(seq 1 "${ROUNDS:-2}")}
	for round in $rounds; do
		for n in "${names[@]}"; do
			# shellcheck disable=SC2086
			local rc=0
			timeout "${VARIANT_TIMEOUT:-150}" "$dir/$n" $args -seed "$seed" >"$out/$n-$round.md" 2>"$out/$n-$round.err" || rc=$?
			echo "variant $n round $round rc=$rc"
		done
	done
	local last
	for round in $rounds; do
		last=$round
		for n in "${names[@]}"; do
			if ! cmp -s <(grep '^result' "$out/base-$round.err") <(grep '^result' "$out/$n-$round.err"); then
				echo "variant $n round $round: results DIFFER from base"
			fi
			if grep -q MISMATCH "$out/$n-$round.md"; then
				echo "variant $n round $round: a table MSM differs from the plain one (MISMATCH)"
			fi
		done
	done
	echo
	echo "round $last:"
	echo "| op | size | note | $(printf '%s | ' "${names[@]}")"
	echo "|---|---|---|$(printf -- '---|%.0s' "${names[@]}")"
	paste -d'\t' $(for n in "${names[@]}"; do echo "$out/$n-$last.md"; done) | awk -F'\t' '
		/^\| (msm|sum|ntt|fr)/ {
			split($1, a, "|"); row = "| " trim(a[2]) " | " trim(a[3]) " | " trim(a[7]) " |"
			for (i = 1; i <= NF; i++) { split($i, b, "|"); row = row " " trim(b[4]) " |" }
			print row
		}
		function trim(s) { gsub(/^ +| +$/, "", s); return s }'
}

case "${1:-}" in
build) shift; build "$@" ;;
run) run ;;
*) echo "usage: kernel-variants.sh build [NAME=DEFINES ...] | run" >&2; exit 2 ;;
esac
