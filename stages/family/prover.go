package family

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prooflane/prooflane/device"
)

// ErrNotCached is wrapped by Prover.Load and Prover.Verifier when the key
// cache holds no key of the request.
var ErrNotCached = errors.New("no key in the cache")

// ErrNoForce is wrapped by Prover.Setup refusing KeyRequest.Force: the
// family's key cache is not redone in place.
var ErrNoForce = errors.New("key cache is not redone in place (remove its key file instead)")

// KeyRequest names one of a family's keys in a key cache.
type KeyRequest struct {
	// Dir is the key cache directory.
	Dir string
	// Circuit is one of the family's Circuits; "" means its default (the
	// first). A family without circuits refuses any other value.
	Circuit string
	// Size is the key's size (about how many constraints, or elements),
	// within SizeRange(Circuit).
	Size int
	// Force makes Setup make the key whatever the cache holds, replacing
	// its files; a family whose cache is not redone in place makes one
	// only when none is cached, refusing (ErrNoForce, before any work) to
	// replace a cached key.
	Force bool
	// Backend, when not nil, is where Setup may make the key (Groth16:
	// its bases on device 0's generator multiplication); nil: on the
	// host. The caller owns it and closes it after Setup returns.
	Backend device.Backend
	// OnDevice says the job (or the setup) runs on a backend whose
	// devices have memory of their own (CUDA: --backend cuda), so that
	// the device work's vectors are there, not on the host; host memory
	// estimates count less then. False: on the host (the CPU backend's
	// emulated devices) or not known, the larger estimate.
	OnDevice bool
}

// Layout is the proof directory a family's job writes besides its
// proof-N.bin files (the manifest lists them all).
type Layout struct {
	// Public: partition N also writes public-N.bin, its public inputs.
	Public bool
	// VK names the verifying key file written once a job ("vk.bin"), ""
	// for none. verify reads it only when the user names it (--vk).
	VK string
}

// Prover is a family that prove, verify, setup and bench drive wholly
// through this interface: its circuits, keys, jobs, proof files and
// verifier. A family implements Family and Prover and registers itself in
// stages/builtin; no command code names it.
type Prover interface {
	Family
	// Circuits lists the family's circuits, its default first; nil for a
	// family without circuits, whose keys only have a size.
	Circuits() []string
	// SizeRange bounds the sizes of circuit's keys ("" the default
	// circuit), checked before anything is allocated. An unknown circuit,
	// or any circuit for a family without them, is an error.
	SizeRange(circuit string) (min, max int, err error)
	// Layout says which files a job writes besides its proofs.
	Layout() Layout
	// Setup loads the key of req from the cache, or makes it (with
	// req.Force, always) and caches it, saying so on log; a long setup
	// stops when ctx is done, writing nothing.
	Setup(ctx context.Context, req KeyRequest, log io.Writer) (Key, error)
	// Load is Setup that never makes a key: ErrNotCached (wrapped) when
	// the cache holds none.
	Load(ctx context.Context, req KeyRequest) (Key, error)
	// Verifier returns what checks a proof directory's files, from the
	// key the request names (the cache's, or a file the user named).
	Verifier(ctx context.Context, req VerifyRequest) (Verifier, error)
}

// Key is one of a family's keys, loaded.
type Key interface {
	// Name identifies the key (recorded in the manifest).
	Name() string
	// Circuit is the key's circuit; the family's name for a family
	// without circuits.
	Circuit() string
	// Constraints is the key's constraint count (its size for a family
	// without constraints).
	Constraints() int
	// Files are the key's files in the cache, for setup's report.
	Files() []string
	// NewJob returns the job of partitions witnesses from seed; partition
	// p's is the same for the same seed and p.
	NewJob(partitions int, seed uint64) (Job, error)
}

// Files are one partition's files: proof-N.bin and, when the family's
// Layout says so, public-N.bin.
type Files struct {
	Proof, Public []byte
	// ProofName and PublicName name the files in errors (their paths,
	// when read from a directory); empty for bytes of no file.
	ProofName, PublicName string
}

// Job is a family's job: the runtime payload, its files, and a check of
// them.
type Job interface {
	// Payload is runtime.Job's Payload for the family's stages.
	Payload() any
	// Files returns partition's files from the output of the pipeline's
	// final proof stage.
	Files(partition int, output any) (Files, error)
	// VK returns the contents of the Layout's VK file; nil without one.
	VK() ([]byte, error)
	// Verify checks partition's files as verify does.
	Verify(partition int, f Files) error
}

