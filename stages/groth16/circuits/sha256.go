package circuits

import (
	"fmt"
	"math/big"
	"math/bits"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/constraint/solver"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
)

func init() {
	solver.RegisterHint(sha256Bits)
	register(Family{
		Name: "sha256",
		Doc:  "SHA-256 hash chain h <- sha256(h) over bits (PoRep-like: most wires are 0 or 1)",
		New:  newSHA256,
		// One round and the input/output decompositions.
		MinSize: 1,
	})
}

// The circuit proves knowledge of a 32-byte h0 such that hashing it again
// and again (h <- SHA-256(h), a one-block message each time) ends at the
// public digest. It is written over bits by hand: XOR is a+b-2ab, Ch is
// g+e(f-g), Maj is ab+c(a+b-2ab), additions mod 2^32 are one decomposition
// of the sum into bits. gnark's std/hash/sha2 is not used because it relies
// on lookups and range checks that use commitments.
//
// A size below one compression (about 26,000 constraints) gives a chain of
// fewer rounds: the circuit then runs `rounds` rounds of the compression
// function in total, 64 per hash, and the last hash of the chain is
// truncated (with the feed-forward still applied). With rounds a multiple
// of 64 it is exactly a SHA-256 chain; the native code below mirrors the
// circuit and is tested against crypto/sha256.
type sha256Circuit struct {
	In  [8]frontend.Variable // h0 as big-endian 32-bit words
	Out [8]frontend.Variable `gnark:",public"`

	rounds int
}

// sha256Cost is the constraint count of one round, measured once on a
// chain of a full compression (message schedule and feed-forward included).
var sha256Cost = sync.OnceValue(func() [2]int {
	one, full := sha256Count(1), sha256Count(64)
	return [2]int{one, (full - one) / 63}
})

// sha256Hash is the exact constraint count of one more full hash in a
// chain (each starts from the IV constants and a block of variables).
var sha256Hash = sync.OnceValue(func() int { return sha256Count(128) - sha256Count(64) })

// sha256Count compiles the chain of rounds rounds and counts its
// constraints.
func sha256Count(rounds int) int {
	cs, err := frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, &sha256Circuit{rounds: rounds})
	if err != nil {
		panic(fmt.Sprintf("sha256: measuring %d rounds: %v", rounds, err))
	}
	return cs.GetNbConstraints()
}

func newSHA256(size int) (Instance, error) {
	c := sha256Cost()
	rounds := 1
	if size > c[0] {
		rounds = 1 + (size-c[0])/c[1]
	}
	return sha256Chain{rounds: rounds}, nil
}

type sha256Chain struct{ rounds int }

func (c sha256Chain) Circuit() frontend.Circuit { return &sha256Circuit{rounds: c.rounds} }

// Constraints counts the last, partial hash (or the first full one)
// by compiling a chain of it alone, and adds the full hashes before it:
// every full hash of the chain costs the same (sha256Hash).
func (c sha256Chain) Constraints() int {
	full, last := c.rounds/64, c.rounds%64
	if last == 0 {
		full, last = full-1, 64
	}
	return sha256Count(last) + full*sha256Hash()
}

func (c sha256Chain) Assignment(seed uint64) frontend.Circuit {
	r := rng(seed)
	var h [8]uint32
	for i := range h {
		h[i] = r.Uint32()
	}
	out := sha256ChainNative(h, c.rounds)
	a := &sha256Circuit{rounds: c.rounds}
	for i := range h {
		a.In[i] = h[i]
		a.Out[i] = out[i]
	}
	return a
}

func (c sha256Chain) Unsatisfied(seed uint64) frontend.Circuit {
	a := c.Assignment(seed).(*sha256Circuit)
	a.Out[0] = a.Out[0].(uint32) ^ 1
	return a
}

var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

var sha256IV = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// sha256Block is the padded one-block message holding a 32-byte h.
func sha256Block(h [8]uint32) [16]uint32 {
	var w [16]uint32
	copy(w[:8], h[:])
	w[8] = 0x80000000
	w[15] = 256
	return w
}

// sha256ChainNative mirrors sha256Circuit.Define on uint32 words.
func sha256ChainNative(h [8]uint32, rounds int) [8]uint32 {
	for rounds > 0 {
		n := min(rounds, 64)
		h = sha256CompressNative(sha256IV, sha256Block(h), n)
		rounds -= n
	}
	return h
}

