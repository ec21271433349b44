#!/usr/bin/env bash
# sppark-build.sh: builds here, into OUTDIR (default build/sppark, which
# git ignores), what scripts/sppark-side-by-side.sh runs on the GPU
# machine (issue 14: prooflane and supranational/sppark timed in one run
# on the same inputs), which has no Go and no nvcc:
#
#   cudabench.gz             prooflane's kernel benchmark (-tags cuda), from this checkout
#   sppark-bench.gz          scripts/sppark/bench.cu built against sppark's and blst's sources
#   sppark-side-by-side.sh   the run script, copied, so that the folder is all the call needs
#   REVISION                 what went in: the commits, the kernels library's hash, nvcc
#
# sppark and blst are not dependencies of the project and none of their
# code enters the repository: SPPARK and BLST name their checkouts,
# outside it (docs/cuda-benchmarks.md, "Side by side with sppark", says how
# they were made). A checkout that is no git work tree gives its commit in
# a file .revision at its top. blst is built with its own build.sh
# (-D__BLST_PORTABLE__: the GPU machine's processor is not this one), the
# harness with nvcc for sm_90 with the CUDA runtime linked statically, both
# in WORK (default /tmp/sppark-bench-build), outside the repository; the
# harness's host self-test then runs on a small dump that cudabench's test
# writes (TestDumpReadsBackInSpparkBench, no GPU). Needs nvcc 11.8 and g++-11
# (scripts/install-cuda.sh) and Go.
#
#   SPPARK=/work/sppark-src/sppark BLST=/work/sppark-src/blst bash scripts/sppark-build.sh
#   run(command: "bash build/sppark/sppark-side-by-side.sh", carry: ["build/sppark"], timeout_s: 600)
#
# The device call sends the session's own checkout: build into (or copy the
# folder to) build/sppark of that checkout.
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

# prooflane: the kernels library, then cudabench linked against it (its
# hash in -X, as scripts/gpu-build.sh does, so that Go relinks).
make cuda
lib=cuda/build/libprooflane_cuda.a
h=$(sha1sum "$lib" | cut -c1-16)
mkdir -p "$work"
go build -tags cuda "-ldflags=-s -w -X=github.com/prooflane/prooflane/cuda.libHash=$h" -o "$work/cudabench" ./cuda/cmd/cudabench

# blst with its build.sh (it writes libblst.a into the current folder)
rm -rf "$work/blst"
mkdir -p "$work/blst"
(cd "$work/blst" && sh "$BLST/build.sh" -D__BLST_PORTABLE__ >build.log 2>&1) || {
	cat "$work/blst/build.log" >&2
	exit 1
}

# the harness: sppark's headers and util/all_gpus.cpp, blst's headers and
# library; sppark's own builds define TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE
# (error strings) and pass -Wno-unused-function
flags=(-std=c++17 -O3 $GENCODE -cudart=static -DFEATURE_BLS12_381 -D__BLST_PORTABLE__
	-DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE -Xcompiler -Wno-unused-function
	-I"$SPPARK" -I"$BLST/src")
if [ -n "$CCBIN" ]; then
	flags+=(-ccbin "$CCBIN")
fi
"$NVCC" "${flags[@]}" scripts/sppark/bench.cu "$SPPARK/util/all_gpus.cpp" "$work/blst/libblst.a" -o "$work/sppark-bench"

# the host side of the harness against a dump written by cudabench's code
SPPARK_BENCH="$work/sppark-bench" go test -tags cuda -count=1 -v -run TestDumpReadsBackInSpparkBench \
	"-ldflags=-X=github.com/prooflane/prooflane/cuda.libHash=$h" ./cuda/cmd/cudabench >"$work/selftest.log" 2>&1 || {
	cat "$work/selftest.log" >&2
	exit 1
}
if ! grep -q -- "--- PASS: TestDumpReadsBackInSpparkBench" "$work/selftest.log"; then
	cat "$work/selftest.log" >&2
	echo "sppark-build: the harness's self-test did not run" >&2
	exit 1
fi
echo "sppark-build: the harness's host self-test passed ($work/selftest.log)"

rm -rf "$out"
mkdir -p "$out"
for f in cudabench sppark-bench; do
	strip -o "$out/$f" "$work/$f"
	gzip -9 "$out/$f"
done
cp scripts/sppark-side-by-side.sh "$out/"
{
	echo "prooflane $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!build' || echo ' dirty')"
	echo "libprooflane_cuda.a $h"
	echo "sppark $(rev "$SPPARK")"
	echo "blst $(rev "$BLST")"
	echo "nvcc $("$NVCC" --version | grep -o 'release [^,]*, V[0-9.]*')"
	echo "gencode $GENCODE"
} >"$out/REVISION"
ls -l "$out"
cat "$out/REVISION"
total=$(du -cb "$out" | tail -1 | cut -f1)
echo "sppark-build: $((total / 1024 / 1024)) MiB in $out"
# The whole working tree travels too; leave it room under 64 MiB.
if [ "$total" -gt $((40 * 1024 * 1024)) ]; then
	echo "sppark-build: $out is over 40 MiB: too large to carry with the working tree (limit 64 MiB)" >&2
	exit 1
fi
