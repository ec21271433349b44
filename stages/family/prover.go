package family

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device"
)

// ErrNotCached is wrapped by Prover.Load and Prover.VerifyingKey when the
// key cache holds no key of the request.
var ErrNotCached = errors.New("no key in the cache")

// Prover is a proof family as the library, the commands and the service
// drive it: keys for a constraint system (set up, loaded from the key
// cache, or the user's own), a job of the users' witnesses, and the
// verifier of what its jobs write. It knows nothing of benchmarks: the
// built-in circuits and their seeded witnesses are package workloads',
// which reaches a family through this interface too.
//
// A family implements Family and Prover and registers itself in
// stages/builtin; no command code names it.
type Prover interface {
	Family
	// MaxSize bounds a key's size (its constraint system's constraints,
	// or a built-in circuit's size), checked before anything is
	// allocated.
	MaxSize() int
	// Layout says which files a job writes besides its proofs.
	Layout() Layout
	// Compile compiles a circuit definition to the family's constraint
	// system (Groth16: an R1CS; PLONK: a SparseR1CS) over curve's scalar
	// field (ecc.UNKNOWN: DefaultCurve), refusing, by name, what the
	// family cannot prove and a curve it does not serve.
	Compile(curve ecc.ID, name string, c frontend.Circuit) (constraint.ConstraintSystem, error)
	// ReadSystem reads a constraint system file in gnark's encoding (the
	// family's system's WriteTo) of curve (ecc.UNKNOWN: DefaultCurve):
	// only a regular file, at most MaxSystemFile bytes, checked before
	// gnark decodes it so that no file makes it panic or hang; reading
	// stops when ctx is done. Errors name the file.
	ReadSystem(ctx context.Context, curve ecc.ID, path string) (constraint.ConstraintSystem, error)
	// Inputs are the counts of public and secret inputs a full witness of
	// ccs (one of the family's systems) holds.
	Inputs(ccs constraint.ConstraintSystem) Inputs
	// Setup loads the key of req from the cache, or makes one (a
	// development key: fresh randomness, or an unsafe SRS) and caches it,
	// saying so on log; with req.Force it makes one whatever the cache
	// holds. A long setup stops when ctx is done, writing nothing.
	Setup(ctx context.Context, req KeyRequest, log io.Writer) (Key, error)
	// Load is Setup that never makes a key: ErrNotCached (wrapped) when
	// the cache holds none.
	Load(ctx context.Context, req KeyRequest) (Key, error)
	// ReadKeys reads a user's own proving and verifying key files (gnark's
	// WriteTo encodings) for sys, whose constraint system it needs, and
	// checks them against it before any proving (domain size, wire and
	// commitment counts): another circuit's key is refused naming the
	// mismatch. They are never copied into the cache.
	ReadKeys(ctx context.Context, sys System, pkFile, vkFile string) (Key, error)
	// VerifyingKey returns the verifying key of a file the user named
	// (file != ""), or else the cache's for req, whose constraint system
	// must have constraints constraints when that is not 0.
	VerifyingKey(ctx context.Context, req KeyRequest, file string, constraints int) (VerifyingKey, error)
}

// DefaultKeyDir is the key cache every family shares by default:
// $XDG_CACHE_HOME/prooflane/keys, else ~/.cache/prooflane/keys.
func DefaultKeyDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "prooflane", "keys")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "prooflane", "keys")
	}
	return filepath.Join(os.TempDir(), "prooflane", "keys")
}

// MaxSystemFile bounds a constraint system file: 64 GiB, about a 2^28
// constraint circuit's.
const MaxSystemFile = 64 << 30

// System names a constraint system a key is for. A built-in circuit is
// named and sized (Name "chain", Size 4096) and the family compiles it
// (or reuses its cached compiled copy); a compiled one (a user's) is named
// by its content (CompiledSystem) and carries its CCS.
type System struct {
	// Name is the system's name in the key cache and the manifest: a
	// built-in circuit's, or "circuit-" and 16 hex digits of the SHA-256
	// of its encoding.
	Name string
	// Size is a built-in circuit's size, or a compiled system's
	// constraint count.
	Size int
	// CCS is the constraint system; nil for a built-in circuit, which the
	// family compiles when it needs it, or to find a cached key by name.
	CCS constraint.ConstraintSystem
	// Curve is the curve the system and its key are of (a compiled
	// system's CurveID); ecc.UNKNOWN is DefaultCurve.
	Curve ecc.ID
}

// compiledPrefix starts a compiled system's name.
const compiledPrefix = "circuit-"