func sha256CompressNative(state [8]uint32, block [16]uint32, rounds int) [8]uint32 {
	var w [64]uint32
	copy(w[:], block[:])
	for t := 16; t < rounds; t++ {
		s0 := bits.RotateLeft32(w[t-15], -7) ^ bits.RotateLeft32(w[t-15], -18) ^ (w[t-15] >> 3)
		s1 := bits.RotateLeft32(w[t-2], -17) ^ bits.RotateLeft32(w[t-2], -19) ^ (w[t-2] >> 10)
		w[t] = w[t-16] + s0 + w[t-7] + s1
	}
	a, b, c, d, e, f, g, hh := state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
	for t := 0; t < rounds; t++ {
		S1 := bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)
		ch := (e & f) ^ (^e & g)
		t1 := hh + S1 + ch + sha256K[t] + w[t]
		S0 := bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)
		maj := (a & b) ^ (a & c) ^ (b & c)
		t2 := S0 + maj
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	return [8]uint32{state[0] + a, state[1] + b, state[2] + c, state[3] + d, state[4] + e, state[5] + f, state[6] + g, state[7] + hh}
}

// word is a 32-bit word as bits, least significant first; a bit is a
// variable constrained to {0,1} or a constant 0 or 1.
type word [32]frontend.Variable

func constWord(x uint32) word {
	var w word
	for i := range w {
		w[i] = (x >> i) & 1
	}
	return w
}

