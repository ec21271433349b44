package plonk

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	cs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/prooflane/prooflane/internal/ccsfile"
	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// ErrNotCached is wrapped when the cache holds no key of a circuit and
// size; it wraps family.ErrNotCached.
var ErrNotCached = fmt.Errorf("plonk: %w", family.ErrNotCached)

// Cache is a directory of PLONK keys, one file a circuit and size:
// plonk-<circuit>-<size>.pk, gnark's serialization of the proving key
// (which holds the verifying key and both forms of the SRS, points
// uncompressed: ProvingKey.WriteRawTo) followed by the checksum trailer of
// internal/keyfile, written whole or not at all. The constraint system is
// not cached: compiling a shipped circuit is deterministic, and NewKey
// checks the key against it. (Groth16's key cache directory is a fine
// one: the file names differ.)
type Cache struct{ Dir string }

// Path is the key file of circuit at size.
func (c Cache) Path(circuit string, size int) string {
	return filepath.Join(c.Dir, fmt.Sprintf("plonk-%s-%d%s.pk", circuit, size, family.CurveSuffix(Curve)))
}

// Compile builds the shipped circuit (workloads) of about
// size constraints and compiles it for PLONK.
func Compile(circuit string, size int) (*cs.SparseR1CS, workloads.Instance, error) {
	inst, err := workloads.New(Curve, circuit, size)
	if err != nil {
		return nil, nil, err
	}
	spr, err := CompileCircuit(circuit, inst.Circuit())
	return spr, inst, err
}

// Load compiles the circuit and reads its key from the cache; ErrNotCached
// when the file is missing. Reading stops when ctx is done.
func (c Cache) Load(ctx context.Context, circuit string, size int) (*Key, workloads.Instance, error) {
	spr, inst, err := Compile(circuit, size)
	if err != nil {
		return nil, nil, err
	}
	k, err := c.load(ctx, circuit, size, spr)
	return k, inst, err
}

// LoadSystem reads the key cached as name at size for spr, a constraint
// system the caller has (compiled, or read from a user's file), under
// the key file's shared lock; ErrNotCached when the file is missing.
func (c Cache) LoadSystem(ctx context.Context, name string, size int, spr *cs.SparseR1CS) (*Key, error) {
	if _, err := os.Stat(c.Path(name, size)); errors.Is(err, os.ErrNotExist) {
		// Nothing cached: no lock file made for a key that is not there.
		return nil, fmt.Errorf("%s: %w", c.Path(name, size), ErrNotCached)
	}
	release, err := keyfile.Lock(ctx, c.lockPath(name, size), false, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	return c.load(ctx, name, size, spr)
}

// LoadVK reads the verifying key of the key cached as name at size, from
// the key file (whose domain its verifying key, first in the file, says:
// bounded by MaxSize, and the file's lengths checked against it before
// anything is decoded); ErrNotCached when the file is missing.
func (c Cache) LoadVK(ctx context.Context, name string, size int) (*gplonk.VerifyingKey, error) {
	path := c.Path(name, size)
	release, err := keyfile.Lock(ctx, c.lockPath(name, size), false, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	f, st, err := regfile.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotCached)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qcp, rows, err := vkCounts(f, st.Size())
	if err == nil && (qcp != rows || vkEncoding().size(qcp, rows) > st.Size()) {
		err = fmt.Errorf("the verifying key declares %d BSB22 commitments and %d commitment rows, which its %d bytes do not make", qcp, rows, st.Size())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%s)", path, err, keyfile.SetupAgain)
	}
	head := make([]byte, vkEncoding().size(qcp, rows))
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("%s: the verifying key: %w (%s)", path, err, keyfile.SetupAgain)
	}
	vk := &gplonk.VerifyingKey{}
	if _, err := keyfile.ReadSafely(vk.UnsafeReadFrom, bytes.NewReader(head)); err != nil {
		return nil, fmt.Errorf("%s: the verifying key: %w (%s)", path, err, keyfile.SetupAgain)
	}
	if n := vk.Size; n < 2 || n > MaxSize || n&(n-1) != 0 {
		return nil, fmt.Errorf("%s: a domain of %d (%s)", path, n, keyfile.SetupAgain)
	}
	pk, err := readPK(ctx, path, vk.Size, int(qcp))
	if err != nil {
		return nil, err
	}
	return pk.Vk, nil
}

func (c Cache) load(ctx context.Context, circuit string, size int, spr *cs.SparseR1CS) (*Key, error) {
	pk, err := readPK(ctx, c.Path(circuit, size), domainSize(spr), len(spr.CommitmentInfo.CommitmentIndexes()))
	if err != nil {
		return nil, err
	}
	k, err := NewKey(circuit, spr, pk, pk.Vk)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%s)", c.Path(circuit, size), err, keyfile.SetupAgain)
	}
	return k, nil
}

// LoadOrSetup loads the key of circuit at size, or makes one with
// UnsafeSetup and saves it, saying so on log. Cancelling ctx stops reading and the
// setup between its phases, writing nothing.
func (c Cache) LoadOrSetup(ctx context.Context, circuit string, size int, log io.Writer) (*Key, workloads.Instance, error) {
	spr, inst, err := Compile(circuit, size)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	k, err := c.LoadOrSetupSystem(ctx, circuit, size, spr, log)
	if err != nil {
		return nil, nil, err
	}
	return k, inst, nil
}

