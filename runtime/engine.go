package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/prooflane/prooflane/device"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/resources"
	"github.com/prooflane/prooflane/stages"
)

// Options configure an Engine.
type Options struct {
	// Tracer receives the job, partition, stage and lock-wait spans; nil
	// records nothing.
	Tracer trace.TracerProvider
	// Devices overrides the pipeline's device count when above 0; at
	// most MaxDevices. The pipeline's auto counts (`workers: auto`,
	// `capacity: auto`) are then sized for it, with the cores the
	// pipeline was loaded for (AutoWorkers, AutoCapacity).
	Devices int
	// OnEvent, when set, is called for every stage start and end and every
	// partition and job end, from the goroutine that saw it: it must be
	// quick and safe for concurrent use.
	OnEvent func(Event)
	// Backend is the device backend the engine lends its stages through
	// the Host (stages.Starter). It must have at least as many devices as
	// the engine places partitions on (the pipeline's `devices:`, or
	// Devices above). The caller opened it and closes it, after Close has
	// returned: the engine never closes it. Nil lends no backend, for
	// pipelines whose stages need none.
	Backend device.Backend
	// Replace, when set, substitutes stage implementations (see
	// ReplaceFunc); the pipeline itself is left as it is.
	Replace ReplaceFunc
}

// Engine runs jobs on one pipeline. Jobs run concurrently share its
// resources and worker pools, as proofs in flight on one machine do.
//
// An engine's stages have a lifecycle: Start (called by the first Run
// when not before) starts the stages that implement stages.Starter, and
// Close waits for the jobs running, refuses new ones and shuts down the
// stages that implement stages.Stopper.
type Engine struct {
	p       *Pipeline
	devices int
	backend device.Backend
	life    lifecycle
	locks   *resources.Set
	workers *resources.Set
	tracer  trace.Tracer
	onEvent func(Event)
	plan    []stagePlan // by Stage.index
	// inFlight bounds the partitions of one job admitted at once.
	inFlight int

	placeMu sync.Mutex
	placed  []int // partitions now placed on each device
	given   []int // partitions ever placed on each device

	jobSeq int64
}

// stagePlan is a stage's claims resolved to resource IDs per device, so the
// hot path never looks names up.
type stagePlan struct {
	impl   stages.Stage        // built by the type's New for this engine, or Options.Replace's
	worker []resources.ID      // by device; one entry when not device-bound
	start  [][]resources.Claim // stage locks plus spans starting here, by device
	spans  [][]resources.Claim // the span part of start, by device
	slots  []*slotPool         // worker slot numbers, by device
	locks  [][]string          // concrete names held while running, by device
}

// NewEngine prepares an engine: it expands `{gpu}` resources over the
// devices, resolves every lock, and constructs each stage with its type's
// New and the stage's Config. A constructor's error names the stage and
// its position in the pipeline file. On another device count than the
// pipeline was loaded for, auto counts are sized for the engine's: a
// stage whose claims no longer fit a smaller auto capacity is an error
// naming it.
func NewEngine(p *Pipeline, opts Options) (*Engine, error) {
	devices := p.Devices
	if opts.Devices > 0 {
		devices = opts.Devices
	}
	if devices > MaxDevices {
		return nil, fmt.Errorf("pipeline %q: %d devices is above %d, the limit on devices", p.Name, devices, MaxDevices)
	}
	if be := opts.Backend; be != nil {
		if have := len(be.Devices()); have < devices {
			return nil, fmt.Errorf("pipeline %q: %d devices wanted, but the %q backend has %d: %w", p.Name, devices, be.Name(), have, device.ErrNoDevice)
		}
	}
	// Auto counts follow the engine's devices, not only the loader's.
	decls, err := p.resourcesOn(devices)
	if err != nil {
		return nil, err
	}
	locks, err := resources.NewSet(decls, devices)
	if err != nil {
		return nil, fmt.Errorf("pipeline %q: %w", p.Name, err)
	}
	counts := p.workersOn(devices)
	var wdecls []resources.Decl
	for _, s := range p.Stages {
		name := "workers." + s.Name
		if s.DeviceBound {
			name += ".{gpu}"
		}
		wdecls = append(wdecls, resources.Decl{Name: name, Capacity: int64(counts[s.index])})
	}
	workers, err := resources.NewSet(wdecls, devices)
	if err != nil {
		return nil, fmt.Errorf("pipeline %q: worker pools: %w", p.Name, err)
	}
	tp := opts.Tracer
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	e := &Engine{
		p: p, devices: devices, backend: opts.Backend, locks: locks, workers: workers,
		tracer:  tp.Tracer("github.com/prooflane/prooflane/runtime"),
		onEvent: opts.OnEvent,
		placed:  make([]int, devices),
		given:   make([]int, devices),
	}
	e.inFlight = p.InFlight(devices)
	e.plan = make([]stagePlan, len(p.Stages))
	for _, s := range p.Stages {
		if err := e.planStage(s, wdecls[s.index].Name, counts[s.index]); err != nil {
			return nil, err
		}
	}
	for _, s := range p.Stages {
		impl, err := construct(p, s, opts.Replace)
		if err != nil {
			return nil, err
		}
		e.plan[s.index].impl = impl
	}
	return e, nil
}

