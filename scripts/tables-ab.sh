#!/usr/bin/env bash
# tables-ab.sh: the kernel A/B run of v6 (docs/cuda-perf-notes.md): the
# cuda package's table and MSM tests, then the previous build's cudabench
# (cudabench-v5) and this build's in alternation, and the sums with the
# old thread count. Put cuda.test.gz, cudabench.gz (this build: go test -c
# / go build -tags cuda after make -C cuda, as scripts/gpu-build.sh does)
# and cudabench-v5.gz (an earlier build/gpu's cudabench.gz) in DIR, then:
#
#   run(command: "bash scripts/tables-ab.sh DIR", carry: ["DIR"], timeout_s: 600)
#
# Env: MAXLOG (tests, default 22), T, T2 (table windows, "16,18,20,22" and
# "16,18,20"), ROUNDS (2).
set -u
cd "${1:?usage: tables-ab.sh DIR}"
for f in *.gz; do gunzip -kf "$f"; done
chmod +x cuda.test cudabench cudabench-v5
nvidia-smi --query-gpu=name,clocks.sm,memory.used --format=csv,noheader
B="-cpu=false -reps 3 -ntt="
PROOFLANE_CUDA_TEST_MAXLOG=${MAXLOG:-22} timeout ${TTEST:-200} ./cuda.test -test.run 'TestMSMTable|TestSum$|TestSelfTest|TestMSMG1' -test.v >"$OUT/tests.txt" 2>&1; echo "tests rc=$?"
grep -E "^(--- |ok|FAIL|PASS)|differs|panic" "$OUT/tests.txt" | head -20
for round in 1 2; do
  timeout 120 ./cudabench-v5 $B -g1 20,22,24 -g2 20,22 >"$OUT/v5-$round.md" 2>"$OUT/v5-$round.err"; echo "v5 $round rc=$?"
  timeout 200 ./cudabench $B -g1 20,22,24 -t ${T:-16,18,20,22} -g2 20,22 -t2 ${T2:-16,18,20} -sum 22,24 >"$OUT/new-$round.md" 2>"$OUT/new-$round.err"; echo "new $round rc=$?"
  [ "${ROUNDS:-2}" = 1 ] && break
done
PROOFLANE_CUDA_SUM_THREADS=16384 timeout 60 ./cudabench $B -g1= -g2= -sum 22,24 >"$OUT/sum16k.md" 2>&1; echo "sum16k rc=$?"
cat "$OUT"/*.err | grep -v "^$" | tail -60
grep -h "sum G1" "$OUT/sum16k.md"
