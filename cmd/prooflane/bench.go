package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"golang.org/x/sync/errgroup"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/proving"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
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
	spans      []tracefile.Span // the timed jobs' spans (pipelines only)
}

// benchFlags are bench's flags.
type benchFlags struct {
	cf                                          circuitFlags
	partitions, jobs, inflight, devices, gnarkN int
	warmup                                      int
	backend                                     string
	seed                                        uint64
	set                                         setFlags
	asJSON                                      bool
	traceDir                                    string
}

func newBenchFlags(stderr io.Writer) (*flag.FlagSet, *benchFlags) {
	fs := newFlags("bench", "PIPELINE...", stderr)
	f := &benchFlags{set: newSetFlag(fs, "every pipeline")}
	f.cf.register(fs)
	fs.IntVar(&f.partitions, "partitions", 10, "partitions per job")
	fs.IntVar(&f.jobs, "jobs", 3, "jobs per pipeline")
	fs.IntVar(&f.inflight, "inflight", 3, "jobs in flight at once")
	fs.IntVar(&f.warmup, "warmup", 0, "partitions of the untimed job each pipeline runs first (default: --partitions): it makes the key's bases resident and grows the host's and devices' memory pools to what the timed jobs use, so that the first layout is not the slow one; 1 at large sizes, where a partition takes seconds")
	fs.IntVar(&f.devices, "devices", 0, "devices to run on (default: each pipeline's devices)")
	fs.StringVar(&f.backend, "backend", "cpu", backendHelp)
	fs.IntVar(&f.gnarkN, "gnark", 0, "also time this many proofs with the family's baseline prover (groth16: gnark's own groth16.Prove), one after the other")
	fs.Uint64Var(&f.seed, "seed", 1, "witness seed")
	fs.StringVar(&f.traceDir, "trace-dir", "", "write each pipeline's timed jobs' spans to `dir`/LAYOUT.jsonl (OTLP JSON lines, for analyze and simulate --from)")
	fs.BoolVar(&f.asJSON, "json", false, "print the results as one JSON document on stdout (schema in docs/json.md) instead of the table")
	return fs, f
}

// parse parses and checks the flags on their own.
func (f *benchFlags) parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkCounts(fs, "devices", "partitions", "jobs", "inflight"); err != nil {
		return err
	}
	if f.gnarkN < 0 || f.gnarkN > maxGnarkProofs {
		return usageErrorf(fs, "--gnark %d: want 0 to %d, the limit on gnark proofs (each takes seconds at 2^20)", f.gnarkN, maxGnarkProofs)
	}
	if fs.NArg() == 0 && f.gnarkN == 0 {
		return usageErrorf(fs, "no pipeline given (a file or an embedded name) and no --gnark")
	}
	if f.partitions < 1 || f.jobs < 1 || f.inflight < 1 {
		return usageErrorf(fs, "--partitions, --jobs and --inflight must be at least 1")
	}
	if f.warmup < 0 {
		return usageErrorf(fs, "--warmup %d: want the warm-up job's partitions, at least 1 (0: as many as --partitions)", f.warmup)
	}
	if f.warmup == 0 {
		f.warmup = f.partitions
	}
	if err := checkBackend(f.backend); err != nil {
		return err
	}
	if f.traceDir != "" {
		// Made now, so that a folder that cannot be is an error before the runs.
		if err := os.MkdirAll(f.traceDir, 0o755); err != nil {
			return fmt.Errorf("--trace-dir: %w", err)
		}
	}
	f.set["partitions"] = strconv.Itoa(f.partitions)
	return nil
}