func (e *Engine) planStage(s *Stage, workerName string, workers int) error {
	pl := &e.plan[s.index]
	n := 1
	if s.DeviceBound {
		n = e.devices
	}
	for d := 0; d < n; d++ {
		wid, err := e.workers.Lookup(workerName, d)
		if err != nil {
			return fmt.Errorf("stage %q: %w", s.Name, err)
		}
		var start, spans []resources.Claim
		var names []string
		for _, lk := range s.Locks {
			id, err := e.locks.Lookup(lk.Resource, d)
			if err != nil {
				return fmt.Errorf("stage %q: %w", s.Name, err)
			}
			start = append(start, resources.Claim{ID: id, Weight: lk.Weight})
			names = append(names, e.locks.Name(id))
		}
		for _, sp := range s.spanStarts {
			id, err := e.locks.Lookup(sp.Resource, d)
			if err != nil {
				return fmt.Errorf("span of %q: %w", sp.Resource, err)
			}
			c := resources.Claim{ID: id, Weight: sp.Weight}
			start = append(start, c)
			spans = append(spans, c)
		}
		// Locks held through a span are held while this stage runs too.
		for _, sp := range s.within {
			id, _ := e.locks.Lookup(sp.Resource, d)
			names = append(names, e.locks.Name(id))
		}
		pl.worker = append(pl.worker, wid)
		pl.start = append(pl.start, start)
		pl.spans = append(pl.spans, spans)
		pl.slots = append(pl.slots, newSlotPool(workers))
		pl.locks = append(pl.locks, names)
	}
	return nil
}

// defaultInFlight is the bound on partitions in flight when the pipeline
// gives none: one per worker slot of every stage (device-bound stages have
// theirs on each device), so that every worker can be busy at once and
// memory follows the worker counts, not the partition count.
func defaultInFlight(p *Pipeline, devices int) int {
	var n int64
	counts := p.workersOn(devices)
	for _, s := range p.Stages {
		w := int64(counts[s.index])
		if s.DeviceBound {
			w = satMul(w, int64(devices))
		}
		n = satAdd(n, w)
	}
	return int(min(max(n, 1), MaxPartitions))
}

// InFlight returns the most partitions of one job that an engine on p
// with the given devices runs at once: max_in_flight, or by default the
// worker slots of every stage; always within 1..MaxPartitions (a
// Pipeline built in code may carry any MaxInFlight). Callers that size
// memory by the partitions in flight ask here before building an engine.
func (p *Pipeline) InFlight(devices int) int {
	if p.MaxInFlight > 0 {
		return min(p.MaxInFlight, MaxPartitions)
	}
	return defaultInFlight(p, max(devices, 1))
}

// MaxInFlight returns the most partitions of one job that run at once:
// the pipeline's max_in_flight, or the default from its worker counts.
func (e *Engine) MaxInFlight() int { return e.inFlight }

// Pipeline returns the engine's pipeline.
func (e *Engine) Pipeline() *Pipeline { return e.p }

// Devices returns the number of devices `{gpu}` expands to.
func (e *Engine) Devices() int { return e.devices }

// Stats returns per-resource statistics: the pipeline's resources, then one
// worker pool per stage (and device), named "workers.<stage>[.<device>]".
func (e *Engine) Stats() []resources.Stats {
	return append(e.locks.Stats(), e.workers.Stats()...)
}

// Job is one proof request: Partitions instances of the pipeline's DAG.
type Job struct {
	// ID names the job in errors and traces; empty gets "job-<n>".
	ID string
	// Partitions is the number of partitions; 0 takes the payload's when
	// it is a PartitionedPayload, else the pipeline's.
	Partitions int
	// Payload is handed to every stage instance as Input.Job.
	Payload any
	// Priority is added to every stage's priority when the job's
	// partitions queue for workers and locks: a job of higher priority
	// is served before the waiters of lower ones (not before the holders).
	Priority int
}

// PartitionedPayload is a job payload that knows how many partitions it
// holds (a Groth16 job: one witness per partition). A job with such a
// payload runs that many partitions unless Job.Partitions says otherwise,
// and may not ask for more.
type PartitionedPayload interface{ Partitions() int }

// Result is a finished job.
type Result struct {
	ID         string
	Partitions []PartitionResult
	Elapsed    time.Duration
}

// PartitionResult holds what one partition produced.
type PartitionResult struct {
	Index  int
	Device int // -1 when no stage needed a device
	// Outputs are the outputs of the pipeline's final stages (those no
	// other stage needs), by stage name. Intermediate outputs are dropped
	// as soon as their readers finish.
	Outputs map[string]any
}

