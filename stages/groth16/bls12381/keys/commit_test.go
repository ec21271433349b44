package keys

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/lookup/logderivlookup"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/internal/ccsfile"
	"github.com/prooflane/prooflane/workloads"
)

// twoCommits commits twice (api.Commit), the second time to the first
// commitment, a public input and a product.
type twoCommits struct {
	X, Y frontend.Variable
	Z    frontend.Variable `gnark:",public"`
}

func (c *twoCommits) Define(api frontend.API) error {
	committer := api.(frontend.Committer)
	c1, err := committer.Commit(c.X, c.Y)
	if err != nil {
		return err
	}
	c2, err := committer.Commit(c1, c.Z, api.Mul(c.X, c.Y))
	if err != nil {
		return err
	}
	api.AssertIsDifferent(c2, c1)
	api.AssertIsEqual(api.Mul(c.X, c.Y), c.Z)
	return nil
}

// lookups looks its queries up in a table of private entries
// (std/lookup/logderivlookup).
type lookups struct {
	Table   [8]frontend.Variable
	Queries [3]frontend.Variable
	Results [3]frontend.Variable `gnark:",public"`
}

func (c *lookups) Define(api frontend.API) error {
	t := logderivlookup.New(api)
	for _, e := range c.Table {
		t.Insert(e)
	}
	for i, r := range t.Lookup(c.Queries[:]...) {
		api.AssertIsEqual(r, c.Results[i])
	}
	return nil
}

