// Package keys compiles the shipped circuits, runs the Groth16 setup, and
// caches the constraint system and keys on disk, keyed by circuit and size.
//
// A cache directory holds, per circuit and size, three files written with
// gnark's serialization: <circuit>-<size>.r1cs (WriteTo), .pk (WriteRawTo,
// read back with UnsafeReadFrom) and .vk (WriteTo, read back with the
// subgroup checks). Files are written to a temporary name, synced and
// renamed, so a crashed setup leaves no half-written key; the next setup
// removes the temporary files (name.tmpNNN) a killed one left, under the
// lock. Load says which file is missing (wrapping ErrNotCached) or
// corrupt, with `prooflane setup --force` as the fix.
//
// Integrity: each file ends with a 28-byte trailer, the magic
// "prooflane crc32c", the length of the content before it and the
// content's CRC-32C (Castagnoli). A trailer rather than a sidecar file:
// the checksum is renamed into place with the bytes it covers, so no
// crash, copy or second setup can pair a key with another key's checksum,
// and no extra file needs locking. CRC-32C runs at memory speed (SSE4.2
// and AVX-512 instructions in the standard library: 3.4-11.8 GB/s here,
// against 140-160 MB/s for gnark's decoding of a proving key), detects
// every single flipped byte and every burst of up to 32 bits, and is
// computed while the decoder reads (one pass over the file, nothing held
// twice: keys will be tens of GB); the constraint system and verifying
// key are hashed before decoding instead, because their decoders can
// crash in goroutines of their own on corrupt bytes. Before decoding, the
// lengths a file declares are checked against its size (gnark's decoders
// allocate what a length prefix says). A file without a trailer (a cache
// written before it existed) is refused with the same advice. A checksum
// guards against corruption, not forgery: someone who can write the cache
// can write a matching checksum. So a file whose checksum matches is
// still checked for what gnark's decoders and solver trust on goroutines
// of their own, where a panic is beyond any recover: a constraint
// system's sections, compressed streams and, once decoded, what its
// solver indexes (internal/ccsfile), and a proving key's domain size. Such a
// file is corrupt, named, like any other.
//
// Point checks: decoding the proving key with gnark's checks that every
// point is on the curve and in its subgroup (ReadFrom) takes 2.75 s at
// 2^12 and 13.5 s at 2^14 against 17 ms and 58 ms unchecked
// (UnsafeReadFrom) on this 2-core machine, about 160 times as long (some
// 15 minutes at 2^20), so Load does not make them: the checksum catches
// corruption of the file, and the epilogue stage verifies every proof
// (groth16.EpilogueConfig.Verify), which catches a corrupt key however it
// came about. The verifying key, a few hundred bytes, is read with them.
// Figures from
//
//	go test -run '^$' -bench BenchmarkProvingKeyLoad -benchtime 5x ./stages/groth16/keys/
//
// Reusing the compiled circuit: gnark's frontend, on one core, is most of
// a large setup (44 s of chain's 74 s at 2^24 on the H200's host), and the
// .r1cs holds what it made. Cache.Setup, what `prooflane setup` runs when
// the cache has no whole keys and `setup --force` always, makes the keys
// for the cache's .r1cs instead of compiling when that file is whole (its
// trailer and checksum verify, gnark decodes it) and has the constraint
// count the circuit compiles to at the size (workloads.Instance.Constraints),
// and says so; any other .r1cs is not used: the circuit is compiled, the
// log says why, and the save replaces the file. The rule is the one the
// cache has always had for proving: the .r1cs is the circuit for as long
// as it is there. After changing a circuit's code, delete its .r1cs and
// the next setup compiles it (a changed constraint count is caught, other
// changes cannot be without compiling).
//
// How reuse keeps the invariants above. The .r1cs is read under the
// entry's shared lock, so never during a save. The save (exclusive lock)
// writes the proving and verifying keys and leaves the .r1cs in place
// when it is still the file read (the same file, size and time: the same
// bytes); otherwise it writes it last, as always. So the .r1cs still
// says that a whole save happened, though not, while a save over it is
// killed between two files, that the keys beside it are that save's: it
// then holds keys of two setups, which Load refuses as not belonging
// together (with setup --force as the fix, as for a --force setup killed
// there before reuse existed), or the keys missing that were missing
// before it started, which LoadOrMake refuses as before. LoadOrMake, the
// setup of a prove that finds no keys, never reuses: it makes keys only
// when there is no .r1cs, and refuses to replace the keys of one, as
// before.
package keys

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/internal/ccsfile"
	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/stages/family"
	groth16 "github.com/prooflane/prooflane/stages/groth16/bls12381"
	"github.com/prooflane/prooflane/workloads"
)

