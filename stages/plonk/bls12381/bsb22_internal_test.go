package plonk

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/stages"
)

// checks range-checks Vals to 20 bits (std/rangecheck): a circuit whose
// one BSB22 commitment commits to a fraction of its rows.
type checks struct{ Vals []frontend.Variable }

func (c *checks) Define(api frontend.API) error {
	rc := rangecheck.New(api)
	for _, v := range c.Vals {
		rc.Check(v, 20)
	}
	return nil
}

// hintState returns the key of checks of m values and a partition's state
// whose hint is ready to run.
func hintState(tb testing.TB, m int) *State {
	tb.Helper()
	spr, err := CompileCircuit("checks", &checks{Vals: make([]frontend.Variable, m)})
	if err != nil {
		tb.Fatal(err)
	}
	k, err := UnsafeSetup(context.Background(), "checks", spr)
	if err != nil {
		tb.Fatal(err)
	}
	return &State{key: k, proof: &gplonk.Proof{Bsb22Commitments: make([]kzg.Digest, 1)},
		pi2: make([][]fr.Element, 1), bsb22Values: make([]fr.Element, 1)}
}

// hintInputs are the hint's inputs for commitment 0 of st's key: its index
// and a value for each committed row.
func hintInputs(st *State) []*big.Int {
	ins := []*big.Int{big.NewInt(0)}
	for i := range st.key.commitments[0].Committed {
		ins = append(ins, big.NewInt(int64(i*7+1)))
	}
	return ins
}

// The solver's hint commits to the committed polynomial as gnark does: its
// sparse MSM is kzg.Commit of the whole polynomial over the Lagrange SRS,
// the polynomial holds the values at the committed rows, and the output is
// the commitment's hash.
func TestBSB22HintCommitsAsKZGCommit(t *testing.T) {
	st := hintState(t, 40)
	ins := hintInputs(st)
	out := []*big.Int{new(big.Int)}
	if err := st.bsb22Hint(nil, ins, out); err != nil {
		t.Fatal(err)
	}
	k := st.key
	want, err := kzg.Commit(st.pi2[0], k.PK.KzgLagrange)
	if err != nil {
		t.Fatal(err)
	}
	if !want.Equal(&st.proof.Bsb22Commitments[0]) {
		t.Error("the hint's commitment is not kzg.Commit of its polynomial")
	}
	offset := len(k.SPR.Public)
	for j, row := range k.commitments[0].Committed {
		var v fr.Element
		v.SetBigInt(ins[1+j])
		if !st.pi2[0][offset+row].Equal(&v) {
			t.Fatalf("committed row %d holds %s, want %s", row, st.pi2[0][offset+row].String(), v.String())
		}
	}
	nonzero := 0
	for i := range st.pi2[0] {
		if !st.pi2[0][i].IsZero() {
			nonzero++
		}
	}
	if nonzero != len(k.bsb22Rows[0]) {
		t.Errorf("%d non-zero values, the sparse MSM takes %d rows", nonzero, len(k.bsb22Rows[0]))
	}
	if out[0].Cmp(st.bsb22Values[0].BigInt(new(big.Int))) != 0 || st.bsb22Values[0].IsZero() {
		t.Error("the hint's output is not the commitment's hash")
	}
	for _, bad := range [][]*big.Int{{big.NewInt(1)}, ins[:len(ins)-1]} {
		if err := st.bsb22Hint(nil, bad, out); err == nil {
			t.Errorf("inputs %d...: no error", bad[0])
		}
	}
}

// BenchmarkBSB22Commitment is the solver's commitment of std/rangecheck
// circuits: the hint's sparse MSM on the host against the dense MSM of n
// points the device contract would make (MSMG1 over the first n bases,
// here on the CPU backend), with n the domain.
//
//	go test -run '^$' -bench BenchmarkBSB22Commitment -benchtime 5x ./stages/plonk/
func BenchmarkBSB22Commitment(b *testing.B) {
	for _, m := range []int{1 << 10, 1 << 13} {
		st := hintState(b, m)
		ins := hintInputs(st)
		name := fmt.Sprintf("n=%d/rows=%d", st.key.n, len(st.key.bsb22Rows[0]))
		b.Run(name+"/host-sparse", func(b *testing.B) {
			out := []*big.Int{new(big.Int)}
			for range b.N {
				if err := st.bsb22Hint(nil, ins, out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/device-dense", func(b *testing.B) {
			be, err := cpu.New(1)
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			s := &onDevice{typ: "bench", be: be}
			in := stages.NewInput(nil)
			in.Device, in.Stage = 0, "bench"
			out := []*big.Int{new(big.Int)}
			if err := st.bsb22Hint(nil, ins, out); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				err := s.run(in, func(w *work) error {
					bases, err := w.bases(st.key, true)
					if err != nil {
						return err
					}
					_, err = w.commit(context.Background(), bases, st.pi2[0], "pi2")
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
