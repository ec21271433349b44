package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"golang.org/x/sync/errgroup"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

func init() {
	register("bench", command{summary: "compare pipelines (and gnark's prover) on the same keys in one process", run: runBench})
}

// benchRow is one line of the bench table.
type benchRow struct {
	name       string
	proofs     int
	seconds    float64
	busy       float64    // mean over devices of analyze's busy fraction
	waits      []lockWait // mean wait of the acquisitions that waited, by lock (otel/lockstats)
	peakVRAM   uint64
	peakRSS    uint64
	isBaseline bool
}

func runBench(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("bench", "PIPELINE...", stderr)
	var cf circuitFlags
	cf.register(fs)
	partitions := fs.Int("partitions", 10, "partitions per job")
	jobs := fs.Int("jobs", 3, "jobs per pipeline")
	inflight := fs.Int("inflight", 3, "jobs in flight at once")
	devices := fs.Int("devices", 0, "devices to run on (default: each pipeline's devices)")
	backend := fs.String("backend", "cpu", "device backend: cpu, cuda or auto")
	gnarkN := fs.Int("gnark", 0, "also time this many proofs with gnark's own groth16.Prove, one after the other")
	seed := fs.Uint64("seed", 1, "witness seed")
	set := setFlags{}
	fs.Var(set, "set", "override a parameter of every pipeline, name=value (repeatable)")
	asJSON := fs.Bool("json", false, "print the results as one JSON document on stdout (schema in docs/json.md) instead of the table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "devices", "partitions", "jobs", "inflight"); err != nil {
		return err
	}
	if *gnarkN < 0 || *gnarkN > maxGnarkProofs {
		return usageErrorf(fs, "--gnark %d: want 0 to %d, the limit on gnark proofs (each takes seconds at 2^20)", *gnarkN, maxGnarkProofs)
	}
	if fs.NArg() == 0 && *gnarkN == 0 {
		return usageErrorf(fs, "no pipeline given (a file or an embedded name) and no --gnark")
	}
	if *partitions < 1 || *jobs < 1 || *inflight < 1 {
		return usageErrorf(fs, "--partitions, --jobs and --inflight must be at least 1")
	}
	if err := checkBackend(*backend); err != nil {
		return err
	}
	set["partitions"] = strconv.Itoa(*partitions)
	var (
		ps   []*runtime.Pipeline
		rows []benchRow
		err  error
	)
	var fam family.Family // the pipelines' one family; nil with --gnark alone
	nDev := *devices
	for _, f := range fs.Args() {
		p, err := loadPipeline(f, set)
		if err != nil {
			return err
		}
		pf, err := proofFamily(p)
		if err != nil {
			return err
		}
		if fam != nil && pf.Name() != fam.Name() {
			return fmt.Errorf("%s: pipeline %q is of the %s family, %q before it of the %s family: bench compares the layouts of one family on the same keys",
				p.File, p.Name, pf.Name(), ps[0].Name, fam.Name())
		}
		fam = pf
		ps = append(ps, p)
		if *devices == 0 {
			nDev = max(nDev, p.Devices)
		}
	}
	nDev = max(nDev, 1)
	// fp is a family bench drives through stages/family; nil for Groth16.
	fp, _ := fam.(family.Prover)
	var size int
	if fp == nil {
		if size, err = cf.parse(); err != nil {
			return err
		}
	} else {
		if *gnarkN > 0 {
			return usageErrorf(fs, "--gnark: pipeline %q is of the %s family; gnark's prover is a baseline for groth16 pipelines only", ps[0].Name, fp.Name())
		}
		if size, err = familySize(fs, cf, ps[0], fp); err != nil {
			return err
		}
	}

	perJob := 0 // partitions of one job in flight: max_in_flight bounds them
	for _, p := range ps {
		perJob = max(perJob, min(*partitions, p.InFlight(nDev)))
	}
	if fp == nil {
		if err := checkHostMemory(stderr, "bench", cf, size, perJob**inflight, false); err != nil {
			return err
		}
	}
	ctx, stop := signalContext()
	defer stop()
	var (
		be          device.Backend
		payload     any
		circuit     = cf.circuit
		constraints = size
		verifier    func(p *runtime.Pipeline) proofVerifier
	)
	if fp == nil {
		var ks *keys.Set
		var job *groth16.Job
		if ks, be, job, err = openJob(ctx, "bench", cf, size, *partitions, *seed, *backend, nDev, stderr); err != nil {
			return err
		}
		payload, constraints = job, ks.R1CS.GetNbConstraints()
		verifier = func(*runtime.Pipeline) proofVerifier { return groth16Verifier(job) }
		defer be.Close()
		fmt.Fprintf(stderr, "bench: %s at size %d (%d constraints), %d jobs × %d partitions, %d in flight, backend %s, %d devices\n",
			cf.circuit, size, constraints, *jobs, *partitions, *inflight, be.Name(), nDev)
		if *gnarkN > 0 {
			r, err := benchGnark(job, ks, *gnarkN, stderr)
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
	} else {
		if be, err = openBackend("bench", *backend, nDev, stderr); err != nil {
			return err
		}
		defer be.Close()
		fj, _, err := familyJob(ctx, fp, cf.keys, size, *partitions, *seed, stderr)
		if err != nil {
			return err
		}
		circuit, payload = fp.Name(), fj.Payload()
		verifier = func(p *runtime.Pipeline) proofVerifier { return familyVerifier(p, fp, fj) }
		fmt.Fprintf(stderr, "bench: the %s family at size %d, %d jobs × %d partitions, %d in flight, backend %s, %d devices\n",
			fp.Name(), size, *jobs, *partitions, *inflight, be.Name(), nDev)
	}
	for _, p := range ps {
		r, err := benchPipeline(ctx, p, payload, verifier(p), be, nDev, *jobs, *inflight, *partitions, stderr)
		if err != nil {
			return fmt.Errorf("pipeline %q: %w", p.File, err)
		}
		rows = append(rows, r)
	}
	if *asJSON {
		return writeJSON(stdout, benchJSON(circuit, size, constraints, *jobs, *partitions, *inflight, be.Name(), nDev, rows))
	}
	writeBenchTable(stdout, rows)
	return nil
}

// benchOutput is bench --json (docs/json.md).
type benchOutput struct {
	Circuit     string         `json:"circuit"`
	Size        int            `json:"size"`
	Constraints int            `json:"constraints"`
	Jobs        int            `json:"jobs"`
	Partitions  int            `json:"partitions"`
	InFlight    int            `json:"inflight"`
	Backend     string         `json:"backend"`
	Devices     int            `json:"devices"`
	Rows        []benchRowJSON `json:"rows"`
}

type benchRowJSON struct {
	Layout     string  `json:"layout"`
	Baseline   bool    `json:"baseline"`
	Proofs     int     `json:"proofs"`
	Seconds    float64 `json:"seconds"`
	SPerProof  float64 `json:"s_per_proof"`
	ProofsPerS float64 `json:"proofs_per_s"`
	// VsGnark is the baseline's time per proof over this row's; null
	// without a --gnark row.
	VsGnark *float64 `json:"vs_gnark"`
	// GPUBusyPct is null for the gnark row.
	GPUBusyPct     *float64           `json:"gpu_busy_pct"`
	MeanLockWaitMS map[string]float64 `json:"mean_lock_wait_ms"`
	PeakVRAMBytes  uint64             `json:"peak_vram_bytes"`
	PeakRSSBytes   uint64             `json:"peak_rss_bytes"`
}

func benchJSON(circuit string, size, constraints, jobs, partitions, inflight int, backend string, devices int, rows []benchRow) benchOutput {
	out := benchOutput{Circuit: circuit, Size: size, Constraints: constraints, Jobs: jobs, Partitions: partitions,
		InFlight: inflight, Backend: backend, Devices: devices, Rows: []benchRowJSON{}}
	base := baselineSecondsPerProof(rows)
	for _, r := range rows {
		spp := r.seconds / float64(r.proofs)
		j := benchRowJSON{Layout: r.name, Baseline: r.isBaseline, Proofs: r.proofs, Seconds: r.seconds, SPerProof: spp,
			ProofsPerS: 1 / spp, MeanLockWaitMS: map[string]float64{}, PeakVRAMBytes: r.peakVRAM, PeakRSSBytes: r.peakRSS}
		if base > 0 {
			vs := base / spp
			j.VsGnark = &vs
		}
		if !r.isBaseline {
			busy := 100 * r.busy
			j.GPUBusyPct = &busy
		}
		for _, w := range r.waits {
			j.MeanLockWaitMS[w.lock] = float64(w.mean) / float64(time.Millisecond)
		}
		out.Rows = append(out.Rows, j)
	}
	return out
}

// benchGnark proves n partitions' witnesses with gnark's own prover on the
// same keys, one after the other.
func benchGnark(job *groth16.Job, ks *keys.Set, n int, stderr io.Writer) (benchRow, error) {
	row := benchRow{name: "gnark groth16.Prove (CPU, sequential)", isBaseline: true}
	var peak peakRSS
	stopRSS := peak.watch()
	began := time.Now()
	for i := 0; i < n; i++ {
		p := i % len(job.Witnesses)
		proof, err := g16.Prove(ks.R1CS, ks.PK, job.Witnesses[p])
		if err != nil {
			stopRSS()
			return row, fmt.Errorf("gnark prove: %w", err)
		}
		if err := job.Verify(p, proof); err != nil {
			stopRSS()
			return row, fmt.Errorf("gnark proof %d: %w", i, err)
		}
	}
	row.seconds = time.Since(began).Seconds()
	stopRSS()
	row.proofs, row.peakRSS = n, peak.max
	fmt.Fprintf(stderr, "bench: gnark: %d proofs in %.2fs\n", n, row.seconds)
	return row, nil
}

// proofVerifier checks the proof among a partition's outputs.
type proofVerifier func(partition int, outputs map[string]any) error

// groth16Verifier checks a partition's Groth16 proof with gnark's verifier.
func groth16Verifier(job *groth16.Job) proofVerifier {
	return func(partition int, outputs map[string]any) error {
		proof := findProof(outputs)
		if proof == nil {
			return errors.New("no proof in the outputs")
		}
		return job.Verify(partition, proof)
	}
}

// familyVerifier checks a family.Prover's proof the way verify does: the
// output of p's final proof stage, encoded to a proof file's bytes and
// checked by Job.VerifyProof.
func familyVerifier(p *runtime.Pipeline, fp family.Prover, fj family.Job) proofVerifier {
	final := family.FinalProofStages(p, fp)
	return func(partition int, outputs map[string]any) error {
		out, ok := outputs[final[0]]
		if !ok {
			return fmt.Errorf("pipeline %q produced no %s proof (outputs %v)", p.Name, fp.Name(), keysOf(outputs))
		}
		files, err := fj.Files(partition, out)
		if err != nil {
			return err
		}
		return fj.Verify(partition, files)
	}
}

func benchPipeline(ctx context.Context, p *runtime.Pipeline, payload any, verify proofVerifier, be device.Backend, nDev, jobs, inflight, partitions int, stderr io.Writer) (benchRow, error) {
	row := benchRow{name: p.Name}
	rec := &spanRecorder{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: tp, Devices: nDev, Backend: be})
	if err != nil {
		return row, err
	}
	// Closed before the caller closes the backend it was lent.
	defer e.Close(context.Background())
	// Warm up: the first job on a backend makes the key's bases resident.
	if _, err := e.Run(ctx, runtime.Job{ID: "warmup", Partitions: 1, Payload: payload}); err != nil {
		return row, fmt.Errorf("warm-up job: %w", err)
	}
	rec.reset()

	var peak peakRSS
	stopRSS := peak.watch()
	vram := watchVRAM(be)
	began := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(inflight)
	results := make([]*runtime.Result, jobs)
	for j := 0; j < jobs; j++ {
		g.Go(func() error {
			r, err := e.Run(gctx, runtime.Job{ID: fmt.Sprintf("bench-%d", j+1), Partitions: partitions, Payload: payload})
			results[j] = r
			return err
		})
	}
	err = g.Wait()
	row.seconds = time.Since(began).Seconds()
	stopRSS()
	row.peakVRAM = vram()
	row.peakRSS = peak.max
	if err != nil {
		return row, err
	}
	for _, r := range results {
		for _, pr := range r.Partitions {
			if err := verify(pr.Index, pr.Outputs); err != nil {
				return row, fmt.Errorf("job %s partition %d: %w", r.ID, pr.Index, err)
			}
			row.proofs++
		}
	}
	// GPU busy as prooflane analyze computes it from the timed jobs' spans.
	rep, err := analyze.Analyze(tracefile.FromSDK(rec.spans()), analyze.Options{})
	if err != nil {
		return row, err
	}
	for _, d := range rep.Devices {
		row.busy += d.BusyPct / 100 / float64(nDev)
	}
	row.waits = meanWaits(rep)
	fmt.Fprintf(stderr, "bench: %s: %d proofs in %.2fs, every one verified\n", p.Name, row.proofs, row.seconds)
	return row, nil
}