func (c *sha256Circuit) Define(api frontend.API) error {
	g := newGadget(api)
	var h [8]word
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

// gadget builds the circuit's words. Compiling is mostly the builder's
// bookkeeping of linear expressions, so the gadget keeps its calls into
// the builder few: the constants it scales by are made once (a Go integer
// operand is converted to a field element on every call), sums are built
// with one Add each rather than term by term, and the bits' booleanity
// constraints are written directly (see boolean).
type gadget struct {
	api frontend.API
	// pow[i] is the constant 2^i, for decompositions of up to 35 bits.
	pow [35]frontend.Variable
	// minusTwo is the constant -2 of XOR's a+b-2ab.
	minusTwo frontend.Variable
	// r1c is gnark's generic R1C blueprint, added to the system for the
	// booleanity constraints; calldata is boolean's buffer.
	r1c      constraint.BlueprintID
	calldata []uint32
}

func newGadget(api frontend.API) *gadget {
	g := &gadget{api: api, minusTwo: api.Mul(-2, 1)}
	for i := range g.pow {
		g.pow[i] = api.Mul(uint64(1)<<i, 1)
	}
	g.r1c = api.Compiler().AddBlueprint(&constraint.BlueprintGenericR1C{})
	return g
}

// boolean constrains the variable b (a wire, as a hint's output is) to 0
// or 1 with the constraint api.AssertIsBoolean writes, b * (1 - b) = 0.
// AssertIsBoolean also records b as boolean in a map keyed by a blake2b
// hash of b, so that a second assertion adds nothing; that bookkeeping was
// a quarter of the compile time and no bit here is asserted twice.
func (g *gadget) boolean(b frontend.Variable) {
	l := g.api.Compiler().ToCanonicalVariable(b).(constraint.LinearExpression)
	if len(l) != 1 || l[0].CID != constraint.CoeffIdOne {
		panic("sha256: boolean of a variable that is not a wire")
	}
	wire := l[0].VID
	c := constraint.R1C{
		L: constraint.LinearExpression{{CID: constraint.CoeffIdOne, VID: wire}},
		R: constraint.LinearExpression{{CID: constraint.CoeffIdOne, VID: 0}, {CID: constraint.CoeffIdMinusOne, VID: wire}},
		O: constraint.LinearExpression{{CID: constraint.CoeffIdZero, VID: 0}},
	}
	g.calldata = g.calldata[:0]
	(&constraint.BlueprintGenericR1C{}).CompressR1C(&c, &g.calldata)
	g.api.Compiler().AddInstruction(g.r1c, g.calldata)
}

// sha256Bits is the hint giving the low len(out) bits of in[0], least
// significant first. It is registered with gnark's solver, which finds
// it by name when solving the compiled system.
func sha256Bits(_ *big.Int, in, out []*big.Int) error {
	for i := range out {
		out[i].SetUint64(uint64(in[0].Bit(i)))
	}
	return nil
}

// toWord decomposes x (less than 2^nbits) and keeps the low 32 bits. The
// constraints are those of api.ToBinary: each bit boolean, then the bits
// recomposed equal x; it only builds the recomposition as one sum.
func (g *gadget) toWord(x frontend.Variable, nbits int) word {
	if v, ok := g.api.Compiler().ConstantValue(x); ok {
		if v.BitLen() > nbits {
			panic(fmt.Sprintf("sha256: constant %v has more than %d bits", v, nbits))
		}
		return constWord(uint32(v.Uint64()))
	}
	b, err := g.api.Compiler().NewHint(sha256Bits, nbits, x)
	if err != nil {
		panic(err)
	}
	terms := make([]frontend.Variable, nbits)
	for i := range b {
		terms[i] = g.api.Mul(b[i], g.pow[i])
		g.boolean(b[i])
	}
	g.api.AssertIsEqual(g.api.Add(terms[0], terms[1], terms[2:]...), x)
	var w word
	copy(w[:], b[:32])
	return w
}

// fromWord is the linear expression of w's value.
func (g *gadget) fromWord(w word) frontend.Variable {
	terms := make([]frontend.Variable, len(w))
	for i := range w {
		terms[i] = g.api.Mul(w[i], g.pow[i])
	}
	return g.api.Add(terms[0], terms[1], terms[2:]...)
}

// mod32 returns x mod 2^32 for x a sum of n words and a constant word.
func (g *gadget) mod32(x frontend.Variable, n int) word {
	return g.toWord(x, 32+bits.Len(uint(n)))
}

// xor is a+b-2ab, the product's -2 added by MulAcc.
func (g *gadget) xor(a, b frontend.Variable) frontend.Variable {
	return g.api.MulAcc(g.api.Add(a, b), g.api.Mul(a, b), g.minusTwo)
}

func rotr(w word, n int) word {
	var r word
	for i := range r {
		r[i] = w[(i+n)%32]
	}
	return r
}

func shr(w word, n int) word {
	var r word
	for i := range r {
		if i+n < 32 {
			r[i] = w[i+n]
		} else {
			r[i] = 0
		}
	}
	return r
}

func (g *gadget) xor3(x, y, z word) word {
	var r word
	for i := range r {
		r[i] = g.xor(g.xor(x[i], y[i]), z[i])
	}
	return r
}

func (g *gadget) ch(e, f, h word) word {
	var r word
	for i := range r {
		r[i] = g.api.Add(h[i], g.api.Mul(e[i], g.api.Sub(f[i], h[i])))
	}
	return r
}

func (g *gadget) maj(a, b, c word) word {
	var r word
	for i := range r {
		ab := g.api.Mul(a[i], b[i])
		axb := g.api.MulAcc(g.api.Add(a[i], b[i]), ab, g.minusTwo)
		r[i] = g.api.Add(ab, g.api.Mul(c[i], axb))
	}
	return r
}

// compress hashes the one-block message holding h from the IV, running
// rounds rounds, and applies the feed-forward.
func (g *gadget) compress(h [8]word, rounds int) [8]word {
	block := sha256Block([8]uint32{})
	var w [64]word
	for t := 0; t < 16; t++ {
		if t < 8 {
			w[t] = h[t]
		} else {
			w[t] = constWord(block[t])
		}
	}
	// wl[t] is w[t]'s value, made once: it is summed up to three times.
	var wl [64]frontend.Variable
	wlin := func(t int) frontend.Variable {
		if wl[t] == nil {
			wl[t] = g.fromWord(w[t])
		}
		return wl[t]
	}
	for t := 16; t < rounds; t++ {
		s0 := g.xor3(rotr(w[t-15], 7), rotr(w[t-15], 18), shr(w[t-15], 3))
		s1 := g.xor3(rotr(w[t-2], 17), rotr(w[t-2], 19), shr(w[t-2], 10))
		w[t] = g.mod32(g.api.Add(wlin(t-16), g.fromWord(s0), wlin(t-7), g.fromWord(s1)), 4)
	}
	var s [8]word
	for i := range s {
		s[i] = constWord(sha256IV[i])
	}
	a, b, c, d, e, f, gg, hh := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
	for t := 0; t < rounds; t++ {
		S1 := g.xor3(rotr(e, 6), rotr(e, 11), rotr(e, 25))
		ch := g.ch(e, f, gg)
		S0 := g.xor3(rotr(a, 2), rotr(a, 13), rotr(a, 22))
		maj := g.maj(a, b, c)
		// e' = d + t1, a' = t1 + t2, each one decomposition; t1 is
		// summed once for both. a' adds S0 then maj to t1 in two steps:
		// gnark replaces a sum of 300 terms or more by a new variable
		// (one constraint), and a full round's t1 + S0 is the first
		// partial sum to reach that, as when a' was summed word by word.
		t1 := g.api.Add(sha256K[t], g.fromWord(hh), g.fromWord(S1), g.fromWord(ch), wlin(t))
		newE := g.mod32(g.api.Add(g.fromWord(d), t1), 5)
		newA := g.mod32(g.api.Add(g.api.Add(t1, g.fromWord(S0)), g.fromWord(maj)), 6)
		hh, gg, f, e, d, c, b, a = gg, f, e, newE, c, b, a, newA
	}
	out := [8]word{a, b, c, d, e, f, gg, hh}
	for i := range out {
		out[i] = g.mod32(g.api.Add(sha256IV[i], g.fromWord(out[i])), 1)
	}
	return out
}