// CompiledSystem names ccs by its content: "circuit-" and the first 8
// bytes of its encoding's SHA-256 in hex, sized by its constraint count.
func CompiledSystem(ccs constraint.ConstraintSystem) (System, error) {
	h := sha256.New()
	if _, err := ccs.WriteTo(h); err != nil {
		return System{}, fmt.Errorf("digest of the constraint system: %w", err)
	}
	return System{Name: compiledPrefix + hex.EncodeToString(h.Sum(nil)[:8]), Size: ccs.GetNbConstraints(), CCS: ccs, Curve: SystemCurve(ccs)}, nil
}

// IsCompiled reports whether name is a compiled system's (CompiledSystem),
// not a built-in circuit's.
func IsCompiled(name string) bool { return strings.HasPrefix(name, compiledPrefix) }

// String names the system in errors and logs: `circuit "chain" size
// 4096`, or `constraint system circuit-0123456789abcdef (N constraints)`,
// followed by " on bn254" for a curve other than DefaultCurve.
func (s System) String() string {
	on := ""
	if c := CurveOf(s.Curve); c != DefaultCurve {
		on = " on " + CurveName(c)
	}
	if IsCompiled(s.Name) {
		return fmt.Sprintf("constraint system %s (%d constraints)%s", s.Name, s.Size, on)
	}
	return fmt.Sprintf("circuit %q size %d%s", s.Name, s.Size, on)
}

// KeyName is the name of the key of sys whose verifying key file is vk:
// the system's name and size, its curve's CurveSuffix, and the first 8
// bytes of the file's SHA-256 in hex, so that two setups of one system
// differ ("chain-4096/0a1b...", "chain-4096-bn254/0a1b..."). Every family
// names its keys so (Key.Name), and verify compares a manifest's with the
// key it checks with.
func KeyName(sys System, vk []byte) string {
	sum := sha256.Sum256(vk)
	return fmt.Sprintf("%s-%d%s/%s", sys.Name, sys.Size, CurveSuffix(sys.Curve), hex.EncodeToString(sum[:8]))
}

// KeyRequest names one of a family's keys in a key cache.
type KeyRequest struct {
	// Dir is the key cache directory.
	Dir string
	// System is the constraint system the key is for.
	System System
	// Force makes Setup make the key whatever the cache holds, replacing
	// its files.
	Force bool
	// Backend, when not nil, is where Setup may make the key (Groth16:
	// its bases on device 0's generator multiplication); nil: on the
	// host. The caller owns it and closes it after Setup returns.
	Backend device.Backend
	// OnDevice says the job (or the setup) runs on a backend whose
	// devices have memory of their own (CUDA), so that the device work's
	// vectors are there, not on the host; host memory estimates count
	// less then. False: on the host (the CPU backend's emulated devices)
	// or not known, the larger estimate.
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

// Key is one of a family's keys, loaded, with its constraint system.
type Key interface {
	// Name identifies the key (recorded in the manifest): KeyName of its
	// system and verifying key.
	Name() string
	// System is the key's constraint system.
	System() System
	// Constraints is the constraint system's count.
	Constraints() int
	// Inputs are the counts of public and secret inputs a full witness
	// of the key's system holds (ReadWitness checks them).
	Inputs() Inputs
	// Files are the key's files (in the cache, or the user's), for
	// setup's report and the service's accounting.
	Files() []string
	// VerifyingKey is the key's verifying key.
	VerifyingKey() VerifyingKey
	// NewJob returns the job proving each witness (gnark's full witness of
	// the key's system: public and secret inputs), one partition each.
	// A witness of the wrong length is refused naming its index.
	NewJob(witnesses []witness.Witness) (Job, error)
}

// VerifyingKey checks a family's proof files.
type VerifyingKey interface {
	// From says what the proofs are checked with, for messages: a key
	// file, or the key's name.
	From() string
	// Bytes is the Layout's VK file's contents (nil without one).
	Bytes() []byte
	// NbPublic is the number of public inputs a public witness holds.
	NbPublic() int
	// Verify checks a partition's files: both decode within their
	// bounds (no panic, whatever the bytes) and the proof verifies
	// against the public inputs in f.Public. Errors name f's files.
	Verify(f Files) error
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
	// Partitions is the job's partition count (one a witness).
	Partitions() int
	// Files returns partition's files from the output of the pipeline's
	// final proof stage.
	Files(partition int, output any) (Files, error)
	// Verify checks partition's files against the job's key and the
	// partition's own public inputs.
	Verify(partition int, f Files) error
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
	// whether the key setup runs first (req.Force, or no key cached).
	// Zero bytes: no estimate.
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
