package workloads

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
	register(Kind{
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
	// viaAPI writes the circuit over gnark's API with any builder (the
	// tests' reference; Define does so anyway for all but R1CS's).
	viaAPI bool
}

// sha256Cost is the constraint count over curve's field of one round,
// measured once on a chain of a full compression (message schedule and
// feed-forward included).
func sha256Cost(curve ecc.ID) [2]int {
	one, full := sha256Count(curve, 1), sha256Count(curve, 64)
	return [2]int{one, (full - one) / 63}
}

// sha256Hash is the exact constraint count of one more full hash in a
// chain (each starts from the IV constants and a block of variables).
func sha256Hash(curve ecc.ID) int { return sha256Count(curve, 128) - sha256Count(curve, 64) }

// sha256Counts memoizes sha256Count by curve and rounds.
var sha256Counts sync.Map

// sha256Count compiles the chain of rounds rounds over curve's field and
// counts its constraints, once a process.
func sha256Count(curve ecc.ID, rounds int) int {
	key := [2]int{int(curve), rounds}
	if n, ok := sha256Counts.Load(key); ok {
		return n.(int)
	}
	cs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &sha256Circuit{rounds: rounds})
	if err != nil {
		panic(fmt.Sprintf("sha256: measuring %d rounds: %v", rounds, err))
	}
	sha256Counts.Store(key, cs.GetNbConstraints())
	return cs.GetNbConstraints()
}

func newSHA256(curve ecc.ID, size int) (Instance, error) {
	c := sha256Cost(curve)
	rounds := 1
	if size > c[0] {
		rounds = 1 + (size-c[0])/c[1]
	}
	return sha256Chain{onCurve{curve}, rounds}, nil
}

type sha256Chain struct {
	onCurve
	rounds int
}

func (c sha256Chain) Circuit() frontend.Circuit { return &sha256Circuit{rounds: c.rounds} }

