package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/proving"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// Runner runs jobs on one machine: the worker's only view of pipelines,
// families, keys and devices. It keeps keys and engines loaded between
// jobs; it is safe for concurrent use.
type Runner interface {
	// Run proves spec, one proof per partition, each checked by the
	// family's verifier before it is returned, with the key that made
	// them. onEvent (may be nil) sees the engine's events.
	Run(ctx context.Context, spec Spec, onEvent func(runtime.Event)) (*Output, error)
	// Estimate is the memory that running spec holds.
	Estimate(spec Spec) (Estimate, error)
	// EstimateKey is the memory that loading (or making) spec's key
	// holds, alone: what a Preload is admitted by.
	EstimateKey(spec Spec) (Estimate, error)
	// Preload loads (or makes and caches) the key spec names; cancelling
	// ctx stops a setup between its phases, dropping what it made.
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
	Partition int    `json:"partition"`
	Proof     []byte `json:"proof"`
	Public    []byte `json:"public,omitempty"`
}

// Output is a job's verified proofs and the key they were made with.
type Output struct {
	Proofs []PartitionProof
	KeyFacts
}

// KeyFacts identify the key a job's proofs were made with, for a client's
// manifest: its name (family.Key.Name), constraint count and verifying
// key file (the family's Layout.VK; nil without one). A client checks
// the proofs against its own copy of the key, not against VK.
type KeyFacts struct {
	Key         string `json:"key,omitempty"`
	Constraints int    `json:"constraints,omitempty"`
	VK          []byte `json:"vk,omitempty"`
}

// Key is a key resident in a runner.
type Key struct {
	Family  string
	Circuit string
	Size    int
	// Curve is the key's curve, "" for the default (Spec.Curve).
	Curve string
	Bytes uint64
}

// maxEngines bounds the engines (one per distinct pipeline) a runner
// keeps; the least recently used goes first.
const maxEngines = 8

// EngineRunner is the Runner over the runtime's engine and the families'
// family.Prover: keys from the key cache, kept loaded; one engine per
// pipeline, kept started.
type EngineRunner struct {
	// KeysDir is the key cache directory.
	KeysDir string
	// Backend is lent to every engine; the caller closes it after Close.
	Backend device.Backend
	// Devices is how many of the backend's devices the engines place
	// partitions on (0: all of them).
	Devices int
	// Log receives key setup messages.
	Log io.Writer
	// Metrics, when set, record lock waits, device busy time and the
	// resident keys' bytes.
	Metrics *Metrics

	mu      sync.Mutex
	keys    map[keyID]family.Key
	loading map[keyID]chan struct{}
	engines []*cachedEngine
}

// keyID names a key: a family's circuit ("" for a family without
// circuits) at a size on a curve (Spec.Curve), and an added circuit's
// own keys (Spec.Keys).
type keyID struct {
	family  string
	circuit string
	size    int
	curve   string
	keys    string
}

