#!/usr/bin/env bash
# gpu-ab-session.sh: one device call for a kernel A/B: Nsight Compute
# profiles of the base build's heaviest kernels, then the variants of
# build/variants (scripts/kernel-variants.sh) in alternation, as far as
# BUDGET seconds (default 540) allow:
#
#   1. ncu (clock control off, as the device notes ask) on the base
#      build: G1 and G2 accumulation (k_segments) at 2^22, one launch
#      each, and the three NTT passes at 2^24 (warp states, issue,
#      occupancy, memory); with NCU naming ba, G1 2^22's batch-affine
#      passes (PROOFLANE_CUDA_MSM_ACCUM=affine: levels 0 and 1's
#      k_ba_pass1 and k_ba_pass2, level 0's inputs gathered from the
#      bases) beside the XYZZ k_segments;
#   2. the variants, round 1 and round 2.
#
#   bash scripts/kernel-variants.sh build ...   # here
#   run(command: "bash scripts/gpu-ab-session.sh", carry: ["build/variants"], timeout_s: 600)
#
# Env: ARGS (cudabench's, for the variants), BUDGET, NCU (0: no
# profiles; a list such as g1,ntt,ba: those only, ba only when named;
# each with its pipes' use, stall reasons and shared-memory
# wavefronts), NCU_BUILDS (the variants
# profiled, default base: e.g. "base old"), PHASES (cudabench args for a run of the base build with
# PROOFLANE_CUDA_PROFILE=1, the MSMs' phase times; none by default).
# Results in $OUT:
# ab.md (tables and the profiles' key lines), results.tgz.
set -u -o pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-/tmp/gab-out}
BUDGET=${BUDGET:-540}
ARGS=${ARGS:--cpu=false -reps 3 -distinct 1048576 -ntt 24 -g1 20,22,24 -t 20,22 -g2 20,22 -t2 20,22}
work=/tmp/gab
mkdir -p "$work" "$RESULTS"
began=$SECONDS
left() { echo $((BUDGET - (SECONDS - began))); }
say() { echo "== $* ($((SECONDS - began)) s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader

gunzip -c build/variants/base.gz >/tmp/gab-base && chmod +x /tmp/gab-base
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
sections="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
# the pipes' use and the warps' stall reasons, as metrics (the sections
# print them only as charts)
stalls=barrier,long_scoreboard,short_scoreboard,wait,math_pipe_throttle,mio_throttle,not_selected,selected,dispatch_stall,lg_throttle,no_instruction,math_dependency
metrics=sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
for st in ${stalls//,/ }; do metrics=$metrics,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio; done
# shared memory: the wavefronts its accesses took and how many of those
# were bank conflicts
for op in ld st; do metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum; done
profile() {  # NAME KERNEL COUNT CUDABENCH-ARGS...
	local name=$1 kernel=$2 count=$3
	shift 3
	[ -n "$ncu" ] || { echo "no ncu"; return 1; }
	# shellcheck disable=SC2086
	local b
	for b in ${NCU_BUILDS:-base}; do
		local bin=/tmp/gab-$b out=$work/ncu-$name.txt
		[ "$b" = base ] || out=$work/ncu-$name-$b.txt
		[ -x "$bin" ] || { gunzip -c "build/variants/$b.gz" >"$bin" && chmod +x "$bin"; }
		timeout 120 "$ncu" --clock-control none -k "regex:$kernel" -c "$count" $sections --metrics "$metrics" \
			"$bin" -cpu=false -reps 1 "$@" >"$out" 2>&1
		say "ncu $name ($b): rc $?"
	done
}
want_named() { [[ ",${NCU:-}," == *",$1,"* ]]; }
want() { [ "${NCU:-1}" = 1 ] || want_named "$1"; }
if [ "${NCU:-1}" != 0 ]; then
	want g1 && [ "$(left)" -gt 200 ] && profile g1-22 k_segments 1 -distinct 1048576 -ntt= -g1 22 -g2= -t= -t2=
	want g2 && [ "$(left)" -gt 200 ] && profile g2-22 k_segments 1 -distinct 1048576 -ntt= -g1= -g2 22 -t= -t2=
	want ntt && [ "$(left)" -gt 200 ] && profile ntt-24 k_ntt_pass 3 -ntt 24 -g1= -g2= -t= -t2=
	# not in the default set (NCU=1): the G1 batch-affine passes, named
	want_named ba && [ "$(left)" -gt 200 ] && PROOFLANE_CUDA_MSM_ACCUM=affine PROOFLANE_CUDA_AFFINE_MAX=200000000000 \
		profile ba-22 'k_ba_pass[12]' 4 -distinct 1048576 -ntt= -g1 22 -g2= -t= -t2=
fi
if [ -n "${PHASES:-}" ]; then
	# shellcheck disable=SC2086
	PROOFLANE_CUDA_PROFILE=1 timeout 120 /tmp/gab-base $PHASES >"$work/phases.txt" 2>&1
	say "phases: rc $?"
fi

for round in 1 2; do
	[ "$(left)" -gt 150 ] || break
	OUT=$work/variants ROUND=$round VARIANT_TIMEOUT=$(($(left) / 6)) ARGS="$ARGS" \
		bash scripts/kernel-variants.sh run >"$work/variants-$round.log" 2>&1
	say "variants round $round: rc $?"
	grep -E "rc=|DIFFER|MISMATCH" "$work/variants-$round.log"
done

{
	echo "# gpu-ab-session $(head -1 build/variants/REVISION 2>/dev/null)"
	echo "cudabench $ARGS"
	for f in "$work"/variants-*.log; do echo; echo "## $(basename "$f")"; sed -n '/^| op/,$p' "$f"; grep -E "DIFFER|MISMATCH" "$f"; done
	[ -f "$work/phases.txt" ] && { echo; echo "## phases ($PHASES)"; cat "$work/phases.txt"; }
	for f in "$work"/ncu-*.txt; do
		[ -f "$f" ] || continue  # NCU=0: no profiles
		echo; echo "## $(basename "$f" .txt)"
		grep -E "k_segments|k_ntt_pass|k_ba_pass|Duration|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Issued Warp|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Theoretical Occupancy|DRAM Throughput|L1/TEX Hit|L2 Hit|Executed Ipc|Stall|stall|pipe|sm__|smsp__|l1tex__" "$f" | head -200
	done
} >"$work/ab.md"
cp "$work/ab.md" "$RESULTS/"
tar czf "$RESULTS/results.tgz" -C "$work" .
say "done"
cat "$work/ab.md"
