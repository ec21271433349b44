package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

// Added circuits. A user's constraint system, and their keys if they
// have their own, is added once (AddCircuit) and proved by its id, the
// family's content name of the system (family.CompiledSystem). Its record
// is in the circuits bucket, its files in the circuit object store, named
// by their SHA-256 ("ccs.", "pk.", "vk." and 64 hex digits); neither
// expires. A job's witnesses are objects of the jobs' object store, named
// by their SHA-256 too ("witness." and 64 hex digits), kept for --retain.
const (
	circuitsBucket     = "prooflane_circuits"
	circuitFilesBucket = "prooflane_circuit_files"
	witnessPrefix      = "witness."
)

// errNoCircuit is an id that names no added circuit.
var errNoCircuit = errors.New("no such circuit (prooflane circuits lists them)")

// Circuit is an added circuit as the service keeps it.
type Circuit struct {
	// ID is the constraint system's content name: "circuit-" and 16 hex
	// digits (family.CompiledSystem).
	ID       string `json:"id"`
	Family   string `json:"family"`
	Pipeline string `json:"pipeline"`
	// Constraints is the system's count, its size as a key's.
	Constraints int           `json:"constraints"`
	Inputs      family.Inputs `json:"inputs"`
	// Field is the system's scalar field's modulus, in decimal: a
	// witness is decoded in it.
	Field string `json:"field"`
	// Curve is the system's curve (family.CurveName), none for the
	// default curve (BLS12-381): its keys' and proofs'.
	Curve string `json:"curve,omitempty"`
	// CCS, PK and VK name the files' objects; PK and VK are "" when the
	// workers set up the circuit's keys.
	CCS      string `json:"ccs"`
	PK       string `json:"pk,omitempty"`
	VK       string `json:"vk,omitempty"`
	CCSBytes int64  `json:"ccs_bytes"`
	Added    int64  `json:"added"`
}

// keys names the circuit's own keys ("" when the workers set them up):
// a job's Spec.Keys, so that a worker never uses the keys of a circuit
// removed and added again with others.
// curve is the circuit's curve.
func (c *Circuit) curve() ecc.ID {
	id, _ := family.ParseCurve(c.Curve)
	return id
}

func (c *Circuit) keys() string {
	if c.PK == "" {
		return ""
	}
	return c.PK + "," + c.VK
}

func (c *Circuit) field() (*big.Int, error) {
	f, ok := new(big.Int).SetString(c.Field, 10)
	if !ok {
		return nil, fmt.Errorf("circuit %s: corrupt record: field %q", c.ID, c.Field)
	}
	return f, nil
}

func (c *Circuit) info() *pb.CircuitInfo {
	return &pb.CircuitInfo{CircuitId: c.ID, Family: c.Family, Pipeline: c.Pipeline, Constraints: uint64(c.Constraints),
		PublicInputs: uint32(c.Inputs.Public), SecretInputs: uint32(c.Inputs.Secret), UserKeys: c.PK != "",
		CcsBytes: uint64(c.CCSBytes), AddedUnixMs: c.Added, Curve: family.CurveName(c.curve())}
}

