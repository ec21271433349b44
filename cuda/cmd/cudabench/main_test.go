//go:build cuda

package main

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
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
		f := strings.Fields(omegaLine(dom))
		if len(f) != 3 || f[0] != "omega" || f[1] != fmt.Sprint(1<<l) || len(f[2]) != 64 {
			t.Fatalf("2^%d: line %q, want `omega %d <64 hex digits>`", l, omegaLine(dom), 1<<l)
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