// LoadOrSetupSystem loads the key cached as circuit at size for spr, a
// constraint system the caller compiled (CompileCircuit: a shipped
// circuit, or a library user's own under a name derived from it), or
// makes one with UnsafeSetup and saves it, saying so on log. The setup
// runs under the key file's exclusive lock, after loading again: another
// process may have made the key while this one waited. Cancelling ctx
// stops the setup between its phases, writing nothing.
func (c Cache) LoadOrSetupSystem(ctx context.Context, circuit string, size int, spr *cs.SparseR1CS, log io.Writer) (*Key, error) {
	if log == nil {
		log = io.Discard
	}
	return keyfile.LoadOrMake(ctx, c.lockPath(circuit, size), c.waiting(circuit, size, log), ErrNotCached, c.mkdir,
		func() (*Key, error) { return c.load(ctx, circuit, size, spr) },
		func(error) (*Key, error) {
			fmt.Fprintf(log, "plonk setup: circuit %s, size %d, an unsafe kzg srs (for tests and benchmarks) into %s\n", circuit, size, c.Path(circuit, size))
			k, err := UnsafeSetup(ctx, circuit, spr)
			if err != nil {
				return nil, err
			}
			return k, c.save(k, size)
		})
}

// mkdir makes the cache's directory.
func (c Cache) mkdir() error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("plonk key cache %s: %w", c.Dir, err)
	}
	return nil
}

// Save writes k as the key of its circuit at size, under the key file's
// exclusive lock.
func (c Cache) Save(k *Key, size int) error {
	if err := c.mkdir(); err != nil {
		return err
	}
	release, err := keyfile.Lock(context.Background(), c.lockPath(k.Circuit, size), true, nil)
	if err != nil {
		return err
	}
	defer release()
	return c.save(k, size)
}

// save writes k's file; the caller holds the exclusive lock, so no other
// setup of the key is writing, and what a killed setup left (the
// temporary name keyfile.Write renames) is removed first.
func (c Cache) save(k *Key, size int) error {
	path := c.Path(k.Circuit, size)
	if err := keyfile.RemoveTemporaries(path); err != nil {
		return fmt.Errorf("plonk key cache: %w", err)
	}
	return keyfile.Write(path, k.PK.WriteRawTo)
}

// lockPath is the lock file of circuit's key at size, beside it.
func (c Cache) lockPath(circuit string, size int) string { return c.Path(circuit, size) + ".lock" }

// waiting returns the message keyfile.Lock gives when another process
// holds the key's lock: one making the key, which can take minutes.
func (c Cache) waiting(circuit string, size int, log io.Writer) func() {
	return func() {
		fmt.Fprintf(log, "waiting for another process setting up the plonk key of circuit %q size %d (lock %s)\n", circuit, size, c.lockPath(circuit, size))
	}
}

// readPK reads a key file of the cache for a domain of n and a
// constraint system of commitments BSB22 commitments: the lengths it
// declares are checked against n, the commitments and the file's size
// before gnark's decoder allocates them, and the checksum before anything
// is decoded; reading stops when ctx is done.
func readPK(ctx context.Context, path string, n uint64, commitments int) (*gplonk.ProvingKey, error) {
	pk := &gplonk.ProvingKey{}
	err := keyfile.Read(ctx, path, true, ErrNotCached, keyfile.Decoder{
		HashFirst: true,
		Check:     func(r io.ReaderAt, size int64) error { return checkPKLengths(r, size, n, commitments) },
		Read:      pk.UnsafeReadFrom,
	})
	if err != nil {
		return nil, err
	}
	return pk, nil
}

// checkPKLengths checks a raw proving key of size bytes for a domain of n
// and a constraint system of commitments BSB22 commitments: as many
// commitment selectors and commitment rows in the verifying key, n+3
// canonical and n Lagrange points, nothing else.
func checkPKLengths(r io.ReaderAt, size int64, n uint64, commitments int) error {
	qcp, rows, err := vkCounts(r, size)
	if err != nil {
		return err
	}
	if qcp != int64(commitments) || rows != int64(commitments) {
		return fmt.Errorf("the verifying key declares %d BSB22 commitments and %d commitment rows, the circuit's constraint system has %d commitments (api.Commit)", qcp, rows, commitments)
	}
	off := vkEncoding().size(qcp, rows)
	for _, want := range []struct {
		n    uint64
		what string
	}{{n + 3, "canonical srs"}, {n, "lagrange srs"}} {
		var b [4]byte
		if off+4 > size {
			return fmt.Errorf("%d bytes: too short for the %s", size, want.what)
		}
		if _, err := r.ReadAt(b[:], off); err != nil {
			return err
		}
		got := uint64(binary.BigEndian.Uint32(b[:]))
		if got != want.n {
			return fmt.Errorf("the %s declares %d points, the circuit's domain of %d needs %d", want.what, got, n, want.n)
		}
		off += 4 + int64(got)*curve.SizeOfG1AffineUncompressed
	}
	if off != size {
		return fmt.Errorf("%d bytes, the lengths it declares make %d", size, off)
	}
	return nil
}

