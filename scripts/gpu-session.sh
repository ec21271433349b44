#!/usr/bin/env bash
# gpu-session.sh: one device call that goes on with issue 16's two-GPU run
# (scripts/multi-gpu-run.sh) and then issue 15's scale steps
# (scripts/scale-run.sh) in what is left of BUDGET seconds (default 560),
# both resumable: the same call repeated on the warm machine goes on where
# the last one stopped. Everything they wrote is packed into
# $OUT/results.tgz (the device tool brings back at most 8 files); their
# tables are printed last.
#
#   bash scripts/gpu-build.sh     # here, after make -C cuda
#   run(kind: "nvidia-h200-x2", command: "bash scripts/gpu-session.sh", carry: ["build/gpu"], timeout_s: 600)
#
# On nvidia-h200-x2 the host's MemTotal starts at about 31 GiB and grows as
# memory is used (the whole 256 GiB is there from the start), so the host
# memory check is told the real figure (PROOFLANE_HOST_MEMORY, default
# 240GiB there). With one GPU, multi-gpu-run's two-device benches fail.
set -u -o pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-/tmp/gpu-session-out}
BUDGET=${BUDGET:-560}
work=/tmp/gpu-session
mkdir -p "$work" "$RESULTS"
began=$SECONDS
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
	export PROOFLANE_HOST_MEMORY=${PROOFLANE_HOST_MEMORY:-240GiB}
	OUT=$work/multi BUDGET=$((BUDGET / 2)) bash scripts/multi-gpu-run.sh >"$work/multi-run.log" 2>&1
fi
OUT=$work/scale BUDGET=$((BUDGET - (SECONDS - began))) bash scripts/scale-run.sh >"$work/scale-run.log" 2>&1
tar czf "$RESULTS/results.tgz" -C "$work" --exclude='*.smi' .
cat "$work/multi/multi.md" "$work/scale/scale.md" 2>/dev/null