// loadPipelines loads the pipelines named, all of one family, and
// returns them with that family and the devices to run on. With none
// (--gnark alone) the family is the default pipeline's.
func (f *benchFlags) loadPipelines(names []string) ([]*proving.Pipeline, family.Prover, int, error) {
	var (
		ps   []*proving.Pipeline
		nDev = f.devices
	)
	if len(names) == 0 {
		names = []string{"groth16"}
	}
	for _, name := range names {
		p, err := loadPipeline(name, f.set)
		if err != nil {
			return nil, nil, 0, err
		}
		pp, err := proofFamily(p)
		if err != nil {
			return nil, nil, 0, err
		}
		if len(ps) > 0 && pp.Family.Name() != ps[0].Family.Name() {
			return nil, nil, 0, fmt.Errorf("%s: pipeline %q is of the %s family, %q before it of the %s family: bench compares the layouts of one family on the same keys",
				p.File, p.Name, pp.Family.Name(), ps[0].Name, ps[0].Family.Name())
		}
		ps = append(ps, pp)
		if f.devices == 0 {
			nDev = max(nDev, p.Devices)
		}
	}
	return ps, ps[0].Family, max(nDev, 1), nil
}

func runBench(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs, f := newBenchFlags(stderr)
	if err := f.parse(fs, args); err != nil {
		return err
	}
	ps, fp, nDev, err := f.loadPipelines(fs.Args())
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	req, err := f.cf.request(ctx, fs, ps[0].Pipeline, fp)
	if err != nil {
		return err
	}
	baseline, ok := fp.(family.Baseline)
	if f.gnarkN > 0 && !ok {
		return usageErrorf(fs, "--gnark: pipeline %q is of the %s family, which has no baseline prover to time", ps[0].Name, fp.Name())
	}
	if fs.NArg() == 0 {
		ps = nil // --gnark alone: the default pipeline only named the family
	}
	perJob := 0 // partitions of one job in flight: max_in_flight bounds them
	for _, p := range ps {
		perJob = max(perJob, min(f.partitions, p.InFlight(nDev)))
	}
	req.OnDevice = ownMemory(f.backend)
	var params []map[string]string
	for _, p := range ps {
		params = append(params, p.Params)
	}
	if err := checkHostMemory(stderr, "bench", fp, req, params, perJob*f.inflight); err != nil {
		return err
	}
	reload := func(override map[string]string) error {
		maps.Copy(f.set, override)
		again, _, _, err := f.loadPipelines(fs.Args())
		if err == nil {
			ps = again
		}
		return err
	}
	for _, p := range ps {
		printAuto(stderr, "bench", p.Pipeline, nDev)
	}
	src := jobSource{req: req, n: f.partitions, seed: f.seed}
	key, be, job, err := openJob(ctx, "bench", fp, src, f.backend, nDev, planOf(runtimePipelines(ps), perJob*f.inflight, nDev, f.set, reload), stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	f.printHeader(stderr, key, be.Name(), nDev)
	var rows []benchRow
	if f.gnarkN > 0 {
		r, err := benchBaseline(baseline, job, f.partitions, f.gnarkN, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	traces := traceFiles(f.traceDir, runtimePipelines(ps))
	for i, p := range ps {
		r, err := benchPipeline(ctx, p.Pipeline, job.Payload(), familyVerifier(p, job), be, nDev, f.jobs, f.inflight, f.partitions, f.warmup, stderr)
		if err == nil && traces != nil {
			err = writeTrace(traces[i], r.spans)
		}
		if err != nil {
			return fmt.Errorf("pipeline %q: %w", p.File, err)
		}
		rows = append(rows, r)
	}
	if f.asJSON {
		sys := key.System()
		return writeJSON(stdout, benchJSON(sys.Name, sys.Size, key.Constraints(), f.jobs, f.partitions, f.inflight, be.Name(), nDev, rows))
	}
	writeBenchTable(stdout, rows)
	return nil
}

// runtimePipelines are ps's parsed pipelines.
func runtimePipelines(ps []*proving.Pipeline) []*runtime.Pipeline {
	out := make([]*runtime.Pipeline, len(ps))
	for i, p := range ps {
		out[i] = p.Pipeline
	}
	return out
}

// printHeader says on stderr what bench runs.
func (f *benchFlags) printHeader(stderr io.Writer, key family.Key, backend string, nDev int) {
	sys := key.System()
	fmt.Fprintf(stderr, "bench: %s at size %d (%d constraints), %d jobs × %d partitions, %d in flight, backend %s, %s\n",
		sys.Name, sys.Size, key.Constraints(), f.jobs, f.partitions, f.inflight, backend, plural(nDev, "device"))
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

// benchBaseline proves n partitions' witnesses (of the job's partitions,
// in turn) with the family's baseline prover, one after the other, each
// verified.
func benchBaseline(b family.Baseline, job family.Job, partitions, n int, stderr io.Writer) (benchRow, error) {
	row := benchRow{name: b.BaselineName(), isBaseline: true}
	var peak peakRSS
	stopRSS := peak.watch()
	began := time.Now()
	for i := 0; i < n; i++ {
		if err := b.ProveBaseline(job, i%partitions); err != nil {
			stopRSS()
			return row, fmt.Errorf("baseline proof %d: %w", i, err)
		}
	}
	row.seconds = time.Since(began).Seconds()
	stopRSS()
	row.proofs, row.peakRSS = n, peak.max
	fmt.Fprintf(stderr, "bench: %s: %d proofs in %.2fs\n", row.name, n, row.seconds)
	return row, nil
}

// proofVerifier checks the proof among a partition's outputs.
type proofVerifier func(partition int, outputs map[string]any) error

// familyVerifier checks a family's proof the way verify does: the output
// of p's final proof stage, encoded to the partition's files and checked
// once (proving.Pipeline.PartitionFiles).
func familyVerifier(p *proving.Pipeline, fj family.Job) proofVerifier {
	return func(partition int, outputs map[string]any) error {
		_, err := p.PartitionFiles(fj, partition, outputs)
		return err
	}
}

func benchPipeline(ctx context.Context, p *runtime.Pipeline, payload any, verify proofVerifier, be device.Backend, nDev, jobs, inflight, partitions, warmup int, stderr io.Writer) (benchRow, error) {
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
	// Warm up: the first job on a backend makes the key's bases resident,
	// and one as large as a timed job grows the memory pools (host heap,
	// pinned staging buffers, the device's stream-ordered allocations) to
	// what the timed jobs use. With a one-partition warm-up the first
	// layout of a process ran 0.78-0.86x the same layout run last on the
	// H200; with one as large as a timed job, 1.03x
	// (docs/design/groth16-pipeline.md).
	began := time.Now()
	if _, err := e.Run(ctx, runtime.Job{ID: "warmup", Partitions: warmup, Payload: payload}); err != nil {
		return row, fmt.Errorf("warm-up job: %w", err)
	}
	fmt.Fprintf(stderr, "bench: %s: warm-up job of %d partition(s) in %.2fs, untimed\n", p.Name, warmup, time.Since(began).Seconds())
	rec.reset()

	var peak peakRSS
	stopRSS := peak.watch()
	vram := watchVRAM(be)
	began = time.Now()
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
	row.spans = tracefile.FromSDK(rec.spans())
	rep, err := analyze.Analyze(row.spans, analyze.Options{})
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

// traceFiles names the file of each pipeline's spans in dir: LAYOUT.jsonl,
// LAYOUT-2.jsonl for a layout named twice; nil without a dir.
func traceFiles(dir string, ps []*runtime.Pipeline) []string {
	if dir == "" {
		return nil
	}
	seen := map[string]int{}
	files := make([]string, len(ps))
	for i, p := range ps {
		seen[p.Name]++
		name := p.Name
		if n := seen[p.Name]; n > 1 {
			name = fmt.Sprintf("%s-%d", name, n)
		}
		files[i] = filepath.Join(dir, name+".jsonl")
	}
	return files
}

// writeTrace writes spans to path as OTLP JSON lines.
func writeTrace(path string, spans []tracefile.Span) error {
	var buf bytes.Buffer
	if err := tracefile.Write(&buf, spans); err != nil {
		return fmt.Errorf("--trace-dir: %s: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--trace-dir: %w", err)
	}
	return nil
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
				vram = admission.HumanBytes(r.peakVRAM)
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
			r.name, r.proofs, spp, 1/spp, vs, busy, waits, vram, admission.HumanBytes(r.peakRSS))
	}
	tw.Flush()
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