// ReadUserPK reads a user's proving key file (gnark's WriteTo, or
// WriteRawTo) for a domain of n and a constraint system of commitments
// BSB22 commitments: its lengths checked against them and the file's size
// before gnark decodes it; reading stops when ctx is done.
func ReadUserPK(ctx context.Context, path string, n uint64, commitments int) (*gplonk.ProvingKey, error) {
	pk := &gplonk.ProvingKey{}
	err := keyfile.Read(ctx, path, false, ErrNotCached, keyfile.Decoder{
		Check: func(r io.ReaderAt, size int64) error { return checkUserPKLengths(r, size, n, commitments) },
		Read:  pk.UnsafeReadFrom,
	})
	if err != nil {
		return nil, fmt.Errorf("plonk proving key: %w", err)
	}
	return pk, nil
}

// checkUserPKLengths checks a proving key file of size bytes for a domain
// of n and commitments BSB22 commitments, in either of gnark's encodings
// (told apart by the size, which is exact for each): its verifying key
// with that many commitments, then n+3 canonical and n Lagrange points,
// the two counts as the domain says, before gnark's decoder allocates
// what they say.
func checkUserPKLengths(r io.ReaderAt, size int64, n uint64, commitments int) error {
	qcp, rows, err := vkCounts(r, size)
	if err != nil {
		return err
	}
	if qcp != int64(commitments) || rows != int64(commitments) {
		return fmt.Errorf("its verifying key declares %d BSB22 commitments and %d commitment rows, the constraint system has %d commitments (another circuit's key?)", qcp, rows, commitments)
	}
	vk := vkEncoding().size(qcp, rows)
	for _, point := range []int64{curve.SizeOfG1AffineCompressed, curve.SizeOfG1AffineUncompressed} {
		if size != vk+8+int64(2*n+3)*point {
			continue
		}
		var b [4]byte
		off := vk
		for _, want := range []uint64{n + 3, n} {
			if _, err := r.ReadAt(b[:], off); err != nil {
				return err
			}
			if got := uint64(binary.BigEndian.Uint32(b[:])); got != want {
				return fmt.Errorf("an srs of %d points where a domain of %d needs %d", got, n, want)
			}
			off += 4 + int64(want)*point
		}
		return nil
	}
	return fmt.Errorf("%d bytes: not a key for a domain of %d in gnark's compressed or raw encoding (another circuit's?)", size, n)
}

// ReadSparseR1CS reads a user's constraint system file (gnark's
// SparseR1CS WriteTo), at most family.MaxSystemFile bytes, checked before
// and after gnark decodes it (internal/ccsfile) so that neither decoding
// nor solving it can panic; reading stops when ctx is done.
func ReadSparseR1CS(ctx context.Context, path string) (*cs.SparseR1CS, error) {
	sys, err := ccsfile.Read(ctx, path, Curve, ccsfile.SparseR1CS, family.MaxSystemFile)
	if err != nil {
		return nil, err
	}
	spr, ok := sys.(*cs.SparseR1CS)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, want a BLS12-381 SparseR1CS", path, sys)
	}
	return spr, nil
}

// MaxSRSPoints bounds the G1 points of an SRS file ReadSRS reads.
const MaxSRSPoints = MaxSize + 3

// ReadSRS reads a canonical KZG SRS in gnark's serialization
// (kzg.SRS.WriteTo or WriteRawTo: the G1 points, compressed or not, then
// the verifying key), as a ceremony publishes it, with gnark's checks that
// every point is on the curve and in its subgroup. The point count is
// bounded by MaxSRSPoints and checked against the file's size before
// anything is allocated. (A file with a checksum trailer is checked too.)
// Reading stops when ctx is done.
func ReadSRS(ctx context.Context, path string) (*kzg.SRS, error) {
	srs := &kzg.SRS{}
	err := keyfile.Read(ctx, path, false, ErrNotCached, keyfile.Decoder{
		Check: func(r io.ReaderAt, size int64) error {
			var b [4]byte
			if size < 4 {
				return fmt.Errorf("%d bytes: too short for a kzg srs", size)
			}
			if _, err := r.ReadAt(b[:], 0); err != nil {
				return err
			}
			count := int64(binary.BigEndian.Uint32(b[:]))
			if count > MaxSRSPoints {
				return fmt.Errorf("declares %d G1 points, above the limit of %d (MaxSRSPoints)", count, MaxSRSPoints)
			}
			if 4+count*curve.SizeOfG1AffineCompressed > size {
				return fmt.Errorf("declares %d G1 points, more than its %d bytes hold", count, size)
			}
			return nil
		},
		Read: srs.ReadFrom,
	})
	if err != nil {
		return nil, fmt.Errorf("kzg srs: %w", err)
	}
	if len(srs.Pk.G1) < 5 {
		return nil, fmt.Errorf("kzg srs %q: %d G1 points, too few for any circuit", path, len(srs.Pk.G1))
	}
	return srs, nil
}
