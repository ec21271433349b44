package main

import (
	"fmt"
	"io"
	"math/bits"
	"os"
	"time"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"

	"github.com/prooflane/prooflane/service"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

func init() {
	register("loadtest", command{summary: "load-test the proving service: tiny Groth16 jobs through the API of a service in this process; latency, throughput, goroutines and heap", run: runLoadtest})
}

// maxLoadJobs bounds loadtest --jobs.
const maxLoadJobs = 100_000

func runLoadtest(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("loadtest", "", stderr)
	jobs := fs.Int("jobs", 1000, "jobs to submit")
	conc := fs.Int("concurrency", 32, "jobs submitted and not yet awaited at once")
	slots := fs.Int("workers", 2, "jobs the service's worker runs at once")
	circuit := fs.String("circuit", "chain", "the Groth16 circuit")
	size := fs.String("size", "2^5", "each job's size: 32 or 2^5")
	partitions := fs.Int("partitions", 1, "proofs per job")
	keysDir := fs.String("keys", "", "key cache directory (default: a temporary one; with --addr, the service's, to check the proofs)")
	pipeline := fs.String("pipeline", "groth16", "an embedded Groth16 pipeline's name")
	verify := fs.Bool("verify", true, "check every proof with gnark here too (the worker already did); with --addr, needs --keys")
	var cf clientFlags
	cf.register(fs)
	if f := fs.Lookup("addr"); f != nil {
		f.DefValue, f.Usage = "", "load-test the service at this URL instead of one started in this process (goroutines and heap are then this client's)"
		_ = f.Value.Set("")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "loadtest takes no arguments, got %q", fs.Args())
	}
	if *jobs < 1 || *jobs > maxLoadJobs {
		return usageErrorf(fs, "--jobs %d: want 1 to %d", *jobs, maxLoadJobs)
	}
	if *conc < 1 || *conc > maxInFlight || *slots < 1 || *slots > maxInFlight || *partitions < 1 || *partitions > service.MaxPartitions {
		return usageErrorf(fs, "--concurrency and --workers: want 1 to %d; --partitions 1 to %d", maxInFlight, service.MaxPartitions)
	}
	n, err := parseSize(*size)
	if err != nil {
		return usageErrorf(fs, "--size: %w", err)
	}
	tmp, err := os.MkdirTemp("", "prooflane-loadtest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if *keysDir == "" {
		*keysDir = tmp + "/keys"
	}
	ctx, stop := signalContext()
	defer stop()
	var cl prooflanev1connect.ProverServiceClient
	where := "in process"
	if cf.addr != "" {
		if *verify && *keysDir == tmp+"/keys" {
			return usageErrorf(fs, "--verify with --addr needs --keys, the service's key cache (or --verify=false)")
		}
		if cl, err = cf.client(); err != nil {
			return err
		}
		where = cf.addr
	} else {
		metrics, err := service.NewMetrics()
		if err != nil {
			return err
		}
		defer metrics.Close()
		l, err := service.StartLocal(ctx, service.LocalConfig{DataDir: tmp + "/data", KeysDir: *keysDir, Slots: *slots, Metrics: metrics})
		if err != nil {
			return err
		}
		defer l.Close()
		cl = l.Client
	}
	spec := &pb.JobSpec{Pipeline: *pipeline, Circuit: *circuit, Size: uint64(n), Partitions: uint32(*partitions), Seed: 1}
	var check func(*pb.JobSpec, []*pb.Proof) error
	if *verify {
		check = (&service.Checker{KeysDir: *keysDir}).Check
	}
	// One job first: the key setup and the engine are not part of the run.
	if _, err := service.LoadTest(ctx, cl, service.LoadConfig{Jobs: 1, Concurrency: 1, Spec: spec, Verify: check}); err != nil {
		return err
	}
	spec.Seed = 1000
	rep, err := service.LoadTest(ctx, cl, service.LoadConfig{Jobs: *jobs, Concurrency: *conc, Spec: spec, Verify: check})
	if err != nil {
		return err
	}
	proofs := rep.Jobs * *partitions
	fmt.Fprintf(stderr, "loadtest: %d jobs (%d proofs) through the service %s in %.2fs: %.3f s/proof, %.2f proofs/s\n",
		rep.Jobs, proofs, where, rep.Elapsed.Seconds(), rep.Elapsed.Seconds()/float64(proofs), float64(proofs)/rep.Elapsed.Seconds())
	cf.print(stdout, rep, func() {
		mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
		fmt.Fprintf(stdout, "| jobs | concurrency | worker slots | job | p50 | p99 | max | jobs/s | goroutines before → after | heap in use before → after |\n")
		fmt.Fprintf(stdout, "|---|---|---|---|---|---|---|---|---|---|\n")
		fmt.Fprintf(stdout, "| %d | %d | %d | %s 2^%d ×%d | %.1f ms | %.1f ms | %.1f ms | %.1f | %d → %d | %.1f → %.1f MiB |\n",
			rep.Jobs, *conc, *slots, *circuit, log2(n), *partitions,
			ms(rep.P50), ms(rep.P99), ms(rep.Max), rep.JobsPerSecond,
			rep.GoroutinesBefore, rep.GoroutinesAfter, mib(rep.HeapBefore), mib(rep.HeapAfter))
	})
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// log2 is the exponent of the power of two at or below n.
func log2(n int) int { return bits.Len(uint(n)) - 1 }