// VerifyRequest is what verify knows of a proof directory: its manifest's
// key request, counts and seed, and a key file the user named.
type VerifyRequest struct {
	KeyRequest
	// Manifest is the manifest's path, named in errors about its fields.
	Manifest string
	// Key is the key name the manifest records ("" when none).
	Key string
	// Constraints is the manifest's constraint count.
	Constraints int
	// Partitions and Seed are the manifest's.
	Partitions int
	Seed       uint64
	// VKFile is a verifying key file the user named (verify --vk) instead
	// of the cache's key; "" for the cache's. A family whose Layout has no
	// VK is never given one.
	VKFile string
	// DirVK is the proof directory's own copy of the VK file, named in
	// the advice of a failed cache lookup; "" without one.
	DirVK string
}

// Verifier checks a proof directory's files.
type Verifier interface {
	// From says what the proofs are checked with, for verify's first
	// line: a key file, or the key's name.
	From() string
	// Verify checks partition's files: they decode within their bounds,
	// the proof verifies, and the public inputs are the ones the
	// manifest's seed gives the partition.
	Verify(partition int, f Files) error
	// VK returns the verifying key file's contents the proofs are checked
	// with (nil without a Layout VK), compared with the directory's copy
	// when a proof fails.
	VK() []byte
}

// Baseline is an optional capability of a Prover: a reference prover that
// bench times beside the pipelines (bench --gnark).
type Baseline interface {
	// BaselineName names the reference prover in bench's table.
	BaselineName() string
	// ProveBaseline proves partition's witness of job (one of the
	// family's) with the reference prover and verifies the proof.
	ProveBaseline(job Job, partition int) error
}

// MemoryEstimator is an optional capability of a Prover: the host memory
// prove, bench and setup need, checked against the machine's before any
// work.
type MemoryEstimator interface {
	// HostMemory estimates the peak host memory of a job of req's key
	// with inFlight partitions at once under the pipeline's effective
	// params (nil: a setup alone, or the family's defaults), and says
	// whether the key setup runs first (req.Force, or no key cached in
	// req.Dir; with no Dir the key is taken as cached, the least a run
	// needs). Zero bytes: no estimate.
	HostMemory(req KeyRequest, params map[string]string, inFlight int) (bytes uint64, setup bool)
}

// DeviceMemoryEstimator is an optional capability of a Prover: the memory
// one device needs, checked by prove and bench against each device's (or
// PROOFLANE_DEVICE_MEMORY) once the backend is open, before the key is
// set up or loaded.
type DeviceMemoryEstimator interface {
	// DeviceMemory estimates the peak memory of one device of a backend
	// whose memory model is m (Backend.Memory, or the registry's Model
	// of the backend a run will open) running a job of req's key with
	// perDevice of its partitions placed there at once, under the
	// pipeline's effective params (which the family's own pipelines
	// define): the bytes, what they are made of, and the setting that
	// lowers them, both for a message. What the backend holds beyond the
	// family's bases and vectors (its context, its kernels' scratch)
	// comes from m. Zero: no estimate.
	DeviceMemory(m device.MemoryModel, req KeyRequest, params map[string]string, perDevice int) (bytes uint64, parts, lower string)
}

// HostBaser is an optional capability of a DeviceMemoryEstimator whose
// pipelines can keep a key's bases in host memory and stream them
// through the device: the params that do so. When the device memory
// estimate does not fit a device with the bases resident, fits with
// those params, and the user set none of them, prove and bench run with
// them and say so.
type HostBaser interface {
	HostBases() map[string]string
}

// OneJober is an optional capability of a Prover whose pipelines hold
// settings that pay back only across jobs: something a key builds once
// on a device that later jobs reuse. OneJob is the params a run that
// proves one job of partitions partitions and exits (prove) takes
// instead, unless the user set them, and why, for the line that says
// so; none when such a job is large enough to pay them back.
type OneJober interface {
	OneJob(partitions int) (params map[string]string, why string)
}

// CheckCircuit resolves req.Circuit against f's circuits ("" the default)
// and checks req.Size against f's bounds for it: a family without
// circuits refuses any circuit name. It returns the circuit the key is of
// (the family's name for a family without circuits).
func CheckCircuit(f Prover, req KeyRequest) (string, error) {
	names := f.Circuits()
	circuit := req.Circuit
	switch {
	case len(names) == 0 && circuit != "":
		return "", fmt.Errorf("circuit %q: the %s family has no circuits", circuit, f.Name())
	case len(names) == 0:
		circuit = f.Name()
	case circuit == "":
		circuit = names[0]
	case !slices.Contains(names, circuit):
		return "", fmt.Errorf("circuit %q is not one of the %s family's (%s)", circuit, f.Name(), strings.Join(names, ", "))
	}
	lo, hi, err := f.SizeRange(req.Circuit)
	if err != nil {
		return "", err
	}
	if req.Size < lo || req.Size > hi {
		return "", fmt.Errorf("%s size %d: want %d to %d", circuit, req.Size, lo, hi)
	}
	return circuit, nil
}