// Set is a circuit's constraint system and keys.
type Set struct {
	Circuit string
	Size    int
	R1CS    *cs.R1CS
	PK      *g16.ProvingKey
	VK      *g16.VerifyingKey
	// r1csFile is R1CS's encoding when a setup made it while computing
	// the key (SetupOn); save writes it and drops it.
	r1csFile []byte
	// r1csInfo is the file R1CS was read from when a setup used the
	// cache's compiled circuit (Cache.Setup), as it was then: save leaves
	// that file in place while it is still the same one.
	r1csInfo os.FileInfo
}

// ErrNotCached is wrapped when a key file is missing from the cache.
var ErrNotCached = errors.New("not cached")

// Compile builds and compiles the named circuit at size.
func Compile(circuit string, size int) (*cs.R1CS, workloads.Instance, error) {
	inst, err := workloads.New(groth16.Curve, circuit, size)
	if err != nil {
		return nil, nil, err
	}
	// Sized so that the system's slices are not grown by copying while it
	// is built: gnark reserves the capacity for instructions, half of it
	// for dependency levels and a tenth for coefficients, and a circuit
	// as deep as chain has a level a constraint, so twice the size.
	// (chain's coefficient table, a new constant a constraint, still
	// grows.)
	sys, err := CompileCircuit(circuit, inst.Circuit(), frontend.WithCapacity(2*size))
	return sys, inst, err
}

// CompileCircuit compiles any circuit to a BLS12-381 R1CS with gnark's
// options, refusing what the stages cannot prove (groth16.CheckSupported);
// commitments (api.Commit, std/rangecheck, std/math/emulated, ...) are
// proved.
func CompileCircuit(name string, c frontend.Circuit, opts ...frontend.CompileOption) (*cs.R1CS, error) {
	ccs, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, c, opts...)
	if err != nil {
		return nil, fmt.Errorf("compile circuit %q: %w", name, err)
	}
	sys, ok := ccs.(*cs.R1CS)
	if !ok {
		return nil, fmt.Errorf("compile circuit %q: got %T, want a bls12-381 R1CS", name, ccs)
	}
	if err := groth16.CheckSupported(name, sys); err != nil {
		return nil, err
	}
	return sys, nil
}

// Setup compiles the named circuit and runs gnark's Groth16 setup (with
// fresh toxic waste: for benchmarks and demos, not for production).
func Setup(circuit string, size int) (*Set, error) {
	sys, _, err := Compile(circuit, size)
	if err != nil {
		return nil, err
	}
	return gnarkSetup(circuit, size, sys)
}

// gnarkSetup runs gnark's Groth16 setup of sys, circuit's system at size.
func gnarkSetup(circuit string, size int, sys *cs.R1CS) (*Set, error) {
	var pk g16.ProvingKey
	var vk g16.VerifyingKey
	if err := g16.Setup(sys, &pk, &vk); err != nil {
		return nil, fmt.Errorf("setup circuit %q size %d: %w", circuit, size, err)
	}
	return &Set{Circuit: circuit, Size: size, R1CS: sys, PK: &pk, VK: &vk}, nil
}

// Cache is an on-disk key cache.
type Cache struct {
	Dir string
}

