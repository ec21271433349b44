//go:build cuda

package main

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/cuda"
	"github.com/prooflane/prooflane/internal/ref"
)

// leInt reads b as a little-endian integer.
func leInt(b []byte) *big.Int {
	be := slices.Clone(b)
	slices.Reverse(be)
	return new(big.Int).SetBytes(be)
}

func TestCanonicalBytesAreLittleEndianPlainIntegers(t *testing.T) {
	var rm1, x fr.Element
	rm1.SetOne()
	rm1.Neg(&rm1)
	x.SetRandom()
	sc := []fr.Element{{}, fr.One(), rm1, x}
	raw := canonicalBytes(sc)
	if len(raw) != 32*len(sc) {
		t.Fatalf("%d bytes for %d scalars", len(raw), len(sc))
	}
	for i := range sc {
		var want big.Int
		sc[i].BigInt(&want)
		if got := leInt(raw[32*i : 32*i+32]); got.Cmp(&want) != 0 {
			t.Errorf("scalar %d: bytes read %v, want %v", i, got, &want)
		}
	}
}

func TestRawBytesIsElementMemory(t *testing.T) {
	one := fr.One()
	raw := rawBytes([]fr.Element{one})
	var want big.Int // Montgomery form: 2^256 mod r
	want.Lsh(big.NewInt(1), 256).Mod(&want, fr.Modulus())
	if len(raw) != 32 || leInt(raw).Cmp(&want) != 0 {
		t.Errorf("one as memory: %x, want 2^256 mod r (%x) little-endian", raw, &want)
	}

	_, _, g1, g2 := curve.Generators()
	p1 := rawBytes([]curve.G1Affine{g1, {}})
	if len(p1) != 2*96 {
		t.Fatalf("%d bytes for 2 G1 points, want 192", len(p1))
	}
	var xm big.Int // X in Montgomery form
	g1.X.BigInt(&xm)
	xm.Lsh(&xm, 384).Mod(&xm, curve.ID.BaseField())
	if got := leInt(p1[:48]); got.Cmp(&xm) != 0 {
		t.Errorf("G1 X as memory reads %x, want %x", got, &xm)
	}
	if !bytes.Equal(p1[96:], make([]byte, 96)) {
		t.Errorf("G1 infinity as memory is %x, want all zero", p1[96:])
	}
	if p2 := rawBytes([]curve.G2Affine{g2, {}}); len(p2) != 2*192 || !bytes.Equal(p2[192:], make([]byte, 192)) {
		t.Errorf("G2: %d bytes for 2 points (want 384), infinity %x (want all zero)", len(p2), p2[192:])
	}
	if rawBytes([]fr.Element(nil)) != nil {
		t.Error("rawBytes of an empty slice is not nil")
	}
}

func TestOmegaLineIsTheDomainGeneratorOfOrderN(t *testing.T) {
	for _, l := range []int{1, 10, 24} {
		dom := fft.NewDomain(1<<l, fft.WithoutPrecompute())
		line := omegaLine(dom.Cardinality, dom.Generator.Bytes())
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "omega" || f[1] != fmt.Sprint(1<<l) || len(f[2]) != 64 {
			t.Fatalf("2^%d: line %q, want `omega %d <64 hex digits>`", l, line, 1<<l)
		}
		w, ok := new(big.Int).SetString(f[2], 16)
		if !ok {
			t.Fatalf("2^%d: %q is not hex", l, f[2])
		}
		var g big.Int
		dom.Generator.BigInt(&g)
		if w.Cmp(&g) != 0 {
			t.Fatalf("2^%d: line says %x, domain generator %x", l, w, &g)
		}
		r := fr.Modulus()
		n := big.NewInt(1 << l)
		half := big.NewInt(1 << (l - 1))
		if new(big.Int).Exp(w, n, r).Cmp(big.NewInt(1)) != 0 || new(big.Int).Exp(w, half, r).Cmp(big.NewInt(1)) == 0 {
			t.Errorf("2^%d: %x is not of order 2^%d", l, w, l)
		}
	}
}

func TestWriteWholeLeavesOnlyTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g1-4.points")
	for _, b := range [][]byte{[]byte("first, longer"), []byte("second")} {
		if err := writeWhole(path, b); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("read back %q (%v), want %q", got, err, b)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries in the folder, want the file alone", len(ents))
	}
	missing := filepath.Join(dir, "no-such-folder", "x")
	if err := writeWhole(missing, nil); err == nil {
		t.Errorf("writing into a missing folder did not fail")
	}
}

// TestDumpReadsBackInSpparkBench writes a small dump as -dump does, of
// each curve, with gnark-crypto's results computed on the host (MSMs
// term by term, the NTT by Domain.FFT), and, when SPPARK_BENCH (the
// BLS12-381 harness) or SPPARK_BENCH_BN254 names the harness that
// scripts/sppark-build.sh builds for the curve, runs its host self-test
// on it: every point on the curve and each MSM's result as sppark's host
// types read the files, each NTT order's expected output a direct
// transform with sppark's roots of unity. No GPU is needed.
func TestDumpReadsBackInSpparkBench(t *testing.T) {
	t.Run("bls12-381", func(t *testing.T) { testDump(t, bls12381Bench, cuda.BLS12381, "SPPARK_BENCH") })
	t.Run("bn254", func(t *testing.T) { testDump(t, bn254Bench, cuda.BN254, "SPPARK_BENCH_BN254") })
}

