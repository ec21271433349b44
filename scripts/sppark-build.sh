#!/usr/bin/env bash
# sppark-build.sh: builds the harness that times supranational/sppark's MSM
# and NTT on the inputs prooflane's cudabench writes, into build/sppark
# (which git ignores), for scripts/sppark-side-by-side.sh and
# scripts/gpu-bench.sh: once a curve, with sppark's own feature switch,
# sppark-bench for BLS12-381 (FEATURE_BLS12_381) and sppark-bench-bn254
# for BN254 (FEATURE_BN254).
#
# Usage: SPPARK=DIR BLST=DIR bash scripts/sppark-build.sh [OUTDIR]
#
# sppark and blst are not dependencies of prooflane and none of their code
# is in the repository: SPPARK and BLST name checkouts of their sources,
# outside it. The published figures used these commits:
#
#   git clone https://github.com/supranational/sppark /src/sppark
#   git -C /src/sppark checkout 17278d74295392f9813f009300b257a688422b7a
#   git clone https://github.com/supranational/blst /src/blst
#   git -C /src/blst checkout dece82ea537b422890888bacde4034ca5b5a44d8
#   SPPARK=/src/sppark BLST=/src/blst bash scripts/sppark-build.sh
#
# (A checkout that is not a git work tree may give its commit in a file
# .revision at its top.) blst is built with its own build.sh
# (-D__BLST_PORTABLE__, so that the harness runs on another machine's
# processor), scripts/sppark/bench.cu with nvcc for sm_90 once a curve, the
# CUDA runtime linked statically, all in WORK (default
# /tmp/sppark-bench-build). Then each harness's host self-test runs on a
# small dump of its curve written by cudabench's own code
# (TestDumpReadsBackInSpparkBench, no GPU needed): every point on the
# curve as sppark's host types read it, each MSM's and NTT's expected
# result computed with sppark's host arithmetic. Needs Go, nvcc 11.8 and
# g++-11 (bash scripts/install-cuda.sh). CURVES (default "bls12-381
# bn254") says which harnesses to build.
#
# Writes OUTDIR/sppark-bench, OUTDIR/sppark-bench-bn254 and OUTDIR/REVISION
# (the commits of prooflane, sppark and blst, the kernels library's hash,
# nvcc's version).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build/sppark}") # relative to the repository's root
case $out in
/ | "$PWD" | "$HOME")
	echo "sppark-build: will not replace $out" >&2
	exit 1
	;;
esac
work=${WORK:-/tmp/sppark-bench-build}
CURVES=${CURVES:-bls12-381 bn254}
NVCC=${NVCC:-nvcc}
CCBIN=${CCBIN:-$(command -v g++-11 || true)}
GENCODE=${GENCODE:--gencode=arch=compute_90,code=sm_90}
: "${SPPARK:?SPPARK must name a checkout of supranational/sppark}"
: "${BLST:?BLST must name a checkout of supranational/blst}"
SPPARK=$(realpath "$SPPARK")
BLST=$(realpath "$BLST")
for f in "$SPPARK/msm/pippenger.cuh" "$SPPARK/ntt/ntt.cuh" "$SPPARK/util/all_gpus.cpp" "$BLST/build.sh" "$BLST/src/blst_t.hpp"; do
	if [ ! -f "$f" ]; then
		echo "sppark-build: $f is missing" >&2
		exit 1
	fi
done
rev() { git -C "$1" rev-parse HEAD 2>/dev/null || cat "$1/.revision" 2>/dev/null || echo unknown; }

# prooflane's kernels library, which the self-test below links (its hash
# in -X, as scripts/gpu-build.sh does, so that Go relinks)
make -s -C cuda
lib=cuda/build/libprooflane_cuda.a
h=$(sha1sum "$lib" | cut -c1-16)
mkdir -p "$work"

# blst with its build.sh (it writes libblst.a into the current folder)
rm -rf "$work/blst"
mkdir -p "$work/blst"
(cd "$work/blst" && sh "$BLST/build.sh" -D__BLST_PORTABLE__ >build.log 2>&1) || {
	cat "$work/blst/build.log" >&2
	exit 1
}

# the harness a curve: sppark's headers and util/all_gpus.cpp, blst's
# headers and library; sppark's own builds define
# TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE (error strings) and pass
# -Wno-unused-function, and pick the curve with FEATURE_<curve>
flags=(-std=c++17 -O3 $GENCODE -cudart=static -D__BLST_PORTABLE__
	-DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -Xcompiler -Wno-unused-function
	-I"$SPPARK" -I"$BLST/src")
if [ -n "$CCBIN" ]; then
	flags+=(-ccbin "$CCBIN")
fi
# bin CURVE: the harness's name; feature CURVE: sppark's switch; env
# CURVE: the variable TestDumpReadsBackInSpparkBench reads it from
bin() { case $1 in bls12-381) echo sppark-bench ;; bn254) echo sppark-bench-bn254 ;; esac; }
feature() { case $1 in bls12-381) echo FEATURE_BLS12_381 ;; bn254) echo FEATURE_BN254 ;; esac; }
env_of() { case $1 in bls12-381) echo SPPARK_BENCH ;; bn254) echo SPPARK_BENCH_BN254 ;; esac; }
selftest_env=()
for c in $CURVES; do
	if [ -z "$(bin "$c")" ]; then
		echo "sppark-build: CURVES: unknown curve $c (bls12-381, bn254)" >&2
		exit 2
	fi
	"$NVCC" "${flags[@]}" "-D$(feature "$c")" scripts/sppark/bench.cu "$SPPARK/util/all_gpus.cpp" \
		"$work/blst/libblst.a" -o "$work/$(bin "$c")"
	selftest_env+=("$(env_of "$c")=$work/$(bin "$c")")
done

# the host side of each harness against a dump of its curve written by
# cudabench's code (the test's subtest a curve; one without its variable
# skips, so each curve built must PASS, not SKIP)
env "${selftest_env[@]}" go test -tags cuda -count=1 -v -run TestDumpReadsBackInSpparkBench \
	"-ldflags=-X=github.com/prooflane/prooflane/cuda.libHash=$h" ./cmd/cudabench >"$work/selftest.log" 2>&1 || {
	cat "$work/selftest.log" >&2
	exit 1
}
for c in $CURVES; do
	if ! grep -q -- "--- PASS: TestDumpReadsBackInSpparkBench/$c" "$work/selftest.log"; then
		cat "$work/selftest.log" >&2
		echo "sppark-build: the $c harness's self-test did not run" >&2
		exit 1
	fi
done
echo "sppark-build: the harnesses' host self-tests passed ($work/selftest.log)"

rm -rf "$out"
mkdir -p "$out"
for c in $CURVES; do
	strip -o "$out/$(bin "$c")" "$work/$(bin "$c")"
done
{
	echo "prooflane $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!build' || echo ' dirty')"
	echo "libprooflane_cuda.a $h"
	echo "sppark $(rev "$SPPARK")"
	echo "blst $(rev "$BLST")"
	echo "nvcc $("$NVCC" --version | grep -o 'release [^,]*, V[0-9.]*')"
	echo "gencode $GENCODE"
	echo "curves $CURVES"
} >"$out/REVISION"
ls -l "$out"
cat "$out/REVISION"
echo "sppark-build: $out; run it with bash scripts/sppark-side-by-side.sh (CURVE=bn254 for BN254)"