// Paths returns the files of circuit at size.
func (c Cache) Paths(circuit string, size int) (r1csPath, pkPath, vkPath string) {
	base := filepath.Join(c.Dir, fmt.Sprintf("%s-%d%s", circuit, size, family.CurveSuffix(groth16.Curve)))
	return base + ".r1cs", base + ".pk", base + ".vk"
}

// lockPath is the lock file ordering setups and loads of circuit at size:
// a setup writes three files, and a load between two of them, or a
// second setup interleaved with the first, would pair the proving key of
// one setup with the verifying key of another.
func (c Cache) lockPath(circuit string, size int) string {
	return filepath.Join(c.Dir, fmt.Sprintf("%s-%d%s.lock", circuit, size, family.CurveSuffix(groth16.Curve)))
}

// Load reads circuit's keys at size from the cache, stopping (with an
// error wrapping ctx's cause) when ctx is done.
func (c Cache) Load(ctx context.Context, circuit string, size int) (*Set, error) {
	release, err := lockFile(ctx, c.lockPath(circuit, size), false, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	return c.load(ctx, circuit, size)
}

// waiting returns the message lockFile gives when another process holds
// the keys' lock: one that is setting them up, which can take minutes.
func (c Cache) waiting(circuit string, size int, log io.Writer) func() {
	return func() {
		fmt.Fprintf(log, "waiting for another process setting up circuit %q size %d (lock %s)\n", circuit, size, c.lockPath(circuit, size))
	}
}

func (c Cache) load(ctx context.Context, circuit string, size int) (*Set, error) {
	rp, pp, vp := c.Paths(circuit, size)
	// A file missing or cut short is named before any is decoded: the
	// setup that follows reads the constraint system again (Setup), and
	// at 2^24 that is seconds.
	for _, p := range []string{rp, pp, vp} {
		if err := checkKeyFile(p); err != nil {
			return nil, err
		}
	}
	s := &Set{Circuit: circuit, Size: size, R1CS: new(cs.R1CS), PK: new(g16.ProvingKey)}
	var err error
	if err := readKeyFile(ctx, rp, true, r1csDecoder(s.R1CS)); err != nil {
		return nil, err
	}
	if err := readKeyFile(ctx, pp, true, decoder{check: checkPKLengths, read: func(r io.Reader) (int64, error) { return readProvingKey(r, s.PK) }}); err != nil {
		return nil, err
	}
	if s.VK, err = readVK(vp, true); err != nil {
		return nil, err
	}
	if err := groth16.CheckSupported(circuit, s.R1CS); err != nil {
		return nil, fmt.Errorf("%s: %w", rp, err)
	}
	if err := groth16.CheckKeys(circuit, s.R1CS, s.PK, s.VK); err != nil {
		return nil, fmt.Errorf("keys in %s do not belong together (%s): %w", c.Dir, setupAgain, err)
	}
	return s, nil
}

// LoadR1CS reads only the constraint system of circuit at size, stopping
// when ctx is done.
func (c Cache) LoadR1CS(ctx context.Context, circuit string, size int) (*cs.R1CS, error) {
	rp, _, _ := c.Paths(circuit, size)
	sys := new(cs.R1CS)
	if err := readKeyFile(ctx, rp, true, r1csDecoder(sys)); err != nil {
		return nil, err
	}
	return sys, nil
}

// LoadVK reads only the verifying key of circuit at size.
func (c Cache) LoadVK(circuit string, size int) (*g16.VerifyingKey, error) {
	_, _, vp := c.Paths(circuit, size)
	return readVK(vp, true)
}

// ReadVK reads a verifying key file. Before decoding, it checks the
// lengths the file declares against its size: gnark's decoder allocates
// what a length prefix says before reading the elements, so one flipped
// byte there would be a fatal out-of-memory error, not an error.
func ReadVK(path string) (*g16.VerifyingKey, error) { return readVK(path, false) }

// readVK reads a verifying key; inCache says the file is the key cache's
// (a missing one is ErrNotCached, a corrupt one is to be set up again).
func readVK(path string, inCache bool) (*g16.VerifyingKey, error) {
	vk := new(g16.VerifyingKey)
	// Hashed first: the key is small, and its decoder checks points in
	// goroutines of its own.
	// Not cancelled: a verifying key is at most maxVKFile.
	if err := readKeyFile(context.Background(), path, inCache, decoder{hashFirst: true, read: func(r io.Reader) (int64, error) {
		data, err := io.ReadAll(io.LimitReader(r, maxVKFile+1))
		if err != nil {
			return 0, err
		}
		if err := checkVKLengths(data); err != nil {
			return 0, err
		}
		br := bytes.NewReader(data)
		n, err := vk.ReadFrom(br)
		if err == nil && br.Len() != 0 {
			err = errors.New("trailing data")
		}
		return n, err
	}}); err != nil {
		return nil, err
	}
	return vk, nil
}

// checkPKLengths checks the lengths a raw proving key file (WriteRawTo)
// declares against the file's size before gnark decodes it: the decoder
// allocates what each length says before reading the elements, so one
// flipped byte in a length would be a fatal out-of-memory error before the
// checksum could tell. The layout: the domain, α₁ β₁ δ₁, the G1 vectors
// A B Z K (a 4-byte count, then the uncompressed points), β₂ δ₂, G2 B
// (likewise), the wire count and the two infinity counts (8 bytes each), one
// byte per wire for each infinity vector, then the commitment count and
// each commitment key's two G1 vectors (its bases, and them times σ). The
// domain's size, a power of two, is one more than the Z points.
func checkPKLengths(r io.ReaderAt, size int64) error {
	return checkPKLengthsOf(r, size, curve.SizeOfG1AffineUncompressed, curve.SizeOfG2AffineUncompressed) // as WriteRawTo writes them
}

// pkDomainBytes is the length of a proving key's domain in its encoding.
const pkDomainBytes = 8 + 5*fr.Bytes + 1

// checkAnyPKLengths is checkPKLengths for a proving key in either of
// gnark's encodings, told apart by its first point's flag bits: WriteTo's
// (compressed) or WriteRawTo's.
func checkAnyPKLengths(r io.ReaderAt, size int64) error {
	var flag [1]byte
	if size <= pkDomainBytes {
		return fmt.Errorf("truncated in the domain (%d bytes)", size)
	}
	if _, err := r.ReadAt(flag[:], pkDomainBytes); err != nil {
		return err
	}
	if flag[0]&0x80 != 0 {
		return checkPKLengthsOf(r, size, curve.SizeOfG1AffineCompressed, curve.SizeOfG2AffineCompressed)
	}
	return checkPKLengthsOf(r, size, curve.SizeOfG1AffineUncompressed, curve.SizeOfG2AffineUncompressed)
}

// checkPKLengthsOf is checkPKLengths for points of g1 and g2 bytes.
func checkPKLengthsOf(r io.ReaderAt, size int64, g1, g2 int64) error {
	const domain = pkDomainBytes
	var buf [8]byte
	if size < domain {
		return fmt.Errorf("truncated in the domain (%d bytes)", size)
	}
	if _, err := r.ReadAt(buf[:], 0); err != nil {
		return err
	}
	// The domain is precomputed as it is read, on goroutines of gnark's
	// that a cardinality of zero makes panic: it must be the size the
	// file holds the Z points of.
	card := binary.BigEndian.Uint64(buf[:])
	at := int64(domain + 3*g1)
	read := func(n int, what string) ([]byte, error) {
		if size-at < int64(n) {
			return nil, fmt.Errorf("truncated before %s (%d bytes)", what, size)
		}
		if _, err := r.ReadAt(buf[:n], at); err != nil {
			return nil, err
		}
		at += int64(n)
		return buf[:n], nil
	}
	vector := func(what string, elem int64) error {
		b, err := read(4, what)
		if err != nil {
			return err
		}
		n := int64(binary.BigEndian.Uint32(b))
		if n*elem > size-at {
			return fmt.Errorf("declares %d %s points, %d bytes left for them", n, what, size-at)
		}
		at += n * elem
		return nil
	}
	for _, what := range []string{"g1.a", "g1.b", "g1.z", "g1.k"} {
		if what == "g1.z" {
			b, err := read(4, what)
			if err != nil {
				return err
			}
			if z := uint64(binary.BigEndian.Uint32(b)); card == 0 || card&(card-1) != 0 || z != card-1 {
				return fmt.Errorf("a domain of %d points with %d Z points, want a power of two and one fewer", card, z)
			}
			at -= 4
		}
		if err := vector(what, g1); err != nil {
			return err
		}
	}
	at += 2 * g2
	if err := vector("g2.b", g2); err != nil {
		return err
	}
	b, err := read(8, "the wire count")
	if err != nil {
		return err
	}
	wires := binary.BigEndian.Uint64(b)
	at += 16 // the infinity counts
	if left := size - at; left < 0 || wires > uint64(left)/2 {
		return fmt.Errorf("declares %d wires, %d bytes left for their infinity flags", wires, max(left, 0))
	}
	at += 2 * int64(wires)
	if b, err = read(4, "the commitment count"); err != nil {
		return err
	}
	commitments := int64(binary.BigEndian.Uint32(b))
	if commitments*8 > size-at {
		return fmt.Errorf("declares %d commitment keys, %d bytes left for them", commitments, size-at)
	}
	for i := range commitments {
		for _, what := range []string{"bases", "bases·σ"} {
			if err := vector(fmt.Sprintf("commitment key %d's %s", i, what), g1); err != nil {
				return err
			}
		}
	}
	return nil
}

// r1csDecoder reads a constraint system into sys, hashing the file
// first, checking its lengths and streams before gnark decodes it
// (ccsfile.CheckLayout) and what the solver will index after
// (ccsfile.CheckSolvable): gnark decodes it, and solves it, in goroutines
// of its own, where a panic is no error.
func r1csDecoder(sys *cs.R1CS) decoder {
	return decoder{check: ccsfile.CheckLayout, hashFirst: true, read: func(r io.Reader) (int64, error) {
		n, err := sys.ReadFrom(r)
		if err == nil {
			err = ccsfile.CheckSolvable(sys, ccsfile.R1CS)
		}
		return n, err
	}}
}

// maxVKFile bounds a verifying key file: a compressed G1 point per public
// input.
const maxVKFile = 256 << 20

// checkVKLengths checks the slice lengths of a verifying key in gnark's
// encoding ([α]₁ [β]₁ [β]₂ [γ]₂ [δ]₁ [δ]₂, then the public bases K, the
// lists of committed public inputs, and the commitment keys, two G2
// points each) against the bytes that follow.
func checkVKLengths(b []byte) error {
	if len(b) > maxVKFile {
		return fmt.Errorf("larger than %d MiB", maxVKFile>>20)
	}
	g1, g2 := curve.SizeOfG1AffineCompressed, curve.SizeOfG2AffineCompressed // as WriteTo writes them
	if len(b) > 0 && b[0]&0x80 == 0 {
		g1, g2 = curve.SizeOfG1AffineUncompressed, curve.SizeOfG2AffineUncompressed // WriteRawTo
	}
	at := 3*g1 + 3*g2
	count := func(what string, elem int) (int, error) {
		if len(b)-at < 4 {
			return 0, fmt.Errorf("truncated before %s", what)
		}
		n := int(binary.BigEndian.Uint32(b[at : at+4]))
		at += 4
		if uint64(n)*uint64(elem) > uint64(len(b)-at) {
			return 0, fmt.Errorf("declares %d %s, %d bytes left for them", n, what, len(b)-at)
		}
		return n, nil
	}
	k, err := count("public bases", g1)
	if err != nil {
		return err
	}
	at += k * g1
	lists, err := count("committed input lists", 4)
	if err != nil {
		return err
	}
	for range lists {
		m, err := count("committed inputs", 8)
		if err != nil {
			return err
		}
		at += m * 8
	}
	_, err = count("commitment keys", 2*g2)
	return err
}

// Save writes s to the cache, creating the directory.
func (c Cache) Save(s *Set) error {
	if err := c.mkdir(); err != nil {
		return err
	}
	release, err := lockFile(context.Background(), c.lockPath(s.Circuit, s.Size), true, nil)
	if err != nil {
		return err
	}
	defer release()
	return c.save(s)
}

// mkdir makes the cache's directory.
func (c Cache) mkdir() error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("key cache: %w", err)
	}
	return nil
}