// JobInputs are what a job of an added circuit needs from the queue: the
// circuit's record and files, and the job's witnesses. A worker gives
// its queue to every job it runs and Preload it answers (Spec.Inputs).
type JobInputs interface {
	// Circuit returns added circuit id's record.
	Circuit(ctx context.Context, id string) (*Circuit, error)
	// CircuitFile writes one of a circuit's files (its object's name,
	// Circuit.CCS, PK or VK) to w.
	CircuitFile(ctx context.Context, name string, w io.Writer) error
	// Witness returns the witness of that name (its SHA-256 in hex), at
	// most MaxWitnessBytes.
	Witness(ctx context.Context, name string) ([]byte, error)
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
	n := len(r.Backend.Devices())
	if r.Devices > 0 {
		n = min(n, r.Devices)
	}
	e, err := runtime.NewEngine(p, runtime.Options{Devices: n, Backend: r.Backend, OnEvent: onEvent})
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

// key returns the key spec names, loading it (or making it) once however
// many jobs ask at the same time.
func (r *EngineRunner) key(ctx context.Context, fp family.Prover, spec Spec) (family.Key, error) {
	id := keyID{fp.Name(), spec.Circuit, spec.Size, spec.Curve, spec.Keys}
	for {
		r.mu.Lock()
		if r.keys == nil {
			r.keys, r.loading = map[keyID]family.Key{}, map[keyID]chan struct{}{}
		}
		if k := r.keys[id]; k != nil {
			r.mu.Unlock()
			return k, nil
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
		// On the backend: a family's own setup checks ctx between its
		// phases (Groth16's bases a chunk at a time), so a cancelled job
		// or Preload stops it and frees its memory.
		req := keyRequest(spec, r.KeysDir)
		req.Backend = r.Backend
		var k family.Key
		var err error
		if spec.CircuitID != "" {
			k, err = r.circuitKey(ctx, fp, spec, req, log)
		} else {
			k, err = fp.Setup(ctx, req, log)
		}
		r.mu.Lock()
		delete(r.loading, id)
		if err == nil && r.keys != nil { // nil: closed meanwhile
			r.keys[id] = k
		}
		r.mu.Unlock()
		close(ch)
		return k, err
	}
}

// specPipeline parses spec's pipeline and returns it with its family
// (proving.Resolve): one that makes proofs the service drives.
func specPipeline(spec Spec) (*runtime.Pipeline, family.Prover, error) {
	pp, err := specProving(spec)
	if err != nil {
		return nil, nil, err
	}
	return pp.Pipeline, pp.Family, nil
}

// specProving is specPipeline's pipeline as proving.Resolve returns it.
func specProving(spec Spec) (*proving.Pipeline, error) {
	p, err := parsePipeline(spec)
	if err != nil {
		return nil, err
	}
	return proving.Resolve(p, builtin.Families())
}

// keyRequest is spec's key request in keysDir: its built-in circuit at
// its size.
func keyRequest(spec Spec, keysDir string) family.KeyRequest {
	return family.KeyRequest{Dir: keysDir, System: family.System{Name: spec.Circuit, Size: spec.Size, Curve: spec.curve()}}
}

// estimateRequest is the key request a memory estimate of spec is of:
// keyRequest, with the key taken as cached (no setup counted) when it is
// an added circuit's own keys, which no worker sets up.
func estimateRequest(spec Spec, keysDir string) family.KeyRequest {
	if spec.Keys != "" {
		keysDir = ""
	}
	return keyRequest(spec, keysDir)
}

// Run implements Runner: the family's key (kept loaded), its job, the
// engine's run, and each partition's files checked by the job's verifier.
func (r *EngineRunner) Run(ctx context.Context, spec Spec, onEvent func(runtime.Event)) (*Output, error) {
	pp, err := specProving(spec)
	if err != nil {
		return nil, err
	}
	n := spec.Partitions
	if n == 0 {
		n = pp.Partitions
	}
	e, err := r.engine(pp.Pipeline)
	if err != nil {
		return nil, err
	}
	k, err := r.key(ctx, pp.Family, spec)
	if err != nil {
		return nil, err
	}
	var job family.Job
	if spec.CircuitID != "" {
		job, err = circuitJob(ctx, k, spec)
	} else {
		job, err = workloads.Job(k, n, spec.Seed)
	}
	if err != nil {
		return nil, err
	}
	if err := family.SetCommitmentHash(job, family.CommitmentHash(spec.CommitmentHash)); err != nil {
		return nil, err
	}
	res, err := runObserved(ctx, e, runtime.Job{ID: spec.JobID, Priority: spec.Priority, Partitions: n, Payload: job.Payload()}, onEvent)
	if err != nil {
		return nil, err
	}
	// Checked once before they leave the worker: by the final stage (its
	// verify option), or else here as verify would.
	files, err := pp.Files(job, res)
	if err != nil {
		return nil, err
	}
	out := make([]PartitionProof, len(files))
	for i, f := range files {
		out[i] = PartitionProof{Partition: i, Proof: f.Proof, Public: f.Public}
	}
	return &Output{Proofs: out, KeyFacts: KeyFacts{Key: k.Name(), Constraints: k.Constraints(), VK: k.VerifyingKey().Bytes()}}, nil
}

// circuitKey loads the key of added circuit spec.CircuitID: its files
// from the runner's key cache directory (fetched from the queue the first
// time, under the circuit's id), its constraint system read by the family
// and named again (it must be the id's), then the user's own keys, or
// else the key cache's key of the system, set up on first use (req with
// the system).
func (r *EngineRunner) circuitKey(ctx context.Context, fp family.Prover, spec Spec, req family.KeyRequest, log io.Writer) (family.Key, error) {
	if spec.Inputs == nil {
		return nil, fmt.Errorf("circuit %s: no queue to fetch it from", spec.CircuitID)
	}
	c, err := spec.Inputs.Circuit(ctx, spec.CircuitID)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Family != fp.Name():
		return nil, fmt.Errorf("circuit %s is a %s circuit, not %s", c.ID, c.Family, fp.Name())
	case c.keys() != spec.Keys:
		return nil, fmt.Errorf("circuit %s was removed and added again with other keys since the job was submitted", c.ID)
	}
	dir := circuitDir(r.KeysDir, c.ID)
	path, err := fetchCircuitFile(ctx, spec.Inputs, dir, c.CCS)
	if err != nil {
		return nil, err
	}
	ccs, err := fp.ReadSystem(ctx, c.curve(), path)
	if err != nil {
		return nil, fmt.Errorf("circuit %s: %w", c.ID, err)
	}
	if req.System, err = family.CompiledSystem(ccs); err != nil {
		return nil, fmt.Errorf("circuit %s: %w", c.ID, err)
	}
	if req.System.Name != c.ID {
		return nil, fmt.Errorf("circuit %s: its constraint system file %s is system %s", c.ID, path, req.System.Name)
	}
	if c.PK == "" {
		return fp.Setup(ctx, req, log)
	}
	pk, err := fetchCircuitFile(ctx, spec.Inputs, dir, c.PK)
	if err != nil {
		return nil, err
	}
	vk, err := fetchCircuitFile(ctx, spec.Inputs, dir, c.VK)
	if err != nil {
		return nil, err
	}
	k, err := fp.ReadKeys(ctx, req.System, pk, vk)
	if err != nil {
		return nil, fmt.Errorf("circuit %s: %w", c.ID, err)
	}
	return k, nil
}

// fetchCircuitFile returns the path of circuit file name (its kind and
// SHA-256) in dir, fetching it from in when it is not there: into a
// temporary file, its SHA-256 checked against its name, synced, then
// renamed, so that the name holds the whole file or nothing.
func fetchCircuitFile(ctx context.Context, in JobInputs, dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		return path, nil
	}
	_, digest, _ := strings.Cut(name, ".")
	if !validDigest(digest) {
		return "", fmt.Errorf("circuit file %q: not a circuit file's name", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	h := sha256.New()
	err = durable.Write(f, func(w io.Writer) error { return in.CircuitFile(ctx, name, io.MultiWriter(w, h)) })
	if err != nil {
		return "", err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return "", fmt.Errorf("circuit file %s: fetched bytes of SHA-256 %s", name, got)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return "", err
	}
	return path, durable.SyncDir(dir)
}

// circuitJob is the job of spec's witnesses (an added circuit's, in the
// object store) on key k, each decoded for the key's system: one
// partition a witness.
func circuitJob(ctx context.Context, k family.Key, spec Spec) (family.Job, error) {
	if spec.Inputs == nil {
		return nil, fmt.Errorf("circuit %s: no queue to fetch the witnesses from", spec.CircuitID)
	}
	field := k.System().CCS.Field()
	ws := make([]witness.Witness, len(spec.Witnesses))
	for i, name := range spec.Witnesses {
		data, err := spec.Inputs.Witness(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("witness %d: %w", i, err)
		}
		if ws[i], err = family.DecodeWitness(data, field, k.Inputs()); err != nil {
			return nil, fmt.Errorf("witness %d: %w", i, err)
		}
	}
	return k.NewJob(ws)
}

// runObserved runs job on e with onEvent told of its events: the engine's
// OnEvent is per engine, so the job's own are picked out by its ID.
func runObserved(ctx context.Context, c *cachedEngine, job runtime.Job, onEvent func(runtime.Event)) (*runtime.Result, error) {
	if onEvent != nil {
		defer c.ev.subscribe(job.ID, onEvent)()
	}
	return c.e.Run(ctx, job)
}

// Estimate is a job's memory: host bytes, and bytes on each device it
// runs on (0: no estimate, for a family without one).
type Estimate struct {
	Host, Device uint64
}

// Estimate implements Runner: EstimateHost, and the family's device
// estimate (family.DeviceMemoryEstimator, on the backend's memory model)
// for the job's partitions in flight spread over the runner's devices. A job's estimate includes its
// key's resident bases, which jobs of one key share: admitting by it is
// on the safe side.
func (r *EngineRunner) Estimate(spec Spec) (Estimate, error) {
	host, err := EstimateHost(spec, r.KeysDir)
	if err != nil {
		return Estimate{}, err
	}
	est := Estimate{Host: host}
	p, fp, err := specPipeline(spec)
	if err != nil {
		return Estimate{}, err
	}
	if de, ok := fp.(family.DeviceMemoryEstimator); ok {
		n := spec.Partitions
		if n == 0 {
			n = p.Partitions
		}
		devices := len(r.Backend.Devices())
		if r.Devices > 0 {
			devices = min(devices, r.Devices)
		}
		devices = max(devices, 1)
		inFlight := min(n, p.InFlight(devices))
		perDevice := (inFlight + devices - 1) / devices
		est.Device, _, _ = de.DeviceMemory(r.Backend.Memory(), estimateRequest(spec, r.KeysDir), p.Params, perDevice)
	}
	return est, nil
}

// Below the sizes a family estimates (small keys), a job is taken to
// hold a fixed share plus its partitions in flight at docs/memory.md's
// per-partition figure.
const (
	smallJobBase  = 16 << 20
	smallPartPerC = 1280
)

// EstimateHost is the host memory a job holds while it runs, in bytes: the
// family's estimate (family.MemoryEstimator) for its partitions in flight,
// or, for the small keys it leaves out, a fixed share plus the partitions
// in flight. The key setup is counted when keysDir holds no key of spec;
// keysDir "" takes the key as cached (the least the job needs, what the
// server refuses by: a worker's cache may hold it).
func EstimateHost(spec Spec, keysDir string) (uint64, error) {
	p, fp, err := specPipeline(spec)
	if err != nil {
		return 0, err
	}
	n := spec.Partitions
	if n == 0 {
		n = p.Partitions
	}
	inFlight := min(n, p.InFlight(p.Devices))
	req := estimateRequest(spec, keysDir)
	if b, _ := admission.HostEstimate(fp, req, []map[string]string{p.Params}, inFlight); b > 0 {
		return b, nil
	}
	return smallJobBase + uint64(spec.Size)*smallPartPerC*uint64(inFlight), nil
}

// EstimateKeyHost is the host memory of loading (or making, when keysDir
// holds no key of spec) spec's key alone; keysDir "" takes it as cached.
func EstimateKeyHost(spec Spec, keysDir string) (uint64, error) {
	p, fp, err := specPipeline(spec)
	if err != nil {
		return 0, err
	}
	req := estimateRequest(spec, keysDir)
	if b, _ := admission.HostEstimate(fp, req, []map[string]string{p.Params}, 0); b > 0 {
		return b, nil
	}
	return smallJobBase, nil
}

// EstimateKey implements Runner: EstimateKeyHost against the runner's
// key cache (a setup is on the host).
func (r *EngineRunner) EstimateKey(spec Spec) (Estimate, error) {
	host, err := EstimateKeyHost(spec, r.KeysDir)
	return Estimate{Host: host}, err
}

// Preload implements Runner.
func (r *EngineRunner) Preload(ctx context.Context, spec Spec) error {
	_, fp, err := specPipeline(spec)
	if err != nil {
		return err
	}
	_, err = r.key(ctx, fp, spec)
	return err
}

// Evict implements Runner.
func (r *EngineRunner) Evict(spec Spec) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := keyID{spec.Family, spec.Circuit, spec.Size, spec.Curve, spec.Keys}
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

// Keys implements Runner. A key's bytes are those of its files in the
// cache, which its form in memory follows.
func (r *EngineRunner) Keys() []Key {
	r.mu.Lock()
	files := map[keyID][]string{}
	for id, k := range r.keys {
		files[id] = k.Files()
	}
	r.mu.Unlock()
	out := make([]Key, 0, len(files))
	for id, fs := range files {
		var n uint64
		for _, f := range fs {
			if st, err := os.Stat(f); err == nil {
				n += uint64(st.Size())
			}
		}
		out = append(out, Key{Family: id.family, Circuit: id.circuit, Size: id.size, Curve: id.curve, Bytes: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		if a.Circuit != b.Circuit {
			return a.Circuit < b.Circuit
		}
		if a.Size != b.Size {
			return a.Size < b.Size
		}
		return a.Curve < b.Curve
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
