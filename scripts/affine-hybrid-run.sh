#!/usr/bin/env bash
# affine-hybrid-run.sh: one device call timing G1 MSMs over a table with
# the XYZZ segments and with k batch-affine levels before them (the
# hybrid, PROOFLANE_CUDA_AFFINE_LEVELS), for each build of build/variants
# (scripts/kernel-variants.sh), with the phases (PROOFLANE_CUDA_PROFILE).
#   run(command: "bash scripts/affine-hybrid-run.sh", carry: ["build/variants"])
# Env: ARGS (cudabench's), RUNS (CONFIG:BUILD pairs, run in order; CONFIG
# is the accumulation: xyzz, or aN: N affine levels, a0: every level),
# ROUNDS (1), BUDGET (s).
set -u -o pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ahr-out}
BUDGET=${BUDGET:-560}
ARGS=${ARGS:--cpu=false -reps 3 -distinct 1048576 -ntt= -g1 24 -t 22 -g2= -t2= -seed 7}
RUNS=${RUNS:-xyzz:base a1:base a2:base a0:base}
mkdir -p "$out" /tmp/ahr/logs
began=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
for b in $(cd build/variants && ls *.gz | sed 's/\.gz$//'); do gunzip -c "build/variants/$b.gz" >"/tmp/ahr/$b" && chmod +x "/tmp/ahr/$b"; done
for round in $(seq "${ROUNDS:-1}"); do
	for run in $RUNS; do
		cfg=${run%%:*} b=${run#*:}
		{
			[ $((BUDGET - (SECONDS - began))) -gt 40 ] || break 2
			env=(PROOFLANE_CUDA_PROFILE=1)
			case $cfg in
			xyzz) env+=(PROOFLANE_CUDA_MSM_ACCUM=xyzz) ;;
			a0) env+=(PROOFLANE_CUDA_MSM_ACCUM=affine PROOFLANE_CUDA_AFFINE_MAX=200000000000) ;;
			a*) env+=(PROOFLANE_CUDA_MSM_ACCUM=affine PROOFLANE_CUDA_AFFINE_MAX=200000000000 PROOFLANE_CUDA_AFFINE_LEVELS=${cfg#a}) ;;
			esac
			log=/tmp/ahr/logs/r$round-$cfg-$b.log
			# shellcheck disable=SC2086
			env "${env[@]}" timeout 150 "/tmp/ahr/$b" $ARGS >"$log" 2>&1
			rc=$?
			row=$(grep "msm G1 table" "$log" | tail -1)
			res=$(grep "^result g1" "$log" | tail -1 | cut -c1-60)
			# the last MSM's phases: the table's, which cudabench runs after the plain
			ph=$(grep "profile msm" "$log" | tail -1 | sed 's/.*total/total/')
			echo "r$round $cfg $b rc=$rc $((SECONDS - began))s | $row | $res"
			echo "    $ph"
		}
	done
done | tee "$out/summary.txt"
tar czf "$out/logs.tgz" -C /tmp/ahr logs