// StageError is the error a job fails with: which stage instance failed,
// where, and why.
type StageError struct {
	Job       string
	Partition int
	Stage     string
	Type      string
	Device    int
	Attempts  int
	Err       error
}

func (e *StageError) Error() string {
	where := ""
	if e.Device >= 0 {
		where = fmt.Sprintf(" on device %d", e.Device)
	}
	tries := ""
	if e.Attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return fmt.Sprintf("job %q: partition %d: stage %q (%s)%s failed%s: %v", e.Job, e.Partition, e.Stage, e.Type, where, tries, e.Err)
}

func (e *StageError) Unwrap() error { return e.Err }

// Run runs a job to completion. It returns when every partition has
// finished, or as soon as one fails (the others are cancelled and their
// locks released) or ctx is done. Several jobs may run at once. The first
// Run starts the engine's stages unless Start did; after Close, Run
// fails.
func (e *Engine) Run(ctx context.Context, job Job) (*Result, error) {
	if err := e.enter(ctx); err != nil {
		return nil, err
	}
	defer e.life.running.Done()
	e.placeMu.Lock()
	e.jobSeq++
	seq := e.jobSeq
	e.placeMu.Unlock()
	if job.ID == "" {
		job.ID = fmt.Sprintf("job-%d", seq)
	}
	n := job.Partitions
	pp, hasCount := job.Payload.(PartitionedPayload)
	switch {
	case n == 0 && hasCount:
		n = pp.Partitions()
	case n == 0:
		n = e.p.Partitions
	case n < 0:
		return nil, fmt.Errorf("job %q: %d partitions", job.ID, n)
	case hasCount && n > pp.Partitions():
		return nil, fmt.Errorf("job %q: %d partitions asked for, but the payload holds %d", job.ID, n, pp.Partitions())
	}
	if n > MaxPartitions {
		return nil, fmt.Errorf("job %q: %d partitions is above %d, the limit on partitions per job", job.ID, n, MaxPartitions)
	}
	began := time.Now()
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jctx, span := e.tracer.Start(jctx, "job "+e.p.Name, trace.WithAttributes(
		pl.KeyKind.String(pl.KindJob), pl.KeyPipeline.String(e.p.Name),
		pl.KeyJob.String(job.ID), pl.KeyPartitions.Int(n)))
	defer span.End()

	js := &jobState{e: e, job: job, ctx: jctx, cancel: cancel}
	res := &Result{ID: job.ID, Partitions: make([]PartitionResult, n)}
	// Back-pressure: at most e.inFlight partitions are admitted at once,
	// in index order. The others wait here, before their first stage,
	// holding no worker and no lock, and their outputs do not pile up
	// between stages.
	admit := make(chan struct{}, e.inFlight)
	var wg sync.WaitGroup
admission:
	for i := 0; i < n && jctx.Err() == nil; i++ {
		select {
		case admit <- struct{}{}:
		case <-jctx.Done():
			break admission // failed or cancelled: admit no more
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-admit }()
			js.runPartition(i, &res.Partitions[i])
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(began)
	err := js.failure()
	// A stage that failed on its own before ctx was done keeps its error:
	// the cancellation that followed is not why the job failed.
	if ctx.Err() != nil && (err == nil || errors.Is(err, ctx.Err())) {
		err = fmt.Errorf("job %q cancelled: %w", job.ID, context.Cause(ctx))
	}
	if err != nil {
		// The results of partitions that finished will not be returned:
		// nobody will read them.
		for _, pr := range res.Partitions {
			for _, out := range pr.Outputs {
				release(out)
			}
		}
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		e.emit(Event{Kind: JobFailed, Job: job.ID, Partition: -1, Device: -1, Err: err})
		return nil, err
	}
	e.emit(Event{Kind: JobDone, Job: job.ID, Partition: -1, Device: -1})
	return res, nil
}

type jobState struct {
	e      *Engine
	job    Job
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	first error
}

// fail records the job's first real failure and cancels the rest.
func (js *jobState) fail(err error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.first == nil {
		js.first = err
		js.cancel(err)
	}
}

func (js *jobState) failure() error {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.first
}

// place binds a partition to the device with the fewest partitions placed
// now; among those, the one given the fewest so far, so that partitions
// that finish quickly still spread over every device.
func (e *Engine) place() int {
	e.placeMu.Lock()
	defer e.placeMu.Unlock()
	best := 0
	for d := 1; d < len(e.placed); d++ {
		if e.placed[d] < e.placed[best] || e.placed[d] == e.placed[best] && e.given[d] < e.given[best] {
			best = d
		}
	}
	e.placed[best]++
	e.given[best]++
	return best
}

func (e *Engine) unplace(d int) {
	e.placeMu.Lock()
	e.placed[d]--
	e.placeMu.Unlock()
}

func (e *Engine) emit(ev Event) {
	if e.onEvent != nil {
		ev.Time = time.Now()
		e.onEvent(ev)
	}
}