// save writes s's files; the caller holds the exclusive lock. It first
// removes the temporary files of a setup that was killed while writing.
// The constraint system goes last: its presence is what says a set was
// saved whole, so a setup killed between two files leaves a proving key
// or a verifying key without it, which LoadOrMake sets up again, never
// a constraint system without its keys, which it refuses to overwrite.
// A system read from this cache's .r1cs (Cache.Setup) leaves that file in
// place while it is the one read (see the package doc).
func (c Cache) save(s *Set) error {
	rp, pp, vp := c.Paths(s.Circuit, s.Size)
	if err := removeTemporaries(rp, pp, vp); err != nil {
		return fmt.Errorf("key cache: %w", err)
	}
	if err := writeFile(pp, func(w io.Writer) (int64, error) { return writeProvingKey(w, s.PK) }); err != nil {
		return err
	}
	if err := writeFile(vp, s.VK.WriteTo); err != nil {
		return err
	}
	if s.r1csInPlace(rp) {
		return nil
	}
	return writeFile(rp, s.writeR1CS)
}

// r1csInPlace reports whether the file at path is the one s's system was
// read from (Cache.Setup), unchanged since: the same file, size and
// modification time. Its bytes passed the checksum then, and rewriting
// it would write them again (1.3 GiB at 2^24).
func (s *Set) r1csInPlace(path string) bool {
	if s.r1csInfo == nil {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && os.SameFile(st, s.r1csInfo) && st.Size() == s.r1csInfo.Size() && st.ModTime().Equal(s.r1csInfo.ModTime())
}

// LoadOrSetup loads circuit's keys at size, or when none are cached runs
// the setup, saves the keys and says so on log. A corrupt cache is an
// error, not a silent re-setup. Cancelling ctx stops waiting for the
// setup (see SetupLogged); nothing is written then.
func (c Cache) LoadOrSetup(ctx context.Context, circuit string, size int, log io.Writer) (*Set, error) {
	return c.LoadOrSetupOn(ctx, circuit, size, nil, log)
}

// LoadOrSetupOn is LoadOrSetup with the setup made by SetupOn on be (nil:
// gnark's setup).
func (c Cache) LoadOrSetupOn(ctx context.Context, circuit string, size int, be device.Backend, log io.Writer) (*Set, error) {
	return c.LoadOrMake(ctx, circuit, size, log, func() (*Set, error) { return SetupOn(ctx, circuit, size, be, log) })
}

// LoadOrMake loads circuit's keys at size, or when none are cached makes
// them with setup and saves them, under the keys' lock so that concurrent
// processes run one setup and never mix the files of two. A cache that
// holds some of the files and not others is refused, not overwritten
// (unless the .r1cs is the one missing: a save cut short); so setup only
// runs with no .r1cs cached, and compiles (Setup is the one that reuses
// a .r1cs). Reading the files stops when ctx is done.
func (c Cache) LoadOrMake(ctx context.Context, circuit string, size int, log io.Writer, setup func() (*Set, error)) (*Set, error) {
	if log == nil {
		log = io.Discard
	}
	load := func() (*Set, error) { return c.load(ctx, circuit, size) }
	return keyfile.LoadOrMake(ctx, c.lockPath(circuit, size), c.waiting(circuit, size, log), ErrNotCached, c.mkdir, load,
		func(notCached error) (*Set, error) {
			rp, _, _ := c.Paths(circuit, size)
			if _, statErr := os.Stat(rp); statErr == nil {
				// The constraint system is saved last (see save): with it
				// there, a key went missing after a whole save. Don't
				// overwrite silently.
				return nil, notCached
			}
			fmt.Fprintf(log, "no keys cached for circuit %q size %d in %s: running setup (once)\n", circuit, size, c.Dir)
			start := time.Now()
			s, err := setup()
			if err != nil {
				return nil, err
			}
			if err := c.save(s); err != nil {
				return nil, err
			}
			fmt.Fprintf(log, "setup done in %.1fs: %d constraints, keys in %s\n", time.Since(start).Seconds(), s.R1CS.GetNbConstraints(), c.Dir)
			return s, nil
		})
}

// SetupLogged is Setup, saying on log (when not nil) how long it has been
// running every heartbeatEvery: a 2^24 setup takes many minutes. When ctx
// is cancelled first it returns an error wrapping ctx's cause at once;
// gnark's setup cannot be interrupted, so it runs on in the background
// and its result is dropped (a command exits before it ends).
func SetupLogged(ctx context.Context, circuit string, size int, log io.Writer) (*Set, error) {
	s, _, err := setupGnark(ctx, circuit, size, log, nil)
	return s, err
}

// setupGnark is SetupLogged, of cached's system instead of compiling the
// circuit when cached is not nil, returning the phases too: gnark's
// setup is one step, so only Compile (or Cached and Read) is filled.
func setupGnark(ctx context.Context, circuit string, size int, log io.Writer, cached *cachedR1CS) (*Set, Phases, error) {
	if log != nil {
		stop := heartbeat(log, heartbeatEvery, fmt.Sprintf("setup of circuit %q size %d", circuit, size))
		defer stop()
	}
	type result struct {
		s   *Set
		ph  Phases
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		var sys *cs.R1CS
		if cached != nil {
			sys, r.ph.Cached, r.ph.Read = cached.sys, cached.inFile(), cached.read
		} else {
			start := time.Now()
			sys, _, r.err = Compile(circuit, size)
			r.ph.Compile = time.Since(start)
		}
		if r.err == nil {
			r.s, r.err = gnarkSetup(circuit, size, sys)
		}
		if r.err == nil && cached != nil {
			r.s.r1csInfo = cached.info
		}
		done <- r
	}()
	select {
	case r := <-done:
		return r.s, r.ph, r.err
	case <-ctx.Done():
		return nil, Phases{}, fmt.Errorf("setup of circuit %q size %d stopped, no keys written: %w", circuit, size, context.Cause(ctx))
	}
}

const heartbeatEvery = 30 * time.Second

// heartbeat writes "what: still running after D" to log every interval
// until stop is called; stop returns once nothing more will be written.
func heartbeat(log io.Writer, every time.Duration, what string) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(log, "%s: still running after %v\n", what, time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// NewJob builds a job proving partitions partitions of s's circuit, each
// with the witness of workloads.PartitionSeed(seed, p).
func (s *Set) NewJob(partitions int, seed uint64) (*groth16.Job, error) {
	ws, err := s.Witnesses(partitions, seed, false)
	if err != nil {
		return nil, err
	}
	return groth16.NewJob(s.Circuit, s.R1CS, s.PK, s.VK, ws)
}

// Witnesses returns the full witnesses of partitions partitions
// (workloads.Witnesses); with unsatisfied, every one breaks the circuit's
// final equality.
func (s *Set) Witnesses(partitions int, seed uint64, unsatisfied bool) ([]witness.Witness, error) {
	return workloads.Witnesses(groth16.Curve, s.Circuit, s.Size, partitions, seed, unsatisfied)
}
