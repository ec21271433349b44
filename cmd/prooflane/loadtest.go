package main

import (
	"flag"
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

// loadtestFlags are loadtest's flags, checked.
type loadtestFlags struct {
	fs                                  *flag.FlagSet
	cf                                  clientFlags
	jobs, conc, slots, partitions, size int
	circuit, keysDir, pipeline          string
	verify                              bool
}

// parseLoadtest parses and checks loadtest's flags.
func parseLoadtest(args []string, stderr io.Writer) (*loadtestFlags, error) {
	f := &loadtestFlags{fs: newFlags("loadtest", "", stderr)}
	fs := f.fs
	fs.IntVar(&f.jobs, "jobs", 1000, "jobs to submit")
	fs.IntVar(&f.conc, "concurrency", 32, "jobs submitted and not yet awaited at once")
	fs.IntVar(&f.slots, "workers", 2, "jobs the service's worker runs at once")
	fs.StringVar(&f.circuit, "circuit", "chain", "the Groth16 circuit")
	size := fs.String("size", "2^5", "each job's size: 32 or 2^5")
	fs.IntVar(&f.partitions, "partitions", 1, "proofs per job")
	fs.StringVar(&f.keysDir, "keys", "", "key cache directory (default: a temporary one; with --addr, the service's, to check the proofs)")
	fs.StringVar(&f.pipeline, "pipeline", "groth16", "an embedded Groth16 pipeline's name")
	fs.BoolVar(&f.verify, "verify", true, "check every proof with gnark here too (the worker already did); with --addr, needs --keys")
	f.cf.register(fs)
	if a := fs.Lookup("addr"); a != nil {
		a.DefValue, a.Usage = "", "load-test the service at this URL instead of one started in this process (goroutines and heap are then this client's)"
		_ = a.Value.Set("")
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != 0 {
		return nil, usageErrorf(fs, "loadtest takes no arguments, got %q", fs.Args())
	}
	if f.jobs < 1 || f.jobs > maxLoadJobs {
		return nil, usageErrorf(fs, "--jobs %d: want 1 to %d", f.jobs, maxLoadJobs)
	}
	if f.conc < 1 || f.conc > maxInFlight || f.slots < 1 || f.slots > maxInFlight || f.partitions < 1 || f.partitions > service.MaxPartitions {
		return nil, usageErrorf(fs, "--concurrency and --workers: want 1 to %d; --partitions 1 to %d", maxInFlight, service.MaxPartitions)
	}
	var err error
	if f.size, err = parseSize(*size); err != nil {
		return nil, usageErrorf(fs, "--size: %w", err)
	}
	if f.cf.addr != "" && f.verify && f.keysDir == "" {
		return nil, usageErrorf(fs, "--verify with --addr needs --keys, the service's key cache (or --verify=false)")
	}
	return f, nil
}

func runLoadtest(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	f, err := parseLoadtest(args, stderr)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "prooflane-loadtest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if f.keysDir == "" {
		f.keysDir = tmp + "/keys"
	}
	ctx, stop := signalContext()
	defer stop()
	var cl prooflanev1connect.ProverServiceClient
	where := "in process"
	if f.cf.addr != "" {
		if cl, err = f.cf.client(); err != nil {
			return err
		}
		where = f.cf.addr
	} else {
		metrics, err := service.NewMetrics()
		if err != nil {
			return err
		}
		defer metrics.Close()
		l, err := service.StartLocal(ctx, service.LocalConfig{DataDir: tmp + "/data", KeysDir: f.keysDir, Slots: f.slots, Metrics: metrics})
		if err != nil {
			return err
		}
		defer l.Close()
		cl = l.Client
	}
	spec := &pb.JobSpec{Pipeline: f.pipeline, Circuit: f.circuit, Size: uint64(f.size), Partitions: uint32(f.partitions), Seed: 1}
	var check func(*pb.JobSpec, []*pb.Proof) error
	if f.verify {
		check = (&service.Checker{KeysDir: f.keysDir}).Check
	}
	// One job first: the key setup and the engine are not part of the run.
	if _, err := service.LoadTest(ctx, cl, service.LoadConfig{Jobs: 1, Concurrency: 1, Spec: spec, Verify: check}); err != nil {
		return err
	}
	spec.Seed = 1000
	rep, err := service.LoadTest(ctx, cl, service.LoadConfig{Jobs: f.jobs, Concurrency: f.conc, Spec: spec, Verify: check})
	if err != nil {
		return err
	}
	f.report(rep, where, stdout, stderr)
	return nil
}

// report prints the load test's summary line on stderr and its table row
// (or JSON) on stdout.
func (f *loadtestFlags) report(rep *service.LoadReport, where string, stdout, stderr io.Writer) {
	proofs := rep.Jobs * f.partitions
	fmt.Fprintf(stderr, "loadtest: %d jobs (%d proofs) through the service %s in %.2fs: %.3f s/proof, %.2f proofs/s\n",
		rep.Jobs, proofs, where, rep.Elapsed.Seconds(), rep.Elapsed.Seconds()/float64(proofs), float64(proofs)/rep.Elapsed.Seconds())
	f.cf.print(stdout, rep, func() {
		mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
		fmt.Fprintf(stdout, "| jobs | concurrency | worker slots | job | p50 | p99 | max | jobs/s | goroutines before → after | heap in use before → after |\n")
		fmt.Fprintf(stdout, "|---|---|---|---|---|---|---|---|---|---|\n")
		fmt.Fprintf(stdout, "| %d | %d | %d | %s 2^%d ×%d | %.1f ms | %.1f ms | %.1f ms | %.1f | %d → %d | %.1f → %.1f MiB |\n",
			rep.Jobs, f.conc, f.slots, f.circuit, log2(f.size), f.partitions,
			ms(rep.P50), ms(rep.P99), ms(rep.Max), rep.JobsPerSecond,
			rep.GoroutinesBefore, rep.GoroutinesAfter, mib(rep.HeapBefore), mib(rep.HeapAfter))
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// log2 is the exponent of the power of two at or below n.
func log2(n int) int { return bits.Len(uint(n)) - 1 }
