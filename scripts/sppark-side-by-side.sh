#!/usr/bin/env bash
# sppark-side-by-side.sh: prooflane's kernels and supranational/sppark's
# timed on this machine's GPU on the same inputs, each sppark result checked
# against prooflane's, in both orders (so that neither side always runs on a
# warmer GPU).
#
# Usage: bash scripts/sppark-side-by-side.sh             (BLS12-381)
#        CURVE=bn254 bash scripts/sppark-side-by-side.sh (BN254)
#
# Needs build/gpu/cudabench (bash scripts/gpu-build.sh) and the curve's
# harness, build/sppark/sppark-bench or build/sppark/sppark-bench-bn254
# (bash scripts/sppark-build.sh, which says how to get sppark's and
# blst's sources). From the repository's root, cudabench with -curve
# $CURVE:
#
#   prooflane-1  cudabench $CUDABENCH_ARGS -dump DUMP: prooflane's table,
#                and the inputs and results for sppark (docs/gpu.md)
#   sppark-1     sppark-bench DUMP: sppark on the same inputs, checked
#   sppark-2     sppark-bench again, first this time
#   prooflane-2  cudabench $CUDABENCH_ARGS again without -dump (the same
#                -seed gives the same inputs: its result lines must be
#                prooflane-1's)
#
# then the tables and, last, the ratio table (prooflane ms / sppark ms, for
# each of the two orders) in $OUT/side-by-side.md (default
# /tmp/sppark-sbs-out, /tmp/sppark-sbs-out-bn254 for BN254), with every
# step's table and log in $OUT/results.tgz. Each step runs under a
# timeout; a failed step is reported and the next one runs. About 3
# minutes on an H100 or H200 a curve.
#
# Environment: CURVE (bls12-381, the default, or bn254), CUDABENCH_ARGS
# (cudabench's flags but -curve; by default every base distinct, as in a
# proving key, and G1 and G2 over precomputed tables too, which sppark has
# no counterpart for), REPS (7), SEED (14), STEPS (the steps to run now,
# default all four), WORK (default /tmp/sppark-sbs, /tmp/sppark-sbs-bn254
# for BN254: a step that ended well there is not run again; FRESH=1
# starts over), CUDABENCH and SPPARK_BENCH (the binaries).
set -u -o pipefail
cd "$(dirname "$0")/.."
CURVE=${CURVE:-bls12-381}
case $CURVE in
bls12-381) suffix= ;;
bn254) suffix=-bn254 ;;
*)
	echo "sppark-side-by-side: CURVE=$CURVE: want bls12-381 or bn254" >&2
	exit 2
	;;
esac
OUT=${OUT:-/tmp/sppark-sbs-out$suffix}
WORK=${WORK:-/tmp/sppark-sbs$suffix}
REPS=${REPS:-7}
SEED=${SEED:-14}
# -reps 7: G1 and the tables median of 7, G2 of 3 (cudabench times G2 reps/2 times)
CUDABENCH_ARGS=${CUDABENCH_ARGS:--cpu=false -reps $REPS -seed $SEED -distinct 0 -nttall -ntt 20,22,24 -g1 20,22,24 -g2 20,22 -t 16,18,20,22 -t2 16,18,20}
CUDABENCH_ARGS="-curve $CURVE $CUDABENCH_ARGS"
CUDABENCH=${CUDABENCH:-build/gpu/cudabench}
SPPARK_BENCH=${SPPARK_BENCH:-build/sppark/sppark-bench$suffix}
began=$SECONDS
if [ "${FRESH:-0}" = 1 ]; then
	rm -rf "$WORK"
fi
mkdir -p "$OUT" "$WORK"
dump=$WORK/dump
say() { echo "== $* ($((SECONDS - began)) s)"; }

for f in "$CUDABENCH" "$SPPARK_BENCH"; do
	if [ ! -x "$f" ]; then
		echo "sppark-side-by-side: $f is missing: run bash scripts/gpu-build.sh and bash scripts/sppark-build.sh first" >&2
		exit 1
	fi
done
cat build/gpu/REVISION build/sppark/REVISION 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader

# step NAME LIMIT CMD...: runs CMD under a timeout of LIMIT s, stdout in
# WORK/NAME.out, stderr in WORK/NAME.err, its exit status in WORK/NAME.rc;
# NAME.ok once it exited 0. A step that is ok is not run again.
step() {
	local name=$1 limit=$2
	shift 2
	if [ -f "$WORK/$name.ok" ]; then
		say "$name: ok earlier, not run again"
		return
	fi
	case " ${STEPS:-prooflane-1 sppark-1 sppark-2 prooflane-2} " in
	*" $name "*) ;;
	*)
		say "$name: not in STEPS, not run now"
		return
		;;
	esac
	timeout -k 10 "$limit" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	local rc=$?
	echo "$rc" >"$WORK/$name.rc"
	case $rc in
	0) touch "$WORK/$name.ok" ;;
	124 | 137) echo "   timed out after ${limit}s" ;;
	esac
	say "$name: rc $rc"
	tail -3 "$WORK/$name.err" | sed 's/^/   /'
}

# prooflane-1 makes the dump and its results together: a rerun of it
# starts from an empty dump, so that files and result lines agree, and
# sppark's steps run again on the new one.
if [ ! -f "$WORK/prooflane-1.ok" ]; then
	rm -rf "$dump" "$WORK"/sppark-*.ok
