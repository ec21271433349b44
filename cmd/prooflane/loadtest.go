package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strings"
	"time"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"

	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/service"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

func init() {
	register("loadtest", command{summary: "load-test the proving service: jobs of your own circuit (--ccs, --witness) or tiny built-in ones through the API of a service in this process (or --addr); latency, throughput, goroutines and heap", run: runLoadtest})
}

// maxLoadJobs bounds loadtest --jobs.
const maxLoadJobs = 100_000

// loadtestFlags are loadtest's flags, checked.
type loadtestFlags struct {
	fs                                  *flag.FlagSet
	cf                                  clientFlags
	jobs, conc, slots, partitions, size int
	circuit, keysDir, pipeline          string
	ccs, pk, vk                         string
	witnesses                           filesFlag
	priorities                          []pb.Priority
	verify                              bool
}

// parseLoadtest parses and checks loadtest's flags.
func parseLoadtest(args []string, stderr io.Writer) (*loadtestFlags, error) {
	f := &loadtestFlags{fs: newFlags("loadtest", "", stderr)}
	fs := f.fs
	fs.IntVar(&f.jobs, "jobs", 1000, "jobs to submit")
	fs.IntVar(&f.conc, "concurrency", 32, "jobs submitted and not yet awaited at once")
	fs.IntVar(&f.slots, "workers", 2, "jobs the service's worker runs at once")
	fs.StringVar(&f.ccs, "ccs", "", "FILE: your own circuit's constraint system (gnark's WriteTo), added first; each job proves --partitions of the --witness files, in turn")
	fs.Var(&f.witnesses, "witness", "FILE: a full witness of the --ccs circuit (gnark's witness MarshalBinary); repeat it")
	fs.StringVar(&f.pk, "pk", "", "FILE: your own proving key for --ccs, with --vk (default: the workers set up keys)")
	fs.StringVar(&f.vk, "vk", "", "FILE: your own verifying key for --ccs, with --pk; the proofs are checked against it")
	fs.StringVar(&f.circuit, "circuit", "chain", "the built-in circuit, without --ccs")
	size := fs.String("size", "2^5", "the built-in circuit's size: 32 or 2^5")
	fs.IntVar(&f.partitions, "partitions", 1, "proofs per job")
	fs.StringVar(&f.keysDir, "keys", "", "key cache directory (default: a temporary one; with --addr, the service's, to check the proofs)")
	fs.StringVar(&f.pipeline, "pipeline", "groth16", "an embedded pipeline's name (with --ccs: the circuit's)")
	prios := fs.String("priorities", "normal", "the jobs' lanes, in turn: a comma-separated list of critical, high, normal, low")
	fs.BoolVar(&f.verify, "verify", true, "check every proof with the family's verifier here too (the worker already did); with --addr, needs --keys or --vk")
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
	for _, p := range strings.Split(*prios, ",") {
		prio, err := service.ParsePriority(strings.TrimSpace(p))
		if err != nil {
			return nil, usageErrorf(fs, "--priorities: %w", err)
		}
		f.priorities = append(f.priorities, prio)
	}
	return f, f.checkCircuit()
}

// checkCircuit checks the flags of a user's circuit.
func (f *loadtestFlags) checkCircuit() error {
	fs := f.fs
	switch {
	case f.ccs == "" && (len(f.witnesses) > 0 || f.pk != "" || f.vk != ""):
		return usageErrorf(fs, "--witness, --pk and --vk are for your own circuit: give its constraint system with --ccs")
	case f.ccs != "" && len(f.witnesses) == 0:
		return usageErrorf(fs, "--ccs: give the witnesses its jobs prove with --witness FILE")
	case (f.pk == "") != (f.vk == ""):
		return usageErrorf(fs, "--pk and --vk go together")
	case f.ccs != "" && (flagGiven(fs, "circuit") || flagGiven(fs, "size")):
		return usageErrorf(fs, "--circuit and --size are a built-in circuit's; --ccs is your own")
	case f.cf.addr != "" && f.verify && f.keysDir == "" && f.vk == "":
		return usageErrorf(fs, "--verify with --addr needs --keys, the service's key cache, or --vk (or --verify=false)")
	}
	return nil
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
	cfg, what, err := f.config(ctx, cl, stderr)
	if err != nil {
		return err
	}
	// One job first: the key setup and the engine are not part of the run.
	first := cfg
	first.Jobs, first.Concurrency = 1, 1
	if _, err := service.LoadTest(ctx, cl, first); err != nil {
		return err
	}
	if cfg.Witnesses == nil {
		cfg.Spec.Seed = 1000
	}
	rep, err := service.LoadTest(ctx, cl, cfg)
	if err != nil {
		return err
	}
	f.report(rep, what, where, stdout, stderr)
	return nil
}

