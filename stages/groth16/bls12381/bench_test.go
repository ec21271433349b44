package groth16_test

import (
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/logger"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	"github.com/prooflane/prooflane/workloads"
)

// benchKeys loads or creates keys in $PROOFLANE_BENCH_KEYS (default: the
// user's key cache), so the setup runs once across benchmark runs.
func benchKeys(b *testing.B, circuit string, size int) *keys.Set {
	b.Helper()
	dir := os.Getenv("PROOFLANE_BENCH_KEYS")
	if dir == "" {
		dir = family.DefaultKeyDir()
	}
	s, err := keys.Cache{Dir: dir}.LoadOrSetup(context.Background(), circuit, size, os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkProveVsGnark compares prooflane's CPU pipeline
// (pipelines/groth16.yaml through the runtime) with gnark's own
// groth16.Prove on the same circuit, keys and witnesses. Each iteration
// runs both, alternating which goes first, so that load from elsewhere on
// the machine hits both sides alike:
//
//	latency     one gnark.Prove vs a one-partition job
//	throughput  10 gnark.Prove calls one after the other vs one
//	            10-partition job
//
// Metrics: gnark_ms and prooflane_ms per proof (latency), gnark_proofs/s
// and prooflane_proofs/s (throughput), and ratio = prooflane time / gnark
// time (below 1 is faster than gnark). The pipeline runs on two emulated
// CPU devices (see cpuDevices).
//
//	go test -run '^$' -bench BenchmarkProveVsGnark -benchtime 3x -timeout 30m ./stages/groth16/
//
// PROOFLANE_BENCH_LOG2=k runs every circuit at 2^k constraints instead of
// the default table; PROOFLANE_BENCH_BACKEND=cuda runs the pipeline on the
// CUDA devices (build with -tags cuda) against gnark on the CPU;
// PROOFLANE_BENCH_SET=g2_on=device sets pipeline parameters.
func BenchmarkProveVsGnark(b *testing.B) {
	logger.Disable()
	// Two emulated CPU devices (gpu.0.* and gpu.1.*): with one, the
	// gpu.{gpu}.compute lock runs one partition's MSMs at a time and the
	// cores idle in each MSM's serial tail; two lanes let another
	// partition fill them. A one-partition job uses one of them.
	const partitions, cpuDevices = 10, 2
	cases := []struct {
		circuit string
		size    int
	}{
		{"chain", 1 << 12},
		{"chain", 1 << 14},
		{"sha256", 1 << 14},
		{"mimc", 1 << 14},
		{"emulated", 1 << 14},
	}
	// PROOFLANE_BENCH_LOG2=16 runs every circuit at 2^16 instead (for
	// machines with more cores).
	if s := os.Getenv("PROOFLANE_BENCH_LOG2"); s != "" {
		k, err := strconv.Atoi(s)
		if err != nil || k < 4 || k > 26 {
			b.Fatalf("PROOFLANE_BENCH_LOG2=%q: want an exponent in 4..26", s)
		}
		cases = cases[:0]
		for _, c := range workloads.Names() {
			cases = append(cases, struct {
				circuit string
				size    int
			}{c, 1 << k})
		}
	}
	for _, bc := range cases {
		b.Run(fmt.Sprintf("circuit=%s/size=2^%d", bc.circuit, log2(bc.size)), func(b *testing.B) {
			set := benchKeys(b, bc.circuit, bc.size)
			be, devices := benchBackend(b, cpuDevices)
			job, err := set.NewJob(partitions, 1)
			if err != nil {
				b.Fatal(err)
			}
			p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(b), benchParams(b))
			if err != nil {
				b.Fatal(err)
			}
			e, err := runtime.NewEngine(p, runtime.Options{Devices: devices, Backend: be})
			if err != nil {
				b.Fatal(err)
			}
			gnark := func(n int) time.Duration {
				goruntime.GC()
				start := time.Now()
				for i := 0; i < n; i++ {
					if _, err := g16.Prove(set.R1CS, set.PK, job.Witnesses[i]); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(start)
			}
			prooflane := func(n int) time.Duration {
				goruntime.GC()
				start := time.Now()
				res, err := e.Run(context.Background(), runtime.Job{Partitions: n, Payload: job})
				el := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				// Untimed: every proof the benchmark makes verifies.
				for i, proof := range proofs(b, res) {
					if err := job.Verify(i, proof); err != nil {
						b.Fatalf("partition %d: %v", i, err)
					}
				}
				return el
			}
			// Warm both paths (bases resident, pools started) untimed.
			gnark(1)
			prooflane(1)
			for _, m := range []struct {
				name string
				n    int
			}{{"latency", 1}, {"throughput", partitions}} {
				b.Run(m.name, func(b *testing.B) {
					var tg, tp time.Duration
					for i := 0; i < b.N; i++ {
						if i%2 == 0 {
							tg += gnark(m.n)
							tp += prooflane(m.n)
						} else {
							tp += prooflane(m.n)
							tg += gnark(m.n)
						}
					}
					proofs := float64(b.N * m.n)
					if m.n == 1 {
						b.ReportMetric(float64(tg.Microseconds())/1000/proofs, "gnark_ms")
						b.ReportMetric(float64(tp.Microseconds())/1000/proofs, "prooflane_ms")
					} else {
						b.ReportMetric(proofs/tg.Seconds(), "gnark_proofs/s")
						b.ReportMetric(proofs/tp.Seconds(), "prooflane_proofs/s")
					}
					b.ReportMetric(tp.Seconds()/tg.Seconds(), "ratio")
				})
			}
		})
	}
}

// benchBackend is the CPU backend with cpuDevices emulated devices, or
// with PROOFLANE_BENCH_BACKEND=cuda every CUDA device (a -tags cuda build).
func benchBackend(b *testing.B, cpuDevices int) (device.Backend, int) {
	b.Helper()
	if os.Getenv("PROOFLANE_BENCH_BACKEND") != "cuda" {
		return cpuBackend(b, cpuDevices), cpuDevices
	}
	be, err := devcuda.New(devcuda.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { be.Close() })
	return be, len(be.Devices())
}

// benchParams reads PROOFLANE_BENCH_SET="k=v,k=v" (pipeline parameters).
func benchParams(b *testing.B) map[string]string {
	s := os.Getenv("PROOFLANE_BENCH_SET")
	if s == "" {
		return nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			b.Fatalf("PROOFLANE_BENCH_SET: %q is not k=v", kv)
		}
		out[k] = v
	}
	return out
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// BenchmarkCommitmentMSM weighs where synthesize computes a commitment:
// a Pedersen MSM of n values over bases resident on the device, as
// synthesize runs it through the device contract (upload, MSM, free, on
// a stream of its own), against gnark-crypto's MSM on every host core
// (commitOnDeviceMin is where the device starts to win) and on one, as
// gnark's prover runs it (Commit and ProveKnowledge with NbTasks 1).
//
//	go test -run '^$' -bench BenchmarkCommitmentMSM ./stages/groth16/
//	PROOFLANE_BENCH_BACKEND=cuda go test -tags cuda -run '^$' -bench BenchmarkCommitmentMSM ./stages/groth16/
func BenchmarkCommitmentMSM(b *testing.B) {
	be, _ := benchBackend(b, 1)
	dev, err := cdev.Of(be, 0)
	if err != nil {
		b.Fatal(err)
	}
	const most = 1 << 18
	scalars := make([]fr.Element, most)
	for i := range scalars {
		scalars[i].SetRandom()
	}
	_, _, g1, _ := curve.Generators()
	bases := curve.BatchScalarMultiplicationG1(&g1, scalars)
	resident, err := dev.LoadG1("bench/commit", bases)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1 << 8, 1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18} {
		for _, tasks := range []int{1, goruntime.NumCPU()} {
			b.Run(fmt.Sprintf("n=2^%d/host-tasks=%d", log2(n), tasks), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					var p curve.G1Affine
					if _, err := p.MultiExp(bases[:n], scalars[:n], ecc.MultiExpConfig{NbTasks: tasks}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("n=2^%d/device", log2(n)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st, err := dev.NewStream()
				if err != nil {
					b.Fatal(err)
				}
				v, err := st.Alloc(n)
				if err != nil {
					b.Fatal(err)
				}
				if err := st.Upload(v, scalars[:n], device.FormMontgomery); err != nil {
					b.Fatal(err)
				}
				if _, err := st.MSMG1(context.Background(), resident, v, n); err != nil {
					b.Fatal(err)
				}
				st.Free(v)
				st.Close()
			}
		})
	}
}