func lookupsWitness(t testing.TB) witness.Witness {
	t.Helper()
	a := &lookups{}
	for i := range a.Table {
		a.Table[i] = 100 + i*i
	}
	for i, q := range []int{3, 0, 7} {
		a.Queries[i], a.Results[i] = q, 100+q*q
	}
	w, err := workloads.Witness(a)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// committingSystems are constraint systems with commitments: the
// emulated circuit (one commitment, std/rangecheck and
// std/math/emulated) and twoCommits.
func committingSystems(t testing.TB) map[string]*cs.R1CS {
	t.Helper()
	em, _, err := Compile("emulated", 1024)
	if err != nil {
		t.Fatal(err)
	}
	two, err := CompileCircuit("two-commits", &twoCommits{})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*cs.R1CS{"emulated": em, "two-commits": two}
}

// With commitments too, NewKeys makes gnark's keys byte for byte from the
// secrets gnark's Setup draws from the same random stream (its commitment
// keys' G2 point and σ included).
func TestCommittingKeysAreGnarksSetupByteForByte(t *testing.T) {
	for name, sys := range committingSystems(t) {
		t.Run(name, func(t *testing.T) {
			orig := rand.Reader
			defer func() { rand.Reader = orig }()
			rand.Reader = mrand.NewChaCha8([32]byte{3, 1, 4})
			sec, err := RandomSecrets(commitments(sys))
			if err != nil {
				t.Fatal(err)
			}
			rand.Reader = mrand.NewChaCha8([32]byte{3, 1, 4})
			var gpk g16.ProvingKey
			var gvk g16.VerifyingKey
			if err := g16.Setup(sys, &gpk, &gvk); err != nil {
				t.Fatal(err)
			}
			rand.Reader = orig
			pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(pk.CommitmentKeys) != commitments(sys) || commitments(sys) == 0 {
				t.Fatalf("%d commitment keys for %d commitments", len(pk.CommitmentKeys), commitments(sys))
			}
			wantPK, wantVK := encoded(t, &gpk, &gvk)
			gotPK, gotVK := encoded(t, pk, vk)
			if !bytes.Equal(gotPK, wantPK) {
				t.Errorf("proving key differs from gnark's (%d bytes, gnark's %d; first difference at %d)", len(gotPK), len(wantPK), firstDiff(gotPK, wantPK))
			}
			if !bytes.Equal(gotVK, wantVK) {
				t.Errorf("verifying key differs from gnark's (first difference at %d)", firstDiff(gotVK, wantVK))
			}
		})
	}
}

// A key with commitment keys is written as WriteRawTo writes it and read
// as UnsafeReadFrom reads it, across batch boundaries; gnark proves with
// it and verifies the proof.
func TestCommittingKeysAreWrittenAndReadAsGnarkDoes(t *testing.T) {
	defer func(r, w int) { readBatch, writeBatch = r, w }(readBatch, writeBatch)
	readBatch, writeBatch = 5, 3
	sys := committingSystems(t)["emulated"]
	sec, err := RandomSecrets(commitments(sys))
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := proveVerify(t, "emulated", 1024, sys, pk, vk); err != nil {
		t.Fatalf("a proof with keys from secrets: %v", err)
	}
	var want, got bytes.Buffer
	if _, err := pk.WriteRawTo(&want); err != nil {
		t.Fatal(err)
	}
	if n, err := writeProvingKey(&got, pk); err != nil || n != int64(got.Len()) {
		t.Fatalf("wrote %d bytes, said %d: %v", got.Len(), n, err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("the bytes differ from WriteRawTo's at %d", firstDiff(got.Bytes(), want.Bytes()))
	}
	var gnarks, ours g16.ProvingKey
	if _, err := gnarks.UnsafeReadFrom(bytes.NewReader(want.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := checkPKLengths(bytes.NewReader(want.Bytes()), int64(want.Len())); err != nil {
		t.Fatal(err)
	}
	if n, err := readProvingKey(bytes.NewReader(want.Bytes()), &ours); err != nil || n != int64(want.Len()) {
		t.Fatalf("read %d of %d bytes: %v", n, want.Len(), err)
	}
	if !reflect.DeepEqual(&ours, &gnarks) {
		t.Error("the key read differs from gnark's reading")
	}
}

// The setup a prove or bench runs (SetupOn, on the CPU backend) makes
// commitment keys; the cache saves and loads them; the loaded keys make
// proofs gnark verifies.
func TestACommittingCircuitsKeysAreSetUpCachedAndLoaded(t *testing.T) {
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	c := Cache{Dir: t.TempDir()}
	made, err := c.LoadOrSetupOn(context.Background(), "emulated", 1024, be, nil)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := c.Load(context.Background(), "emulated", 1024)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.PK.CommitmentKeys) != 1 || !reflect.DeepEqual(loaded.PK.CommitmentKeys, made.PK.CommitmentKeys) ||
		!reflect.DeepEqual(loaded.VK.CommitmentKeys, made.VK.CommitmentKeys) {
		t.Fatal("the commitment keys loaded are not the ones saved")
	}
	if err := proveVerify(t, "emulated", 1024, loaded.R1CS, loaded.PK, loaded.VK); err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.NewJob(2, 1); err != nil {
		t.Fatal(err)
	}
}

// A key cache written before commitment keys were read (testdata: chain,
// size 16) loads, its keys build a job, and gnark verifies their proofs.
func TestAKeyCacheWrittenBeforeCommitmentKeysStillLoads(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"chain-16.r1cs", "chain-16.pk", "chain-16.vk"} {
		b, err := os.ReadFile(filepath.Join("testdata", "prechange", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Cache{Dir: dir}.Load(context.Background(), "chain", 16)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.PK.CommitmentKeys) != 0 || len(s.VK.CommitmentKeys) != 0 {
		t.Fatalf("%d commitment keys", len(s.PK.CommitmentKeys))
	}
	if _, err := s.NewJob(2, 1); err != nil {
		t.Fatal(err)
	}
	if err := proveVerify(t, "chain", 16, s.R1CS, s.PK, s.VK); err != nil {
		t.Fatal(err)
	}
}

// A proving key file whose commitment count or commitment key lengths
// say more than its bytes hold is corrupt, named, before gnark or the
// reader allocates what they say.
func TestAProvingKeyWithBadCommitmentLengthsIsCorrupt(t *testing.T) {
	sys := committingSystems(t)["emulated"]
	sec, err := RandomSecrets(1)
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := Cache{Dir: t.TempDir()}
	if err := c.Save(&Set{Circuit: "emulated", Size: 1024, R1CS: sys, PK: pk, VK: vk}); err != nil {
		t.Fatal(err)
	}
	_, pp, _ := c.Paths("emulated", 1024)
	orig, err := os.ReadFile(pp)
	if err != nil {
		t.Fatal(err)
	}
	// The key's end: the commitment count, then the bases' count and
	// points and the bases·σ' count and points, then the trailer.
	n := len(pk.CommitmentKeys[0].Basis)
	end := len(orig) - trailerLen
	count := end - (4 + 2*(4+96*n))
	bases, sigma := count+4, count+4+4+96*n
	for _, e := range []struct {
		at   int
		v    uint32
		want string
	}{
		{count, 1 << 31, "commitment keys"},
		{count, 2, "commitment key 1's bases"},
		{bases, 1 << 30, "commitment key 0's bases"},
		{sigma, uint32(n + 1), "commitment key 0's bases·σ"},
	} {
		restore := rewrite(t, pp, func(f []byte) { binary.BigEndian.PutUint32(f[e.at:], e.v) })
		_, err := c.Load(context.Background(), "emulated", 1024)
		restore()
		if err == nil || !strings.Contains(err.Error(), "is corrupt") || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%d at byte %d: %v, want it corrupt, naming %q", e.v, e.at, err, e.want)
		}
	}
}

// A system with std/lookup/logderivlookup's lookups passes the checks a
// cached constraint system gets, through its file; one whose lookups
// read past their table, whose table names a wire past the system's or
// not yet solved when a lookup reads it, or whose table is cut short, is
// refused, naming it.
func TestLookupTablesAreCheckedLikeTheRest(t *testing.T) {
	compile := func() *cs.R1CS {
		sys, err := CompileCircuit("lookups", &lookups{})
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	sys := compile()
	var file bytes.Buffer
	if _, err := sys.WriteTo(&file); err != nil {
		t.Fatal(err)
	}
	if err := ccsfile.CheckLayout(bytes.NewReader(file.Bytes()), int64(file.Len())); err != nil {
		t.Fatal(err)
	}
	var read cs.R1CS
	if _, err := read.ReadFrom(bytes.NewReader(file.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := ccsfile.CheckSolvable(&read, ccsfile.R1CS); err != nil {
		t.Fatalf("a lookup circuit's system: %v", err)
	}
	if _, err := read.Solve(lookupsWitness(t)); err != nil {
		t.Fatal(err)
	}
	lookup := func(sys *cs.R1CS) (*constraint.BlueprintLookupHint[constraint.U64], []uint32) {
		for _, pi := range sys.Instructions {
			if b, ok := sys.Blueprints[pi.BlueprintID].(*constraint.BlueprintLookupHint[constraint.U64]); ok {
				return b, sys.CallData[pi.StartCallData:]
			}
		}
		t.Fatal("no lookup")
		return nil, nil
	}
	for _, c := range []struct {
		name string
		edit func(sys *cs.R1CS)
		want string
	}{
		{"a lookup past its table", func(sys *cs.R1CS) {
			_, cd := lookup(sys)
			cd[1] = 9
		}, "a lookup reading the first 9 entries of a table of 8"},
		{"an entry's wire past the system's", func(sys *cs.R1CS) {
			b, _ := lookup(sys)
			b.EntriesCalldata[2] = 1 << 30
		}, fmt.Sprintf("table entry 0: wire %d of", 1<<30)},
		{"an entry read before it is solved", func(sys *cs.R1CS) {
			b, _ := lookup(sys)
			for _, pi := range sys.Instructions {
				if sys.Blueprints[pi.BlueprintID] == constraint.Blueprint(b) {
					b.EntriesCalldata[2] = pi.WireOffset // the lookup's own output
				}
			}
		}, "which no earlier level solves"},
		{"a table cut short", func(sys *cs.R1CS) {
			b, _ := lookup(sys)
			b.EntriesCalldata = b.EntriesCalldata[:len(b.EntriesCalldata)-1]
		}, "ends past its calldata"},
	} {
		sys := compile()
		c.edit(sys)
		if err := ccsfile.CheckSolvable(sys, ccsfile.R1CS); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
