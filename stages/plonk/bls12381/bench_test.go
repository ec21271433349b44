package plonk_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	gnarkplonk "github.com/consensys/gnark/backend/plonk"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// chainOfDomain returns the chain circuit's key whose PLONK domain is 2^k,
// the largest chain that fits it.
func chainOfDomain(b *testing.B, k int) (*plonk.Key, workloads.Instance) {
	b.Helper()
	// A chain step is two PLONK constraints (x·x, then + i).
	size := 1<<(k-1) - 4
	spr, inst, err := plonk.Compile("chain", size)
	if err != nil {
		b.Fatal(err)
	}
	key, err := plonk.UnsafeSetup(context.Background(), "chain", spr)
	if err != nil {
		b.Fatal(err)
	}
	if key.DomainSize() != 1<<k {
		b.Fatalf("chain of %d: domain %d, want 2^%d", size, key.DomainSize(), k)
	}
	return key, inst
}

// BenchmarkProveVsGnark times one proof of the plonk pipeline on the CPU
// backend (one partition: the latency) against gnark's plonk.Prove on the
// same key and witness, alternating the two in each iteration so that
// both see the same machine. Every proof is verified (outside the timing).
// The sizes are the domain's, 2^16 and 2^18 (PLONK_BENCH_LOG overrides
// with one exponent).
//
//	go test -run '^$' -bench BenchmarkProveVsGnark -benchtime 5x -timeout 60m ./stages/plonk/
func BenchmarkProveVsGnark(b *testing.B) {
	logs := []int{16, 18}
	if v := os.Getenv("PLONK_BENCH_LOG"); v != "" {
		var k int
		if _, err := fmt.Sscan(v, &k); err != nil {
			b.Fatalf("PLONK_BENCH_LOG=%q: %v", v, err)
		}
		logs = []int{k}
	}
	for _, k := range logs {
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			key, inst := chainOfDomain(b, k)
			benchVsGnark(b, key, witnesses(b, inst, 1, 1, -1))
		})
	}
}

// BenchmarkProveCommittingVsGnark is BenchmarkProveVsGnark for a circuit
// that commits: products of 100 factors in BN254's base field
// (std/math/emulated, whose limbs std/rangecheck checks through one BSB22
// commitment), about 59,000 constraints, a domain of 2^16.
//
//	go test -run '^$' -bench BenchmarkProveCommittingVsGnark -benchtime 5x -timeout 30m ./stages/plonk/
func BenchmarkProveCommittingVsGnark(b *testing.B) {
	key := gadgetKey(b, "emulated-100", newEmulated(100))
	if key.DomainSize() != 1<<16 || key.Commitments() != 1 {
		b.Fatalf("domain %d, %d commitments; want 2^16 and one", key.DomainSize(), key.Commitments())
	}
	b.Logf("%d constraints, domain %d", key.Constraints(), key.DomainSize())
	benchVsGnark(b, key, gadgetWitnesses(b, func(r *rand.Rand) frontend.Circuit { return assignEmulated(r, 100) }, 1, 1))
}

// benchVsGnark times one proof of ws[0] with the plonk pipeline on the CPU
// backend against gnark's plonk.Prove, alternating, each proof verified
// outside the timing.
func benchVsGnark(b *testing.B, key *plonk.Key, ws []witness.Witness) {
	job, err := plonk.NewJob(key, ws)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := ws[0].Public()
	if err != nil {
		b.Fatal(err)
	}
	file, src, err := pipelines.Open("plonk")
	if err != nil {
		b.Fatal(err)
	}
	p, err := runtime.Parse(file, src, builtin.Registry(), nil)
	if err != nil {
		b.Fatal(err)
	}
	be, err := cpu.New(1)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	e, err := runtime.NewEngine(p, runtime.Options{Devices: 1, Backend: be})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	var ours, theirs time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := e.Run(context.Background(), runtime.Job{ID: fmt.Sprint(i), Partitions: 1, Payload: job})
		ours += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := gnarkplonk.Verify(res.Partitions[0].Outputs["batch_open"].(gnarkplonk.Proof), key.VK, pub); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start = time.Now()
		proof, err := gnarkplonk.Prove(key.SPR, key.PK, ws[0])
		theirs += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := gnarkplonk.Verify(proof, key.VK, pub); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "prooflane-ms/op")
	b.ReportMetric(float64(theirs.Milliseconds())/float64(b.N), "gnark-ms/op")
	b.ReportMetric(float64(ours)/float64(theirs), "ratio")
}
