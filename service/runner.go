package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// Runner runs jobs on one machine: the worker's only view of pipelines,
// families, keys and devices. It keeps keys and engines loaded between
// jobs; it is safe for concurrent use.
type Runner interface {
	// Run proves spec, one proof per partition, each checked by the
	// family's verifier before it is returned. onEvent (may be nil) sees
	// the engine's events.
	Run(ctx context.Context, spec Spec, onEvent func(runtime.Event)) ([]PartitionProof, error)
	// Estimate is the host memory in bytes that running spec holds.
	Estimate(spec Spec) (uint64, error)
	// Preload loads (or makes and caches) the key spec names.
	Preload(ctx context.Context, spec Spec) error
	// Evict drops the key spec names from memory; false when it was not
	// loaded.
	Evict(spec Spec) bool
	// Keys lists the keys in memory.
	Keys() []Key
	// Backend names the device backend.
	BackendName() string
	// Close drops engines and keys; the backend is the caller's.
	Close() error
}

// PartitionProof is one partition's verified proof.
type PartitionProof struct {
	Partition int
	Proof     []byte
	Public    []byte
}

// Key is a key resident in a runner.
type Key struct {
	Family  string
	Circuit string
	Size    int
	Bytes   uint64
}

// maxEngines bounds the engines (one per distinct pipeline) a runner
// keeps; the least recently used goes first.
const maxEngines = 8

// EngineRunner is the Runner over the runtime's engine: Groth16 through
// its key cache, other families through family.Prover.
type EngineRunner struct {
	// KeysDir is the key cache directory.
	KeysDir string
	// Backend is lent to every engine; the caller closes it after Close.
	Backend device.Backend
	// Log receives key setup messages.
	Log io.Writer
	// Metrics, when set, record lock waits, device busy time and the
	// resident keys' bytes.
	Metrics *Metrics

	mu      sync.Mutex
	keys    map[keyID]*keys.Set
	loading map[keyID]chan struct{}
	engines []*cachedEngine
}

type keyID struct {
	circuit string
	size    int
}

type cachedEngine struct {
	hash string
	e    *runtime.Engine
	p    *runtime.Pipeline
	ev   *eventRouter
}

// eventRouter hands an engine's events to the job they belong to: the
// engine has one OnEvent, its jobs each their own observer.
type eventRouter struct {
	mu   sync.RWMutex
	jobs map[string]func(runtime.Event)
}

func (r *eventRouter) event(ev runtime.Event) {
	r.mu.RLock()
	f := r.jobs[ev.Job]
	r.mu.RUnlock()
	if f != nil {
		f(ev)
	}
}

func (r *eventRouter) subscribe(job string, f func(runtime.Event)) (unsubscribe func()) {
	r.mu.Lock()
	r.jobs[job] = f
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.jobs, job)
		r.mu.Unlock()
	}
}

var _ Runner = (*EngineRunner)(nil)

// Backend implements Runner.
func (r *EngineRunner) BackendName() string { return r.Backend.Name() }

// parsePipeline parses spec's pipeline, embedded or inline.
func parsePipeline(spec Spec) (*runtime.Pipeline, error) {
	if spec.PipelineYAML != "" {
		if len(spec.PipelineYAML) > pipelines.MaxFileSize {
			return nil, fmt.Errorf("pipeline_yaml: %d bytes, over the limit of %d", len(spec.PipelineYAML), pipelines.MaxFileSize)
		}
		return runtime.Parse("pipeline_yaml", []byte(spec.PipelineYAML), builtin.Registry(), nil)
	}
	file, src, err := pipelines.Open(spec.Pipeline)
	if err != nil {
		return nil, err
	}
	return runtime.Parse(file, src, builtin.Registry(), nil)
}

// pipelineFamily returns p's family, refusing pipelines that make no proof.
func pipelineFamily(p *runtime.Pipeline) (family.Family, error) {
	f, err := builtin.Families().Of(p)
	if err != nil {
		return nil, err
	}
	if len(family.FinalProofStages(p, f)) == 0 {
		return nil, fmt.Errorf("%s: pipeline %q makes no %s proof: none of its final stages outputs %s", p.File, p.Name, f.Name(), f.ProofType())
	}
	return f, nil
}