// validCircuitID reports whether id has a circuit id's form: "circuit-"
// and 16 hex digits (so it is a safe key).
func validCircuitID(id string) bool {
	h, ok := strings.CutPrefix(id, "circuit-")
	if !ok || len(h) != 16 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// validDigest reports whether s is a SHA-256 in lower-case hex.
func validDigest(s string) bool {
	if len(s) != 2*sha256.Size || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// checkCircuitID refuses what is not a circuit id, naming the field.
func checkCircuitID(field, id string) error {
	if !validCircuitID(id) {
		return fmt.Errorf("%s %q: not a circuit id (\"circuit-\" and 16 hex digits, as prooflane circuits add prints)", field, id)
	}
	return nil
}

// Circuit returns the record of added circuit id; errNoCircuit when
// there is none. (The store is the worker's JobInputs.)
func (s *store) Circuit(ctx context.Context, id string) (*Circuit, error) {
	if !validCircuitID(id) {
		return nil, fmt.Errorf("circuit %q: %w", id, errNoCircuit)
	}
	var e jetstream.KeyValueEntry
	err := retry(ctx, func(ctx context.Context) (err error) {
		e, err = s.circuits.Get(ctx, id)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("circuit %q: %w", id, errNoCircuit)
	}
	if err != nil {
		return nil, fmt.Errorf("circuit %q: %w", id, err)
	}
	var c Circuit
	if err := json.Unmarshal(e.Value(), &c); err != nil || c.ID != id {
		return nil, fmt.Errorf("circuit %q: corrupt record", id)
	}
	return &c, nil
}

// CircuitFile writes the circuit file object name to w.
func (s *store) CircuitFile(ctx context.Context, name string, w io.Writer) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := s.circuitFiles.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("circuit file %s: %w", name, err)
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("circuit file %s: %w", name, err)
	}
	return nil
}

// Witness returns the witness stored as name (its SHA-256 in hex), at
// most MaxWitnessBytes, its bytes checked against its name. A read that
// fails is tried once more: a witness stored again (putWitness) gets new
// chunks, and the old ones go.
func (s *store) Witness(ctx context.Context, name string) ([]byte, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	if !validDigest(name) {
		return nil, fmt.Errorf("witness %q: not a witness's name (64 hex digits)", name)
	}
	var b []byte
	var err error
	for range 2 {
		if b, err = s.readWitness(ctx, name); err == nil || errors.Is(err, errNoWitness) {
			break
		}
	}
	return b, err
}

// errNoWitness is a witness missing from the object store.
var errNoWitness = errors.New("not in the object store (upload it again; witnesses are kept for --retain)")

func (s *store) readWitness(ctx context.Context, name string) ([]byte, error) {
	info, err := s.objects.GetInfo(ctx, witnessPrefix+name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("witness %s: %w", name, errNoWitness)
	}
	if err != nil {
		return nil, fmt.Errorf("witness %s: %w", name, err)
	}
	if info.Size > MaxWitnessBytes {
		return nil, fmt.Errorf("witness %s: %d bytes, above the limit of %d", name, info.Size, MaxWitnessBytes)
	}
	b, err := s.objects.GetBytes(ctx, witnessPrefix+name)
	if err != nil {
		return nil, fmt.Errorf("witness %s: %w", name, err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != name {
		return nil, fmt.Errorf("witness %s: its bytes have another SHA-256", name)
	}
	return b, nil
}

// putWitness stores a witness under its SHA-256 and returns its name. A
// witness stored already is stored again only when it has lived half its
// time (--retain), so that jobs reading it are rarely disturbed (a read
// then is tried again: Witness).
func (s *store) putWitness(ctx context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:])
	if s.witnessFresh(ctx, name, int64(len(data))) {
		return name, nil
	}
	if _, err := s.objects.PutBytes(ctx, witnessPrefix+name, data); err != nil {
		return "", fmt.Errorf("witness %s: %w", name, err)
	}
	return name, nil
}

// witnessFresh reports whether witness name, of size bytes, is stored
// and has lived less than half its time: storing it again can wait.
func (s *store) witnessFresh(ctx context.Context, name string, size int64) bool {
	info, err := s.objects.GetInfo(ctx, witnessPrefix+name)
	return err == nil && !info.Deleted && info.Size == uint64(size) && (s.retain == 0 || time.Since(info.ModTime) < s.retain/2)
}

// circuitFile is a file of an AddCircuit: its object's name and where it
// is on the server's disk while it is checked.
type circuitFile struct{ name, path string }

// addCircuit registers c with its files: the files first, then the
// record, created once. A circuit added before with the same keys is a
// duplicate (the record that stands returned, nothing stored again); one
// with other keys is refused, leaving the record that stands and
// removing the files only this call stored.
func (s *store) addCircuit(ctx context.Context, c *Circuit, files []circuitFile) (*Circuit, bool, error) {
	if old, err := s.Circuit(ctx, c.ID); err == nil {
		return s.sameCircuit(old, c)
	} else if !errors.Is(err, errNoCircuit) {
		return nil, false, err
	}
	if n, err := s.countCircuits(ctx); err != nil {
		return nil, false, err
	} else if n >= MaxCircuits {
		return nil, false, fmt.Errorf("circuit %s: %w", c.ID, errTooManyCircuits)
	}
	stored := []string{}
	undo := func() {
		for _, name := range stored {
			_ = s.circuitFiles.Delete(context.Background(), name)
		}
	}
	for _, f := range files {
		if err := s.putFile(ctx, f); err != nil {
			undo()
			return nil, false, err
		}
		stored = append(stored, f.name)
	}
	b, err := json.Marshal(c)
	if err != nil {
		undo()
		return nil, false, err
	}
	_, err = s.circuits.Create(ctx, c.ID, b)
	if err == nil {
		return c, false, nil
	}
	old, gerr := s.Circuit(ctx, c.ID)
	if !isKeyExists(err) || gerr != nil {
		undo()
		return nil, false, fmt.Errorf("circuit %s: %w", c.ID, err)
	}
	// Added meanwhile: the files it names stay.
	stored = stored[:0]
	for _, f := range files {
		if f.name != old.CCS && f.name != old.PK && f.name != old.VK {
			stored = append(stored, f.name)
		}
	}
	undo()
	return s.sameCircuit(old, c)
}

// errTooManyCircuits refuses an AddCircuit past MaxCircuits.
var errTooManyCircuits = fmt.Errorf("%d circuits added already, the limit: remove one (prooflane circuits rm)", MaxCircuits)

// errOtherKeys refuses adding a circuit again with other keys.
var errOtherKeys = errors.New("added already with other keys")

// sameCircuit is the answer to adding c when old stands: a duplicate
// when their keys are the same, else errOtherKeys.
func (s *store) sameCircuit(old, c *Circuit) (*Circuit, bool, error) {
	if old.keys() == c.keys() {
		return old, true, nil
	}
	have, want := "keys the workers set up", "keys of your own"
	if old.PK != "" {
		have, want = "keys of its own", "other keys"
		if c.PK == "" {
			want = "none"
		}
	}
	return nil, false, fmt.Errorf("circuit %s: %w (%s, this time %s): remove it first (prooflane circuits rm %s)", c.ID, errOtherKeys, have, want, c.ID)
}

// putFile streams f's file into the circuit object store.
func (s *store) putFile(ctx context.Context, f circuitFile) error {
	r, err := os.Open(f.path)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := s.circuitFiles.Put(ctx, jetstream.ObjectMeta{Name: f.name}, r); err != nil {
		return fmt.Errorf("store %s: %w", f.name, err)
	}
	return nil
}

// countCircuits counts the added circuits.
func (s *store) countCircuits(ctx context.Context) (int, error) {
	keys, err := s.circuitKeys(ctx)
	return len(keys), err
}

func (s *store) circuitKeys(ctx context.Context) ([]string, error) {
	lister, err := s.circuits.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	return keys, nil
}

// listCircuits returns the added circuits, sorted by id.
func (s *store) listCircuits(ctx context.Context) ([]*Circuit, error) {
	keys, err := s.circuitKeys(ctx)
	if err != nil {
		return nil, err
	}
	sort.Strings(keys)
	var out []*Circuit
	for _, k := range keys {
		c, err := s.Circuit(ctx, k)
		if errors.Is(err, errNoCircuit) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// removeCircuit removes circuit id's record, then its files.
func (s *store) removeCircuit(ctx context.Context, id string) (*Circuit, error) {
	c, err := s.Circuit(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.circuits.Purge(ctx, id); err != nil {
		return nil, fmt.Errorf("circuit %s: %w", id, err)
	}
	for _, name := range []string{c.CCS, c.PK, c.VK} {
		if name != "" {
			if err := s.circuitFiles.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
				return nil, fmt.Errorf("circuit %s: file %s: %w", id, name, err)
			}
		}
	}
	return c, nil
}

// fileName is the object name of a circuit file of kind ("ccs", "pk",
// "vk") at path: the kind and the file's SHA-256.
func fileName(kind, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return kind + "." + hex.EncodeToString(h.Sum(nil)), nil
}

// circuitDir is where a runner keeps an added circuit's files, in its key
// cache directory: the circuit's id, and under it its own keys' (named by
// their objects).
func circuitDir(keysDir, id string) string { return filepath.Join(keysDir, id) }
