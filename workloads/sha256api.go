package workloads

import (
	"math/bits"

	"github.com/consensys/gnark/frontend"
)

// The sha256 chain over gnark's frontend.API, as first written: the
// PLONK builder compiles it, and it is the reference the R1CS gadget
// (sha256.go) is checked against constraint for constraint.

// apiWord is a 32-bit word as bits, least significant first; a bit is a
// variable constrained to {0,1} or a constant 0 or 1.
type apiWord [32]frontend.Variable

func apiConstWord(x uint32) apiWord {
	var w apiWord
	for i := range w {
		w[i] = (x >> i) & 1
	}
	return w
}

// defineAPI is the circuit written over gnark's frontend.API: what
// Define writes for any builder but R1CS's, and the constraints the R1CS
// gadget must reproduce (TestTheR1CSGadgetWritesTheAPICircuit).
func (c *sha256Circuit) defineAPI(api frontend.API) error {
	g := apiGadget{api}
	var h [8]apiWord
	for i := range h {
		h[i] = g.toWord(c.In[i], 32)
	}
	for rounds := c.rounds; rounds > 0; {
		n := min(rounds, 64)
		h = g.compress(h, n)
		rounds -= n
	}
	for i := range h {
		api.AssertIsEqual(g.fromWord(h[i]), c.Out[i])
	}
	return nil
}

type apiGadget struct{ api frontend.API }

// toWord decomposes x (less than 2^nbits) and keeps the low 32 bits.
func (g apiGadget) toWord(x frontend.Variable, nbits int) apiWord {
	b := g.api.ToBinary(x, nbits)
	var w apiWord
	copy(w[:], b[:32])
	return w
}

func (g apiGadget) fromWord(w apiWord) frontend.Variable {
	terms := make([]frontend.Variable, 0, 32)
	for i := range w {
		terms = append(terms, g.api.Mul(w[i], uint64(1)<<i))
	}
	return g.api.Add(terms[0], terms[1], terms[2:]...)
}

// add returns the sum of words and a constant, mod 2^32.
func (g apiGadget) add(k uint32, ws ...apiWord) apiWord {
	sum := g.api.Add(k, 0)
	for _, w := range ws {
		sum = g.api.Add(sum, g.fromWord(w))
	}
	return g.toWord(sum, 32+bits.Len(uint(len(ws))))
}

func (g apiGadget) xor(a, b frontend.Variable) frontend.Variable {
	return g.api.Sub(g.api.Add(a, b), g.api.Mul(2, g.api.Mul(a, b)))
}

func (g apiGadget) xor3(x, y, z apiWord) apiWord {
	var r apiWord
	for i := range r {
		r[i] = g.xor(g.xor(x[i], y[i]), z[i])
	}
	return r
}

func (g apiGadget) ch(e, f, h apiWord) apiWord {
	var r apiWord
	for i := range r {
		r[i] = g.api.Add(h[i], g.api.Mul(e[i], g.api.Sub(f[i], h[i])))
	}
	return r
}

func (g apiGadget) maj(a, b, c apiWord) apiWord {
	var r apiWord
	for i := range r {
		ab := g.api.Mul(a[i], b[i])
		axb := g.api.Sub(g.api.Add(a[i], b[i]), g.api.Mul(2, ab))
		r[i] = g.api.Add(ab, g.api.Mul(c[i], axb))
	}
	return r
}

// compress hashes the one-block message holding h from the IV, running
// rounds rounds, and applies the feed-forward.
func (g apiGadget) compress(h [8]apiWord, rounds int) [8]apiWord {
	block := sha256Block([8]uint32{})
	var w [64]apiWord
	for t := 0; t < 16; t++ {
		if t < 8 {
			w[t] = h[t]
		} else {
			w[t] = apiConstWord(block[t])
		}
	}
	for t := 16; t < rounds; t++ {
		s0 := g.xor3(rotr(w[t-15], 7), rotr(w[t-15], 18), shr(w[t-15], 3, frontend.Variable(0)))
		s1 := g.xor3(rotr(w[t-2], 17), rotr(w[t-2], 19), shr(w[t-2], 10, frontend.Variable(0)))
		w[t] = g.add(0, w[t-16], s0, w[t-7], s1)
	}
	var s [8]apiWord
	for i := range s {
		s[i] = apiConstWord(sha256IV[i])
	}
	a, b, c, d, e, f, gg, hh := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	for t := 0; t < rounds; t++ {
		S1 := g.xor3(rotr(e, 6), rotr(e, 11), rotr(e, 25))
		ch := g.ch(e, f, gg)
		S0 := g.xor3(rotr(a, 2), rotr(a, 13), rotr(a, 22))
		maj := g.maj(a, b, c)
		// e' = d + t1, a' = t1 + t2, each one decomposition.
		newE := g.add(sha256K[t], d, hh, S1, ch, w[t])
		newA := g.add(sha256K[t], hh, S1, ch, w[t], S0, maj)
		hh, gg, f, e, d, c, b, a = gg, f, e, newE, c, b, a, newA
	}
	out := [8]apiWord{a, b, c, d, e, f, gg, hh}
	for i := range out {
		out[i] = g.add(sha256IV[i], out[i])
	}
	return out
}
