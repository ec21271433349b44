// Command owncircuit writes the files prooflane proves a user's own
// circuit from: the circuit compiled with gnark (its constraint system),
// keys from gnark's own setup, and three witnesses.
//
//	go run ./examples/owncircuit [-system groth16|plonk] DIR
//
// writes DIR/circuit.ccs, DIR/pk.bin, DIR/vk.bin and DIR/witness-0.bin to
// DIR/witness-2.bin, each in gnark's own encoding (WriteTo, and the
// witness's MarshalBinary).
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/plonk"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
	"github.com/consensys/gnark/logger"
	"github.com/consensys/gnark/test/unsafekzg"
)

// Pythagoras proves knowledge of two secret legs A and B of a right
// triangle whose hypotenuse C is public: A² + B² = C².
type Pythagoras struct {
	A, B frontend.Variable
	C    frontend.Variable `gnark:",public"`
}

func (p *Pythagoras) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(api.Mul(p.A, p.A), api.Mul(p.B, p.B)), api.Mul(p.C, p.C))
	return nil
}

// triangles are the assignments the witnesses hold.
var triangles = []*Pythagoras{
	{A: 3, B: 4, C: 5},
	{A: 5, B: 12, C: 13},
	{A: 8, B: 15, C: 17},
}

func main() {
	system := flag.String("system", "groth16", "proof system: groth16 (an R1CS) or plonk (a SparseR1CS)")
	flag.Parse()
	logger.Disable() // gnark's own progress lines
	if flag.NArg() != 1 {
		log.Fatal("usage: owncircuit [-system groth16|plonk] DIR")
	}
	if err := write(*system, flag.Arg(0)); err != nil {
		log.Fatal(err)
	}
}

// write compiles the circuit for system, sets up its keys with gnark and
// writes them, the constraint system and the witnesses into dir.
func write(system, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	field := ecc.BLS12_381.ScalarField()
	var ccs constraint.ConstraintSystem
	var pk, vk io.WriterTo
	var err error
	switch system {
	case "groth16":
		if ccs, err = frontend.Compile(field, r1cs.NewBuilder, &Pythagoras{}); err != nil {
			return err
		}
		pk, vk, err = groth16.Setup(ccs)
	case "plonk":
		if ccs, err = frontend.Compile(field, scs.NewBuilder, &Pythagoras{}); err != nil {
			return err
		}
		// A test SRS: a real deployment takes one from a ceremony.
		srs, lagrange, serr := unsafekzg.NewSRS(ccs)
		if serr != nil {
			return serr
		}
		pk, vk, err = plonk.Setup(ccs, srs, lagrange)
	default:
		return fmt.Errorf("-system %q: want groth16 or plonk", system)
	}
	if err != nil {
		return err
	}
	for name, w := range map[string]io.WriterTo{"circuit.ccs": ccs, "pk.bin": pk, "vk.bin": vk} {
		if err := writeFile(filepath.Join(dir, name), w.WriteTo); err != nil {
			return err
		}
	}
	for i, t := range triangles {
		w, err := frontend.NewWitness(t, field)
		if err != nil {
			return err
		}
		data, err := w.MarshalBinary()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("witness-%d.bin", i)), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%s: circuit.ccs (%d constraints), pk.bin, vk.bin, witness-0.bin to witness-%d.bin\n", system, ccs.GetNbConstraints(), len(triangles)-1)
	return nil
}

// writeFile writes what write writes into a new file at path.
func writeFile(path string, write func(io.Writer) (int64, error)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
