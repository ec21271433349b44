#!/usr/bin/env bash
# sppark-side-by-side.sh: issue 14's run on the GPU machine: prooflane's
# cudabench and supranational/sppark (scripts/sppark/bench.cu) timed in
# one call on the same inputs, each sppark result checked against
# prooflane's. scripts/sppark-build.sh builds the binaries here and copies
# this script beside them into build/sppark; from the repository root:
#
#   run(command: "bash build/sppark/sppark-side-by-side.sh", carry: ["build/sppark"], timeout_s: 600)
#
# Steps, each under timeout, each one's failure reported and the next run:
#
#   prooflane-1  cudabench $CUDABENCH_ARGS -dump DUMP: prooflane's table, and
#                the inputs and results for sppark (docs/cuda-benchmarks.md)
#   sppark-1     sppark-bench DUMP: sppark on the same inputs, checked
#   sppark-2     sppark-bench again, first this time
#   prooflane-2  cudabench $CUDABENCH_ARGS again, without -dump (the same
#                inputs: the same -seed; its result lines must be pass 1's)
#
# then the tables and, last, the ratio table (prooflane ms / sppark ms,
# for each of the two orders), in $OUT/side-by-side.md; $OUT/results.tgz
# holds every step's table and log. About 2-3 minutes on the H200, an
# estimate (cudabench ~50 s a pass, the bases all distinct as in a
# proving key; sppark-bench ~20 s). BUDGET (default 540 s) bounds the
# whole: a step that would not finish inside it is skipped, and said so.
#
# Resumable on the same machine: a step that ended well (in WORK, default
# /tmp/sppark-sbs) is not run again; FRESH=1 starts over. STEPS (default
# all four) names the steps to run now: a session can run the first pass,
# other work, then the second.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/sppark-sbs-out}
WORK=${WORK:-/tmp/sppark-sbs}
BUDGET=${BUDGET:-540}
REPS=${REPS:-7}
SEED=${SEED:-14}
# -reps 7: G1 and the tables median of 7, G2 of 3 (cudabench times G2 reps/2 times)
CUDABENCH_ARGS=${CUDABENCH_ARGS:--cpu=false -reps $REPS -seed $SEED -distinct 0 -nttall -ntt 20,22,24 -g1 20,22,24 -g2 20,22 -t 16,18,20,22 -t2 16,18,20}
began=$SECONDS
if [ "${FRESH:-0}" = 1 ]; then
	rm -rf "$WORK"
fi
mkdir -p "$OUT" "$WORK/bin"
dump=$WORK/dump
say() { echo "== $* ($((SECONDS - began)) s)"; }

for f in cudabench sppark-bench; do
	if [ ! -f "$here/$f.gz" ]; then
		echo "sppark-side-by-side: $here/$f.gz is missing: run scripts/sppark-build.sh and carry build/sppark" >&2
		exit 1
	fi
	gunzip -c "$here/$f.gz" >"$WORK/bin/$f"
	chmod +x "$WORK/bin/$f"
done
cat "$here/REVISION" 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader

# step NAME LIMIT CMD...: runs CMD under timeout (at most LIMIT s, less
# when the budget is short), stdout in WORK/NAME.out, stderr in
# WORK/NAME.err, its exit status in WORK/NAME.rc; NAME.ok once it exited 0.
# A step that is ok is not run again.
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
	local left=$((BUDGET - (SECONDS - began) - 15))
	if [ "$left" -lt 30 ]; then
		say "$name: skipped, ${left}s of the budget left"
		return
	fi
	[ "$limit" -gt "$left" ] && limit=$left
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
step prooflane-1 300 "$WORK/bin/cudabench" $CUDABENCH_ARGS -dump "$dump" -o "$WORK/prooflane-1.md"
if [ -d "$dump" ]; then
	# even after a failed prooflane-1: the rows it finished are checked
	step sppark-1 150 "$WORK/bin/sppark-bench" "$dump" "$WORK/prooflane-1.out" "$REPS"
	step sppark-2 150 "$WORK/bin/sppark-bench" "$dump" "$WORK/prooflane-1.out" "$REPS"
else
	say "sppark-1, sppark-2: no dump from prooflane-1"
fi
# shellcheck disable=SC2086
step prooflane-2 300 "$WORK/bin/cudabench" $CUDABENCH_ARGS -o "$WORK/prooflane-2.md"

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
	echo "# prooflane and sppark side by side"
	echo
	echo '```'
	cat "$here/REVISION" 2>/dev/null
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
tar czf "$OUT/results.tgz" -C "$WORK" --exclude=dump --exclude=bin .
say "all steps: $OUT/side-by-side.md, $OUT/results.tgz"
cat "$WORK/side-by-side.md"
