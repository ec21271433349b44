package family_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/prooflane/prooflane/stages/family"
)

type cubic struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *cubic) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(api.Mul(c.X, c.X, c.X), c.X, 5), c.Y)
	return nil
}

// A witness file is read when it is a full witness of the system's input
// counts, and refused naming its index otherwise: truncated, padded,
// another circuit's counts, a public witness, not a witness at all.
func TestReadWitnessRefusesWhatIsNotAFullWitnessOfTheSystem(t *testing.T) {
	field := ecc.BLS12_381.ScalarField()
	w, err := frontend.NewWitness(&cubic{X: 3, Y: 35}, field)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := w.MarshalBinary()
	pub, _ := w.Public()
	public, _ := pub.MarshalBinary()
	in := family.Inputs{Public: 1, Secret: 1}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := family.ReadWitness(context.Background(), write("ok.wtns", full), 0, field, in); err != nil {
		t.Fatalf("a full witness: %v", err)
	}
	bigCount := append([]byte(nil), full...)
	binary.BigEndian.PutUint32(bigCount[8:], 1<<30)
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"truncated": {full[:len(full)-1], "truncated or padded"},
		"padded":    {append(append([]byte(nil), full...), 0), "truncated or padded"},
		"public":    {public, "0 secret inputs"},
		"header":    {full[:5], "shorter than a witness's header"},
		"count":     {bigCount, "declares 1 public and 1 secret inputs but 1073741824 values"},
	} {
		_, err := family.ReadWitness(context.Background(), write(name, c.b), 3, field, in)
		if err == nil || !strings.Contains(err.Error(), "witness 3 ("+filepath.Join(dir, name)+")") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it to name witness 3, its file and %q", name, err, c.want)
		}
	}
	if _, err := family.ReadWitness(context.Background(), write("other", full), 0, field, family.Inputs{Public: 2, Secret: 1}); err == nil || !strings.Contains(err.Error(), "a witness of another circuit") {
		t.Errorf("another circuit's counts: %v", err)
	}
}

// A compiled system is named by its content: the same system the same
// name, another system another; its size is its constraint count.
func TestCompiledSystemIsNamedByItsContent(t *testing.T) {
	compile := func(c frontend.Circuit) family.System {
		ccs, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, c)
		if err != nil {
			t.Fatal(err)
		}
		sys, err := family.CompiledSystem(ccs)
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	a, b := compile(&cubic{}), compile(&cubic{})
	if a.Name != b.Name || !family.IsCompiled(a.Name) || a.Size != a.CCS.GetNbConstraints() || len(a.Name) != len("circuit-")+16 {
		t.Errorf("%v and %v", a, b)
	}
	if other := compile(&squares{}); other.Name == a.Name {
		t.Errorf("two systems named %s", a.Name)
	}
	if family.IsCompiled("chain") {
		t.Error("a built-in circuit's name taken for a compiled system's")
	}
}

type squares struct{ X, Y frontend.Variable }

func (c *squares) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.X, c.X), c.Y)
	return nil
}
