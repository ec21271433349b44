// Command sizedcircuit writes the files of a user circuit of a chosen
// size: its constraint system and witnesses, as gnark writes them. It is
// a circuit prooflane does not ship, for timing `prooflane prove --ccs`
// beside `prooflane serve` at a realistic size (scripts/serve-bench.sh);
// examples/owncircuit is the one to read first.
//
//	go run ./examples/sizedcircuit [-system groth16|plonk] [-log 20] [-witnesses 10] DIR
//
// writes DIR/circuit.ccs and DIR/witness-0.bin ... (gnark's WriteTo and
// the witness's MarshalBinary). The circuit proves knowledge of a secret
// X whose image under rounds of v -> v² + round is the public Y:
// about 2^log constraints (a round is one R1CS constraint, two
// SparseR1CS gates). Keys are prooflane's to make
// (`prooflane setup --ccs DIR/circuit.ccs`).
package main

import (
	"flag"
	"fmt"
	"log"
	"math/big"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/frontend/cs/scs"
	"github.com/consensys/gnark/logger"
)

// Squares is the circuit: Y = f_n(...f_1(X)), f_i(v) = v² + i.
type Squares struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`

	rounds int
}

func (c *Squares) Define(api frontend.API) error {
	v := c.X
	for i := 1; i <= c.rounds; i++ {
		v = api.Add(api.Mul(v, v), i)
	}
	api.AssertIsEqual(v, c.Y)
	return nil
}

// image is Squares' Y for x, computed outside the circuit.
func image(x *big.Int, rounds int, r *big.Int) *big.Int {
	v := new(big.Int).Set(x)
	for i := 1; i <= rounds; i++ {
		v.Mul(v, v).Add(v, big.NewInt(int64(i))).Mod(v, r)
	}
	return v
}

func main() {
	system := flag.String("system", "groth16", "proof system: groth16 (an R1CS) or plonk (a SparseR1CS)")
	logSize := flag.Int("log", 20, "about 2^log constraints")
	witnesses := flag.Int("witnesses", 10, "how many witnesses to write")
	flag.Parse()
	logger.Disable()
	if flag.NArg() != 1 {
		log.Fatal("usage: sizedcircuit [-system groth16|plonk] [-log 20] [-witnesses 10] DIR")
	}
	if *logSize < 2 || *logSize > 28 {
		log.Fatalf("-log %d: want 2 to 28", *logSize)
	}
	if *witnesses < 1 {
		log.Fatalf("-witnesses %d: want at least 1", *witnesses)
	}
	if err := write(*system, 1<<*logSize, *witnesses, flag.Arg(0)); err != nil {
		log.Fatal(err)
	}
}

// write compiles Squares of about size constraints for system and writes
// it and count witnesses into dir.
func write(system string, size, count int, dir string) error {
	var builder frontend.NewBuilder
	switch system {
	case "groth16":
		builder = r1cs.NewBuilder
	case "plonk":
		builder = scs.NewBuilder
	default:
		return fmt.Errorf("-system %q: want groth16 or plonk", system)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rounds := max(size-2, 1)
	if system == "plonk" {
		rounds = max(size/2-1, 1) // a SparseR1CS takes a gate for v² and one for + round
	}
	field := ecc.BLS12_381.ScalarField()
	ccs, err := frontend.Compile(field, builder, &Squares{rounds: rounds})
	if err != nil {
		return err
	}
	if err := writeCCS(filepath.Join(dir, "circuit.ccs"), ccs); err != nil {
		return err
	}
	for i := range count {
		x := big.NewInt(int64(1000 + i))
		w, err := frontend.NewWitness(&Squares{X: x, Y: image(x, rounds, field)}, field)
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
	fmt.Printf("%s: circuit.ccs (%d constraints), witness-0.bin to witness-%d.bin\n", system, ccs.GetNbConstraints(), count-1)
	return nil
}

func writeCCS(path string, ccs constraint.ConstraintSystem) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := ccs.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