// Constraints counts the last, partial hash (or the first full one)
// by compiling a chain of it alone, and adds the full hashes before it:
// every full hash of the chain costs the same (sha256Hash).
func (c sha256Chain) Constraints() int {
	full, last := c.rounds/64, c.rounds%64
	if last == 0 {
		full, last = full-1, 64
	}
	return sha256Count(c.curve, last) + full*sha256Hash(c.curve)
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

// word is a 32-bit word as bits, least significant first; a bit is a wire
// constrained to {0,1}, a constant 0 or 1, or an expression of such.
type word [32]lin

func constWord(x uint32) word {
	var w word
	for i := range w {
		w[i] = constLin(int64(x>>i) & 1)
	}
	return w
}

// The circuit is written through the R1CS gadget (gadget.go) for gnark's
// R1CS builder, and over the API (sha256api.go) for any other.
func (c *sha256Circuit) Define(api frontend.API) error {
	base, err := newGadget(api)
	if err != nil {
		return err
	}
	if base == nil || c.viaAPI {
		return c.defineAPI(api)
	}
	g := &sha256Gadget{
		gadget: base,
		boolL:  make(constraint.LinearExpression, 1),
		boolR:  make(constraint.LinearExpression, 2),
	}
	var h [8]word
	for i := range h {
		h[i] = g.toWord(g.variable(c.In[i]), 32)
	}
	for rounds := c.rounds; rounds > 0; {
		n := min(rounds, 64)
		h = g.compress(h, n)
		rounds -= n
	}
	for i := range h {
		g.assertIsEqual(g.fromWord(h[i]), g.variable(c.Out[i]))
	}
	return nil
}

// sha256Gadget is the R1CS gadget with sha256's words of bits, and the
// scratch space of their booleanity constraints and scaled bits.
type sha256Gadget struct {
	*gadget
	scaled       [32]lin
	boolL, boolR constraint.LinearExpression
}

// sha256Bits is the hint giving the low len(out) bits of in[0], least
// significant first. It is registered with gnark's solver, which finds
// it by name when solving the compiled system. Any other count of
// inputs (a constraint system read from a corrupt file) is an error:
// the solver calls hints on goroutines of its own, where a panic would
// end the process.
func sha256Bits(_ *big.Int, in, out []*big.Int) error {
	if len(in) != 1 {
		return fmt.Errorf("sha256 bits hint: %d inputs, want 1", len(in))
	}
	for i := range out {
		out[i].SetUint64(uint64(in[0].Bit(i)))
	}
	return nil
}

// toWord decomposes x (less than 2^nbits) and keeps the low 32 bits. The
// constraints are those of api.ToBinary: each bit b boolean (b * (1 - b)
// = 0, as api.AssertIsBoolean writes it), then 1 * Σ 2^i b_i = x.
func (g *sha256Gadget) toWord(x lin, nbits int) word {
	if v, ok := x.constant(); ok {
		if v < 0 || uint64(v)>>nbits != 0 {
			panic(fmt.Sprintf("sha256: constant %v has more than %d bits", v, nbits))
		}
		return constWord(uint32(v))
	}
	xle := g.le(x) // the hint keeps it
	bits, err := g.cs.AddSolverHint(sha256Bits, solver.GetHintID(sha256Bits), []constraint.LinearExpression{xle}, nbits)
	if err != nil {
		panic(err)
	}
	for _, b := range bits {
		g.boolL[0] = constraint.Term{CID: constraint.CoeffIdOne, VID: uint32(b)}
		g.boolR[0] = constraint.Term{CID: constraint.CoeffIdOne, VID: 0}
		g.boolR[1] = constraint.Term{CID: constraint.CoeffIdMinusOne, VID: uint32(b)}
		g.r1c(g.boolL, g.boolR, g.zero)
	}
	// The bits are consecutive wires: the sum is sorted as it is.
	recomposed := make(constraint.LinearExpression, nbits)
	for i, b := range bits {
		recomposed[i] = constraint.Term{CID: g.cid(1 << i), VID: uint32(b)}
	}
	g.r1c(g.one, recomposed, xle)
	var w word
	terms := g.alloc(32)
	for i := range w {
		terms[i] = term{uint32(bits[i]), 1}
		w[i] = terms[i : i+1 : i+1]
	}
	return w
}

// fromWord is api.Add of the bits times 2^i, w's value.
func (g *sha256Gadget) fromWord(w word) lin {
	buf := g.scaledBuf[:0]
	for i := range w {
		buf = scale(buf, w[i], 1<<i)
	}
	g.scaledBuf = buf
	off := 0
	for i := range w {
		n := len(w[i])
		g.scaled[i] = buf[off : off+n : off+n]
		off += n
	}
	return g.sum(g.scaled[:]...)
}

// mod32 returns x mod 2^32 for x a sum of n words and a constant word.
func (g *sha256Gadget) mod32(x lin, n int) word {
	return g.toWord(x, 32+bits.Len(uint(n)))
}

// xor is api.MulAcc(api.Add(a, b), api.Mul(a, b), -2), a+b-2ab.
func (g *sha256Gadget) xor(a, b lin) lin {
	s := g.sum(a, b)
	p := g.mul(a, b)
	return g.sum(s, scale(g.scaledBuf[:0], p, -2))
}

func rotr[W ~[32]B, B any](w W, n int) W {
	var r W
	for i := range r {
		r[i] = w[(i+n)%32]
	}
	return r
}

// shr shifts w right by n bits, zero coming in (either circuit's bits:
// the gadget's lin or the API's frontend.Variable).
func shr[W ~[32]B, B any](w W, n int, zero B) W {
	var r W
	for i := range r {
		if i+n < 32 {
			r[i] = w[i+n]
		} else {
			r[i] = zero
		}
	}
	return r
}

func (g *sha256Gadget) xor3(x, y, z word) word {
	var r word
	for i := range r {
		r[i] = g.xor(g.xor(x[i], y[i]), z[i])
	}
	return r
}

// ch is h + e(f - h), as api.Add(h, api.Mul(e, api.Sub(f, h))).
func (g *sha256Gadget) ch(e, f, h word) word {
	var r word
	for i := range r {
		d := g.sum(f[i], scale(g.scaledBuf[:0], h[i], -1))
		r[i] = g.sum(h[i], g.mul(e[i], d))
	}
	return r
}

// maj is ab + c(a+b-2ab), the xor by api.MulAcc as in xor.
func (g *sha256Gadget) maj(a, b, c word) word {
	var r word
	for i := range r {
		ab := g.mul(a[i], b[i])
		axb := g.sum(g.sum(a[i], b[i]), scale(g.scaledBuf[:0], ab, -2))
		r[i] = g.sum(ab, g.mul(c[i], axb))
	}
	return r
}

// compress hashes the one-block message holding h from the IV, running
// rounds rounds, and applies the feed-forward.
func (g *sha256Gadget) compress(h [8]word, rounds int) [8]word {
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
	var wl [64]lin
	var made [64]bool
	wlin := func(t int) lin {
		if !made[t] {
			wl[t], made[t] = g.fromWord(w[t]), true
		}
		return wl[t]
	}
	for t := 16; t < rounds; t++ {
		s0 := g.xor3(rotr(w[t-15], 7), rotr(w[t-15], 18), shr(w[t-15], 3, nil))
		s1 := g.xor3(rotr(w[t-2], 17), rotr(w[t-2], 19), shr(w[t-2], 10, nil))
		w[t] = g.mod32(g.sum(wlin(t-16), g.fromWord(s0), wlin(t-7), g.fromWord(s1)), 4)
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
		// a sum of 300 terms or more is replaced by a new wire (one
		// constraint), and a full round's t1 + S0 is the first partial
		// sum to reach that, as when a' was summed word by word.
		t1 := g.sum(constLin(int64(sha256K[t])), g.fromWord(hh), g.fromWord(S1), g.fromWord(ch), wlin(t))
		newE := g.mod32(g.sum(g.fromWord(d), t1), 5)
		newA := g.mod32(g.sum(g.sum(t1, g.fromWord(S0)), g.fromWord(maj)), 6)
		hh, gg, f, e, d, c, b, a = gg, f, e, newE, c, b, a, newA
	}
	out := [8]word{a, b, c, d, e, f, gg, hh}
	for i := range out {
		out[i] = g.mod32(g.sum(constLin(int64(sha256IV[i])), g.fromWord(out[i])), 1)
	}
	return out
}