// lockWait is a lock's mean wait, over the acquisitions that waited.
type lockWait struct {
	lock string
	mean time.Duration
}

// meanWaits lists each lock's (not worker pool's) mean wait during the
// timed jobs, as analyze defines it (docs/observability.md).
func meanWaits(rep *analyze.Report) []lockWait {
	var waits []lockWait
	for _, r := range rep.Resources {
		if strings.HasPrefix(r.Name, "workers.") || r.Holds == 0 {
			continue
		}
		waits = append(waits, lockWait{r.Name, r.WaitMean})
	}
	return waits
}

// baselineSecondsPerProof is the gnark row's time per proof, 0 without one.
func baselineSecondsPerProof(rows []benchRow) float64 {
	for _, r := range rows {
		if r.isBaseline {
			return r.seconds / float64(r.proofs)
		}
	}
	return 0
}

func writeBenchTable(w io.Writer, rows []benchRow) {
	base := baselineSecondsPerProof(rows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "| layout\t| proofs\t| s/proof\t| proofs/s\t| vs gnark\t| GPU busy\t| mean lock wait\t| peak VRAM\t| peak RSS\t|")
	fmt.Fprintln(tw, "|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|")
	for _, r := range rows {
		spp := r.seconds / float64(r.proofs)
		vs, busy, vram := "-", "-", "-"
		if base > 0 {
			vs = fmt.Sprintf("%.1fx", base/spp)
		}
		if !r.isBaseline {
			busy = fmt.Sprintf("%.0f%%", 100*r.busy)
			if r.peakVRAM > 0 {
				vram = humanBytes(r.peakVRAM)
			}
		}
		waits := "-"
		if len(r.waits) > 0 {
			var parts []string
			for _, w := range r.waits {
				parts = append(parts, fmt.Sprintf("%s %s", w.lock, w.mean.Round(time.Millisecond)))
			}
			waits = strings.Join(parts, ", ")
		}
		fmt.Fprintf(tw, "| %s\t| %d\t| %.3f\t| %.2f\t| %s\t| %s\t| %s\t| %s\t| %s\t|\n",
			r.name, r.proofs, spp, 1/spp, vs, busy, waits, vram, humanBytes(r.peakRSS))
	}
	tw.Flush()
}