fi
# shellcheck disable=SC2086
step prooflane-1 600 "$CUDABENCH" $CUDABENCH_ARGS -dump "$dump" -o "$WORK/prooflane-1.md"
if [ -d "$dump" ]; then
	# even after a failed prooflane-1: the rows it finished are checked
	step sppark-1 300 "$SPPARK_BENCH" "$dump" "$WORK/prooflane-1.out" "$REPS"
	step sppark-2 300 "$SPPARK_BENCH" "$dump" "$WORK/prooflane-1.out" "$REPS"
else
	say "sppark-1, sppark-2: no dump from prooflane-1"
fi
# shellcheck disable=SC2086
step prooflane-2 600 "$CUDABENCH" $CUDABENCH_ARGS -o "$WORK/prooflane-2.md"

# table NAME: a step's markdown table (sppark-bench's is its stdout)
table() {
	case $1 in
	prooflane-*) cat "$WORK/$1.md" 2>/dev/null ;;
	*) grep '^|' "$WORK/$1.out" 2>/dev/null ;;
	esac
}

# ratios: for each sppark row, prooflane's time for the same op and size
# over sppark's, in the order prooflane first (pass 1) and sppark first
# (pass 2); and prooflane's best table MSM (-t/-t2) of pass 1.
ratios() {
	awk -F'|' '
	function trim(s) { gsub(/^ +| +$/, "", s); return s }
	function ms(s) { s = trim(s); if (s !~ / ms$/) return 0; sub(/ ms$/, "", s); return s + 0 }
	function fmt(v) { return v == 0 ? "-" : sprintf(v < 10 ? "%.3f" : "%.1f", v) }
	function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2fx", a / b) : "-" }
	{ for (i = 1; i < ARGC; i++) if (FILENAME == ARGV[i]) file = i }
	NF < 6 || $2 ~ /^ *(op|-+) *$/ { next }
	{ op = trim($2); size = trim($3); k = op SUBSEP size }
	file <= 2 {   # prooflane-1, prooflane-2: | op | size | GPU | CPU | speed-up | note |
		t = ms($4)
		if (t > 0 && !((file, k) in p)) p[file, k] = t
		if (op ~ / table$/ && t > 0) {
			b = substr(op, 1, length(op) - 6) SUBSEP size
			if (file == 1 && (!(b in best) || t < best[b])) { best[b] = t; bestc[b] = trim($7); sub(/,.*/, "", bestc[b]) }
		}
		next
	}
	{   # sppark-1, sppark-2: | op | size | sppark | check | note |
		s = file - 2
		sp[s, k] = ms($4); chk[s, k] = trim($5)
		if (!(k in seen)) { keys[++nk] = k; seen[k] = 1 }
	}
	END {
		print "| op | size | prooflane (1 / 2) | sppark (1 / 2) | prooflane / sppark (1: prooflane first / 2: sppark first) | prooflane table, best (pass 1) | table / sppark (1) | sppark check (1 / 2) |"
		print "|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, SUBSEP)
			tb = (k in best) ? fmt(best[k]) " ms (" bestc[k] ")" : "-"
			printf "| %s | %s | %s / %s ms | %s / %s ms | %s / %s | %s | %s | %s / %s |\n", f[1], f[2],
				fmt(p[1, k]), fmt(p[2, k]), fmt(sp[1, k]), fmt(sp[2, k]),
				ratio(p[1, k], sp[1, k]), ratio(p[2, k], sp[2, k]),
				tb, ratio(best[k], sp[1, k]),
				((1, k) in chk) ? chk[1, k] : "-", ((2, k) in chk) ? chk[2, k] : "-"
		}
	}' "$WORK/prooflane-1.md.t" "$WORK/prooflane-2.md.t" "$WORK/sppark-1.md.t" "$WORK/sppark-2.md.t"
}

for s in prooflane-1 prooflane-2 sppark-1 sppark-2; do
	table "$s" >"$WORK/$s.md.t"
done
{
	echo "# prooflane and sppark side by side: $CURVE"
	echo
	echo '```'
	cat build/gpu/REVISION build/sppark/REVISION 2>/dev/null
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null
	for s in prooflane-1 sppark-1 sppark-2 prooflane-2; do
		echo "$s: rc $(cat "$WORK/$s.rc" 2>/dev/null || echo 'not run')"
	done
	# cudabench prints its result lines on stderr too
	r1=$(grep -s '^result ' "$WORK/prooflane-1.err")
	r2=$(grep -s '^result ' "$WORK/prooflane-2.err")
	if [ -z "$r1" ] || [ -z "$r2" ]; then
		echo "prooflane-2's MSM results against prooflane-1's (same -seed): not both there"
	elif [ "$r1" = "$r2" ]; then
		echo "prooflane-2's MSM results against prooflane-1's (same -seed): equal ($(echo "$r1" | wc -l) lines)"
	else
		echo "prooflane-2's MSM results against prooflane-1's (same -seed): DIFFERENT"
	fi
	echo '```'
	for s in prooflane-1 sppark-1 sppark-2 prooflane-2; do
		echo
		echo "## $s"
		echo
		if [ -s "$WORK/$s.md.t" ]; then cat "$WORK/$s.md.t"; else echo "(no table)"; fi
	done
	echo
	echo "## ratio: prooflane ms / sppark ms"
	echo
	echo "Below 1x prooflane is the faster. Pass 1 ran prooflane first, pass 2 sppark first."
	echo
	ratios
} >"$WORK/side-by-side.md"
cp "$WORK/side-by-side.md" "$OUT/"
tar czf "$OUT/results.tgz" -C "$WORK" --exclude=dump .
say "all steps: $OUT/side-by-side.md, $OUT/results.tgz"
cat "$WORK/side-by-side.md"