// engine returns a started engine for p, reusing the one of the same
// pipeline hash.
func (r *EngineRunner) engine(p *runtime.Pipeline) (*cachedEngine, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.engines {
		if c.hash == p.Hash {
			r.engines = append(append(r.engines[:i:i], r.engines[i+1:]...), c)
			return c, nil
		}
	}
	ev := &eventRouter{jobs: map[string]func(runtime.Event){}}
	m := r.Metrics
	onEvent := func(e runtime.Event) {
		m.event(p, e)
		ev.event(e)
	}
	e, err := runtime.NewEngine(p, runtime.Options{Devices: len(r.Backend.Devices()), Backend: r.Backend, OnEvent: onEvent})
	if err != nil {
		return nil, err
	}
	c := &cachedEngine{hash: p.Hash, e: e, p: p, ev: ev}
	r.engines = append(r.engines, c)
	if len(r.engines) > maxEngines {
		old := r.engines[0]
		r.engines = r.engines[1:]
		// Close waits for its jobs; it must not hold the lock meanwhile.
		go old.e.Close(context.Background())
	}
	return c, nil
}

// groth16Keys returns the key set of circuit and size, loading it (or
// making it) once however many jobs ask at the same time.
func (r *EngineRunner) groth16Keys(ctx context.Context, circuit string, size int) (*keys.Set, error) {
	id := keyID{circuit, size}
	for {
		r.mu.Lock()
		if r.keys == nil {
			r.keys, r.loading = map[keyID]*keys.Set{}, map[keyID]chan struct{}{}
		}
		if ks := r.keys[id]; ks != nil {
			r.mu.Unlock()
			return ks, nil
		}
		if ch := r.loading[id]; ch != nil {
			r.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		r.loading[id] = ch
		r.mu.Unlock()
		log := r.Log
		if log == nil {
			log = io.Discard
		}
		ks, err := keys.Cache{Dir: r.KeysDir}.LoadOrSetup(ctx, circuit, size, log)
		r.mu.Lock()
		delete(r.loading, id)
		if err == nil {
			r.keys[id] = ks
		}
		r.mu.Unlock()
		close(ch)
		return ks, err
	}
}

// Run implements Runner.
func (r *EngineRunner) Run(ctx context.Context, spec Spec, onEvent func(runtime.Event)) ([]PartitionProof, error) {
	p, err := parsePipeline(spec)
	if err != nil {
		return nil, err
	}
	f, err := pipelineFamily(p)
	if err != nil {
		return nil, err
	}
	n := spec.Partitions
	if n == 0 {
		n = p.Partitions
	}
	e, err := r.engine(p)
	if err != nil {
		return nil, err
	}
	if fp, ok := f.(family.Prover); ok {
		return r.runFamily(ctx, e, p, fp, spec, n, onEvent)
	}
	ks, err := r.groth16Keys(ctx, spec.Circuit, spec.Size)
	if err != nil {
		return nil, err
	}
	job, err := ks.NewJob(n, spec.Seed)
	if err != nil {
		return nil, err
	}
	res, err := runObserved(ctx, e, runtime.Job{ID: spec.JobID, Priority: spec.Priority, Partitions: n, Payload: job}, onEvent)
	if err != nil {
		return nil, err
	}
	out := make([]PartitionProof, n)
	for _, pr := range res.Partitions {
		proof := findGroth16Proof(pr.Outputs)
		if proof == nil {
			return nil, fmt.Errorf("partition %d: pipeline %q produced no groth16 proof", pr.Index, p.Name)
		}
		if err := job.Verify(pr.Index, proof); err != nil {
			return nil, fmt.Errorf("partition %d: %w", pr.Index, err)
		}
		pub, err := job.Public(pr.Index)
		if err != nil {
			return nil, err
		}
		pp := PartitionProof{Partition: pr.Index}
		if pp.Proof, err = marshal(proof.WriteTo); err != nil {
			return nil, err
		}
		if pp.Public, err = pub.MarshalBinary(); err != nil {
			return nil, err
		}
		out[pr.Index] = pp
	}
	return out, nil
}

func (r *EngineRunner) runFamily(ctx context.Context, e *cachedEngine, p *runtime.Pipeline, fp family.Prover, spec Spec, n int, onEvent func(runtime.Event)) ([]PartitionProof, error) {
	log := r.Log
	if log == nil {
		log = io.Discard
	}
	fj, err := fp.SetupJob(r.KeysDir, spec.Size, n, spec.Seed, log)
	if err != nil {
		return nil, err
	}
	res, err := runObserved(ctx, e, runtime.Job{ID: spec.JobID, Priority: spec.Priority, Partitions: n, Payload: fj.Payload()}, onEvent)
	if err != nil {
		return nil, err
	}
	final := family.FinalProofStages(p, fp)
	out := make([]PartitionProof, n)
	for _, pr := range res.Partitions {
		o, ok := pr.Outputs[final[0]]
		if !ok {
			return nil, fmt.Errorf("partition %d: pipeline %q produced no %s proof", pr.Index, p.Name, fp.Name())
		}
		data, err := fj.EncodeProof(pr.Index, o)
		if err != nil {
			return nil, err
		}
		if err := fj.VerifyProof(pr.Index, data); err != nil {
			return nil, fmt.Errorf("partition %d: %w", pr.Index, err)
		}
		out[pr.Index] = PartitionProof{Partition: pr.Index, Proof: data}
	}
	return out, nil
}

// runObserved runs job on e with onEvent told of its events: the engine's
// OnEvent is per engine, so the job's own are picked out by its ID.
func runObserved(ctx context.Context, c *cachedEngine, job runtime.Job, onEvent func(runtime.Event)) (*runtime.Result, error) {
	if onEvent != nil {
		defer c.ev.subscribe(job.ID, onEvent)()
	}
	return c.e.Run(ctx, job)
}

// Estimate implements Runner: the Groth16 key in memory plus the
// partitions the pipeline runs at once (the measurements behind
// docs/memory.md); a family.Prover's job is taken to hold its size's
// vectors.
func (r *EngineRunner) Estimate(spec Spec) (uint64, error) {
	return EstimateHost(spec)
}

// EstimateHost is the host memory estimate of a job, in bytes.
func EstimateHost(spec Spec) (uint64, error) {
	p, err := parsePipeline(spec)
	if err != nil {
		return 0, err
	}
	n := spec.Partitions
	if n == 0 {
		n = p.Partitions
	}
	inFlight := min(n, p.InFlight(p.Devices))
	const (
		base       = 16 << 20 // a job's own share of the runtime
		keysPerC   = 2 << 10  // R1CS and proving key
		partPerC   = 1280     // one partition in flight
		familyPerC = 256      // a family.Prover's vectors
	)
	s := uint64(spec.Size)
	if spec.Circuit == "" {
		return base + s*familyPerC*uint64(inFlight), nil
	}
	return base + s*keysPerC + s*partPerC*uint64(inFlight), nil
}

// Preload implements Runner.
func (r *EngineRunner) Preload(ctx context.Context, spec Spec) error {
	if spec.Circuit == "" {
		return errors.New("preload: only groth16 keys (a circuit) are kept resident")
	}
	_, err := r.groth16Keys(ctx, spec.Circuit, spec.Size)
	return err
}

// Evict implements Runner.
func (r *EngineRunner) Evict(spec Spec) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := keyID{spec.Circuit, spec.Size}
	_, ok := r.keys[id]
	delete(r.keys, id)
	return ok
}