func humanBytes(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

// spanRecorder keeps ended spans for analyze.
type spanRecorder struct {
	mu    sync.Mutex
	ended []sdktrace.ReadOnlySpan
}

func (r *spanRecorder) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (r *spanRecorder) Shutdown(context.Context) error                  { return nil }
func (r *spanRecorder) ForceFlush(context.Context) error                { return nil }

func (r *spanRecorder) OnEnd(s sdktrace.ReadOnlySpan) {
	r.mu.Lock()
	r.ended = append(r.ended, s)
	r.mu.Unlock()
}

func (r *spanRecorder) reset() {
	r.mu.Lock()
	r.ended = nil
	r.mu.Unlock()
}

func (r *spanRecorder) spans() []sdktrace.ReadOnlySpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sdktrace.ReadOnlySpan(nil), r.ended...)
}

// watchVRAM samples the devices' free memory until the returned function
// is called, which returns the peak memory in use on any device.
func watchVRAM(be device.Backend) func() uint64 {
	stop := make(chan struct{})
	var peak uint64
	var wg sync.WaitGroup
	sample := func() {
		for _, d := range be.Devices() {
			if d.MemTotal > 0 && d.MemTotal-d.MemFree > peak {
				peak = d.MemTotal - d.MemFree
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			sample()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		wg.Wait()
		return peak
	}
}

// peakRSS samples the process's resident set size.
type peakRSS struct{ max uint64 }

func (p *peakRSS) watch() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if r := readRSS(); r > p.max {
				p.max = r
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// readRSS returns VmRSS from /proc/self/status, or 0 where there is none.
func readRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