// config is the load test's jobs: the user's circuit's (added first,
// each job proving --partitions of the witnesses in turn) or a built-in
// circuit's, with the check of their proofs; and what a job is, for the
// table.
func (f *loadtestFlags) config(ctx context.Context, cl prooflanev1connect.ProverServiceClient, stderr io.Writer) (service.LoadConfig, string, error) {
	cfg := service.LoadConfig{Jobs: f.jobs, Concurrency: f.conc, Priorities: f.priorities}
	if f.ccs == "" {
		cfg.Spec = &pb.JobSpec{Pipeline: f.pipeline, Circuit: f.circuit, Size: uint64(f.size), Partitions: uint32(f.partitions), Seed: 1}
		if f.verify {
			cfg.Verify = (&service.Checker{KeysDir: f.keysDir}).Check
		}
		return cfg, fmt.Sprintf("%s 2^%d ×%d", f.circuit, log2(f.size), f.partitions), nil
	}
	added, err := service.AddCircuit(ctx, cl, service.CircuitFiles{Pipeline: f.pipeline, CCS: f.ccs, PK: f.pk, VK: f.vk})
	if err != nil {
		return cfg, "", circuitsError("loadtest: add --ccs", err)
	}
	c := added.Circuit
	fmt.Fprintf(stderr, "loadtest: %s\n", describeCircuit(c))
	ws, err := service.Witnesses(ctx, cl, c.CircuitId, f.witnesses)
	if err != nil {
		return cfg, "", fmt.Errorf("--witness: %w", err)
	}
	cfg.Spec = &pb.JobSpec{CircuitId: c.CircuitId}
	cfg.Witnesses = func(i int) []*pb.Witness {
		out := make([]*pb.Witness, f.partitions)
		for j := range out {
			out[j] = ws[(i*f.partitions+j)%len(ws)]
		}
		return out
	}
	if f.verify {
		check := &service.Checker{KeysDir: f.keysDir, Circuit: c, VKFile: f.vk, Uploaded: map[string][]byte{}}
		for i, w := range ws {
			if up := w.GetUpload(); up != "" {
				if check.Uploaded[up], err = regfile.ReadFile(f.witnesses[i], service.MaxWitnessBytes); err != nil {
					return cfg, "", fmt.Errorf("--witness: %w", err)
				}
			}
		}
		cfg.Verify = check.Check
	}
	return cfg, fmt.Sprintf("%s (%d constraints) ×%d", c.CircuitId, c.Constraints, f.partitions), nil
}

// report prints the load test's summary line on stderr and its table row
// (or JSON) on stdout.
func (f *loadtestFlags) report(rep *service.LoadReport, what, where string, stdout, stderr io.Writer) {
	proofs := rep.Jobs * f.partitions
	fmt.Fprintf(stderr, "loadtest: %d jobs (%d proofs) through the service %s in %.2fs: %.3f s/proof, %.2f proofs/s\n",
		rep.Jobs, proofs, where, rep.Elapsed.Seconds(), rep.Elapsed.Seconds()/float64(proofs), float64(proofs)/rep.Elapsed.Seconds())
	f.cf.print(stdout, rep, func() {
		mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
		fmt.Fprintf(stdout, "| jobs | concurrency | worker slots | job | p50 | p99 | max | jobs/s | goroutines before → after | heap in use before → after |\n")
		fmt.Fprintf(stdout, "|---|---|---|---|---|---|---|---|---|---|\n")
		fmt.Fprintf(stdout, "| %d | %d | %d | %s | %.1f ms | %.1f ms | %.1f ms | %.1f | %d → %d | %.1f → %.1f MiB |\n",
			rep.Jobs, f.conc, f.slots, what,
			ms(rep.P50), ms(rep.P99), ms(rep.Max), rep.JobsPerSecond,
			rep.GoroutinesBefore, rep.GoroutinesAfter, mib(rep.HeapBefore), mib(rep.HeapAfter))
		for _, l := range rep.Lanes {
			fmt.Fprintf(stdout, "\nlane %s: %d jobs, p50 %.1f ms, p99 %.1f ms", l.Lane, l.Jobs, ms(l.P50), ms(l.P99))
		}
		if len(rep.Lanes) > 0 {
			fmt.Fprintln(stdout)
		}
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// log2 is the exponent of the power of two at or below n.
func log2(n int) int { return bits.Len(uint(n)) - 1 }