// ResidentBytes is the bytes of the keys the runner holds.
func (r *EngineRunner) ResidentBytes() uint64 {
	var n uint64
	for _, k := range r.Keys() {
		n += k.Bytes
	}
	return n
}

// Keys implements Runner.
func (r *EngineRunner) Keys() []Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Key
	for id := range r.keys {
		// A key's bytes in memory follow its size (docs/memory.md).
		out = append(out, Key{Family: groth16.Family{}.Name(), Circuit: id.circuit, Size: id.size, Bytes: uint64(id.size) * (2 << 10)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Circuit != out[j].Circuit {
			return out[i].Circuit < out[j].Circuit
		}
		return out[i].Size < out[j].Size
	})
	return out
}

// Close implements Runner.
func (r *EngineRunner) Close() error {
	r.mu.Lock()
	es := r.engines
	r.engines, r.keys = nil, nil
	r.mu.Unlock()
	var errs []error
	for _, c := range es {
		errs = append(errs, c.e.Close(context.Background()))
	}
	return errors.Join(errs...)
}

// marshal returns what a WriteTo writes.
func marshal(write func(io.Writer) (int64, error)) ([]byte, error) {
	var b bytes.Buffer
	if _, err := write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// findGroth16Proof returns the one groth16 proof among a partition's
// outputs.
func findGroth16Proof(outputs map[string]any) *g16.Proof {
	if p, ok := outputs["epilogue"].(*g16.Proof); ok {
		return p
	}
	var found *g16.Proof
	for _, v := range outputs {
		if p, ok := v.(*g16.Proof); ok {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}
