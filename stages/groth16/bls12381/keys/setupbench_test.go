package keys

import (
	"context"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/workloads"
)

// BenchmarkSetupCompileAndWrite weighs the two parts of a setup that are
// not the key computation (docs/scale.md): gnark's frontend compiling
// chain (compile is Compile's; unsized is without frontend.WithCapacity,
// as before Compile sized it; capacity-size is sized for size
// constraints, as Compile did until twice the size kept chain's levels
// from growing) against reading and checking the .r1cs as a setup that
// reuses it does, and writing the .r1cs and a .pk of chain's shape
// through the cache's writer (temporary name, checksum, fsync, rename;
// the .pk encoded on every core, encode-pk-gnark is gnark's WriteRawTo,
// one point after the other). The .pk's points are the generators (the
// raw encoding's cost does not depend on the values); its lengths are
// those of chain's key at the size.
//
//	go test -run '^$' -bench BenchmarkSetupCompileAndWrite -benchtime 1x -cpuprofile /tmp/setup.prof ./stages/groth16/keys/
func BenchmarkSetupCompileAndWrite(b *testing.B) {
	for _, log2 := range []int{20, 22} {
		size := 1 << log2
		for _, v := range []struct {
			name string
			opts []frontend.CompileOption
		}{
			{"unsized", nil},
			{"capacity-size", []frontend.CompileOption{frontend.WithCapacity(size)}},
		} {
			b.Run(fmt.Sprintf("2^%d/compile-%s", log2, v.name), func(b *testing.B) {
				inst, err := workloads.New(ecc.BLS12_381, "chain", size)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := CompileCircuit("chain", inst.Circuit(), v.opts...); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("2^%d/compile", log2), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Compile("chain", size); err != nil {
					b.Fatal(err)
				}
			}
		})
		sys, _, err := Compile("chain", size)
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		c := Cache{Dir: dir}
		rp, _, _ := c.Paths("chain", size)
		b.Run(fmt.Sprintf("2^%d/write-r1cs", log2), func(b *testing.B) {
			for b.Loop() {
				if err := writeFile(rp, sys.WriteTo); err != nil {
					b.Fatal(err)
				}
			}
			st, _ := os.Stat(rp)
			b.SetBytes(st.Size())
		})
		wires := sys.GetNbInternalVariables() + sys.GetNbPublicVariables() + sys.GetNbSecretVariables()
		sys = nil
		// what a setup that reuses the .r1cs runs instead of the compile
		// (reusable: the shared lock, the checksum pass, gnark's decoding
		// and the checks); the read's MB/s from the file's size
		b.Run(fmt.Sprintf("2^%d/read-r1cs", log2), func(b *testing.B) {
			st, err := os.Stat(rp)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			for b.Loop() {
				if c.reusable(b.Context(), "chain", size, io.Discard) == nil {
					b.Fatal("the .r1cs is not reusable")
				}
			}
		})
		pk := shapedProvingKey(size, wires)
		b.Run(fmt.Sprintf("2^%d/write-pk", log2), func(b *testing.B) {
			for b.Loop() {
				if err := writeFile(filepath.Join(dir, "k.pk"), pk.WriteRawTo); err != nil {
					b.Fatal(err)
				}
			}
			st, _ := os.Stat(filepath.Join(dir, "k.pk"))
			b.SetBytes(st.Size())
		})
		b.Run(fmt.Sprintf("2^%d/encode-pk-gnark", log2), func(b *testing.B) {
			for b.Loop() {
				if _, err := pk.WriteRawTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("2^%d/encode-pk", log2), func(b *testing.B) {
			for b.Loop() {
				if _, err := writeProvingKey(io.Discard, pk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// shapedProvingKey is a proving key with chain's lengths at n constraints
// and wires wires, every point a generator.
func shapedProvingKey(n, wires int) *g16.ProvingKey {
	_, _, g1, g2 := curve.Generators()
	pts := func(k int) []curve.G1Affine {
		s := make([]curve.G1Affine, k)
		for i := range s {
			s[i] = g1
		}
		return s
	}
	pk := new(g16.ProvingKey)
	pk.Domain.Cardinality = uint64(n)
	pk.G1.A, pk.G1.B, pk.G1.Z, pk.G1.K = pts(wires), pts(wires), pts(n), pts(wires)
	pk.G2.B = make([]curve.G2Affine, wires)
	for i := range pk.G2.B {
		pk.G2.B[i] = g2
	}
	pk.InfinityA, pk.InfinityB = make([]bool, wires), make([]bool, wires)
	return pk
}

// BenchmarkSetupReusingTheR1CS is `prooflane setup --force` of chain
// (Cache.Setup: prooflane's setup, the bases on the CPU backend's device,
// the files written and synced) at 2^18 with the circuit compiled (its
// .r1cs removed first) and with the cached .r1cs used instead, side by
// side, reporting the compile's or the .r1cs read's seconds and the key
// computation's (QAP, G1, G2) (docs/scale.md; the step that changes,
// alone at 2^20 and 2^22, is BenchmarkSetupCompileAndWrite's compile and
// read-r1cs).
//
//	go test -run '^$' -bench BenchmarkSetupReusingTheR1CS -benchtime 3x ./stages/groth16/keys/
func BenchmarkSetupReusingTheR1CS(b *testing.B) {
	be, err := cpu.New(1)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	const setupAt = 18
	c := Cache{Dir: b.TempDir()}
	rp, _, _ := c.Paths("chain", 1<<setupAt)
	for _, mode := range []string{"compile", "cached-r1cs"} {
		b.Run(fmt.Sprintf("2^%d/setup-%s", setupAt, mode), func(b *testing.B) {
			var compile, read, keys time.Duration
			n := 0
			for b.Loop() {
				if mode == "compile" {
					b.StopTimer()
					if err := os.Remove(rp); err != nil && !os.IsNotExist(err) {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				_, ph, err := c.Setup(context.Background(), "chain", 1<<setupAt, be, io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				if ph.Cached != (mode == "cached-r1cs") {
					b.Fatalf("%s: phases %v", mode, ph)
				}
				compile, read, keys = compile+ph.Compile, read+ph.Read, keys+ph.QAP+ph.G1+ph.G2
				n++
			}
			per := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
			b.ReportMetric(per(compile), "compile-s/op")
			b.ReportMetric(per(read), "r1cs-read-s/op")
			b.ReportMetric(per(keys), "keys-s/op")
		})
	}
}