// hostJac is what the dump's references need of gnark-crypto's
// Jacobian points.
type hostJac[J, A any] interface {
	*J
	FromAffine(*A) *J
	AddMixed(*A) *J
	ScalarMultiplication(*J, *big.Int) *J
	AddAssign(*J) *J
}

type bigScalar[F any] interface {
	scalar[F]
	BigInt(*big.Int) *big.Int
	Neg(*F) *F
}

// msmDump writes gN-L's files for the sizes logs of a group, the scalars
// with the edges (0, -1, an infinity point), and returns their result
// lines, the MSMs computed term by term.
func msmDump[F ~[4]uint64, A, J any, PF bigScalar[F], PA interface{ *A }, PJ hostJac[J, A]](t *testing.T, dir string, r *rand.Rand, rg ref.Group[F, A, J], group string, xy func(*J) (x, y []byte), sizes []int) []string {
	var lines []string
	for _, l := range sizes {
		n := 1 << l
		pts, sc := ref.Points[F, PF, A, J, PJ](r, rg, n, 0), ref.Scalars[F, PF](r, n)
		if n > 2 {
			pts[1] = *new(A) // infinity
			PF(&sc[2]).SetZero()
			PF(&sc[3]).SetOne()
			PF(&sc[3]).Neg(&sc[3])
		}
		var want, term J
		PJ(&want).FromAffine(new(A))
		for i := range pts {
			var p J
			PJ(&p).FromAffine(&pts[i])
			PJ(&want).AddAssign(PJ(&term).ScalarMultiplication(&p, PF(&sc[i]).BigInt(new(big.Int))))
		}
		if err := writeMSMDump[F, PF](dir, group, l, rawBytes(pts), sc); err != nil {
			t.Fatal(err)
		}
		x, y := xy(&want)
		lines = append(lines, resultLine(group, n, x, y))
	}
	return lines
}

func testDump[F ~[4]uint64, D, A1, J1, A2, J2 any, PF bigScalar[F], PJ1 hostJac[J1, A1], PJ2 hostJac[J2, A2]](t *testing.T, c bench[F, D, A1, J1, A2, J2], crv cuda.Curve, env string) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	lines := []string{curveLine(crv)}
	lines = append(lines, msmDump[F, A1, J1, PF, *A1, PJ1](t, dir, r, c.rg1, "g1", c.xy1, []int{0, 4, 9})...)
	lines = append(lines, msmDump[F, A2, J2, PF, *A2, PJ2](t, dir, r, c.rg2, "g2", c.xy2, []int{0, 3, 6})...)
	rows := 6
	for _, l := range []int{1, 4, 10} {
		dom := c.newDomain(1 << l)
		x := ref.Scalars[F, PF](r, 1<<l)
		y := c.fft.Transform(x, dom, false, true, false)
		if err := writeNTTDump(dir, l, x, y); err != nil {
			t.Fatal(err)
		}
		w := c.omega(dom)
		lines = append(lines, omegaLine(1<<l, PF(&w).Bytes()))
		rows += 4 // sppark-bench checks four orders
	}
	results := filepath.Join(dir, "results.txt")
	if err := writeWhole(results, []byte(strings.Join(lines, "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	g2Bytes := int64(c.g2.PointBytes())
	if st, err := os.Stat(filepath.Join(dir, "g2-6.points")); err != nil || st.Size() != 64*g2Bytes {
		t.Fatalf("g2-6.points: %v, %v; want 64*%d bytes", st, err, g2Bytes)
	}

	bin := os.Getenv(env)
	if bin == "" {
		t.Skipf("%s does not name the %s sppark harness (scripts/sppark-build.sh builds it)", env, crv)
	}
	out, err := exec.Command(bin, "--selftest", dir, results).CombinedOutput()
	t.Logf("%s --selftest:\n%s", bin, out)
	if err != nil {
		t.Fatalf("%s --selftest: %v", bin, err)
	}
	if got := strings.Count(string(out), "| MATCH |"); got != rows {
		t.Errorf("%d rows MATCH, want %d", got, rows)
	}

	// results of the other curve: the harness refuses the dump
	other := cuda.BN254
	if crv == cuda.BN254 {
		other = cuda.BLS12381
	}
	wrong := filepath.Join(dir, "other-curve.txt")
	if err := writeWhole(wrong, []byte(strings.Join(append([]string{curveLine(other)}, lines[1:]...), "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--selftest", dir, wrong).CombinedOutput(); err == nil || !strings.Contains(string(out), "this harness is "+crv.String()) {
		t.Errorf("%s --selftest on results of %s: %v, %s; want a refusal naming both curves", bin, other, err, out)
	}

	// The checks bite: a scalar off by one, an NTT output element changed
	// (all four orders' expectations come from it) and a G2 point off the
	// curve are six rows that do not match.
	flip := func(name string, at int) {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[at] ^= 1
		if err := writeWhole(path, b); err != nil {
			t.Fatal(err)
		}
	}
	flip("g1-4.scalars", 0)
	flip("ntt-4.out", 5*32)
	flip("g2-3.points", int(2*g2Bytes+g2Bytes/2))
	out, err = exec.Command(bin, "--selftest", dir, results).CombinedOutput()
	t.Logf("after the changes:\n%s", out)
	if err == nil {
		t.Errorf("%s --selftest exited 0 on changed inputs", bin)
	}
	if got := strings.Count(string(out), "| MISMATCH |"); got != 6 {
		t.Errorf("%d rows MISMATCH, want 6", got)
	}
}
