package workloads

import (
	"slices"

	"github.com/consensys/gnark/constraint"
	bls12381 "github.com/consensys/gnark/constraint/bls12-381"
	bn254 "github.com/consensys/gnark/constraint/bn254"
	"github.com/consensys/gnark/frontend"
)

// The R1CS circuits (sha256, chain) are written through a small frontend
// of their own rather than gnark's frontend.API: compiling with the API is
// mostly the builder's bookkeeping of linear expressions (field-element
// coefficients, a heap merge and a new slice per sum, a map lookup per
// term of a constraint), while every coefficient here is a small integer.
// The gadget keeps its linear expressions with int64 coefficients and
// writes the constraints, wires and hints straight into the builder's
// constraint system, the same ones and in the same order as the API calls
// it replaces would (those are named at each step):
// TestTheR1CSGadgetWritesTheAPICircuit holds each circuit to its version
// over the API, which PLONK's builder compiles.

// term is coeff times wire vid; wire 0 is the constant 1.
type term struct {
	vid   uint32
	coeff int64
}

// lin is a linear expression as gnark's builder keeps one: terms sorted by
// wire, each wire once, no zero coefficient. The constant 0 is empty.
type lin []term

func constLin(c int64) lin {
	if c == 0 {
		return nil
	}
	return lin{{0, c}}
}

// constant returns l's value if l is a constant.
func (l lin) constant() (int64, bool) {
	switch {
	case len(l) == 0:
		return 0, true
	case len(l) == 1 && l[0].vid == 0:
		return l[0].coeff, true
	}
	return 0, false
}

// compressThreshold is gnark's default CompressThreshold: the builder
// replaces a sum of that many terms or more by a new wire.
const compressThreshold = 300

type gadget struct {
	api frontend.API
	cs  constraint.R1CS[constraint.U64]
	// bp is gnark's generic R1C blueprint: the builder's own when the
	// system has one (genericR1C), so that the instructions are the
	// API's too.
	bp constraint.BlueprintID
	// cids caches the coefficient table's ids of the first coefficients
	// met (cidsCached).
	cids map[int64]uint32
	// run is the integers lo, lo+1, ... lo+n-1, added to the table by
	// coeffRun with the ids base, base+1, ...
	run struct {
		lo   int64
		n    uint64
		base uint32
	}
	one constraint.LinearExpression
	// arena holds the terms of the expressions the gadget keeps, a slab
	// at a time, rather than a slice each.
	arena []term
	// Scratch space: sum's merge levels, scaled expressions, and the
	// products' L and R.
	levels    [2][]term
	lists     [2][]lin
	scaledBuf []term
	leL, leR  constraint.LinearExpression
	zero      constraint.LinearExpression
	wire      constraint.LinearExpression
}

// genericR1C is the id of the first generic R1C blueprint of cs, the one
// gnark's builder adds for its constraints, or of one added now.
func genericR1C(cs constraint.R1CS[constraint.U64]) constraint.BlueprintID {
	var bps []constraint.Blueprint
	switch s := cs.(type) {
	case *bls12381.R1CS:
		bps = s.Blueprints
	case *bn254.R1CS:
		bps = s.Blueprints
	}
	for i, b := range bps {
		if _, ok := b.(*constraint.BlueprintGenericR1C); ok {
			return constraint.BlueprintID(i)
		}
	}
	return cs.AddBlueprint(&constraint.BlueprintGenericR1C{})
}

// newGadget takes the constraint system from gnark's R1CS builder: its
// Compile only returns the system being built, so calling it in Define
// gives the gadget the system to write into. Another builder (PLONK's)
// gives no gadget and no error: Define then writes the circuit over the
// API.
func newGadget(api frontend.API) (*gadget, error) {
	if _, plonk := api.Compiler().(frontend.PlonkAPI); plonk {
		return nil, nil
	}
	b, ok := api.Compiler().(frontend.Builder[constraint.U64])
	if !ok {
		return nil, nil
	}
	sys, err := b.Compile()
	if err != nil {
		return nil, err
	}
	cs, ok := sys.(constraint.R1CS[constraint.U64])
	if !ok {
		return nil, nil
	}
	g := &gadget{
		api:  api,
		cs:   cs,
		bp:   genericR1C(cs),
		cids: make(map[int64]uint32),
		one:  constraint.LinearExpression{{CID: constraint.CoeffIdOne, VID: 0}},
		zero: constraint.LinearExpression{{CID: constraint.CoeffIdZero, VID: 0}},
		wire: make(constraint.LinearExpression, 1),
		// sha256's fromWord scales 32 bits of at most 5 terms.
		scaledBuf: make([]term, 0, 256),
	}
	return g, nil
}

// variable is the expression of a circuit input.
func (g *gadget) variable(v frontend.Variable) lin {
	l := g.api.Compiler().ToCanonicalVariable(v).(constraint.LinearExpression)
	if len(l) != 1 || l[0].CID != constraint.CoeffIdOne {
		panic("circuits: an input that is not a wire")
	}
	return lin{{l[0].VID, 1}}
}

// alloc returns room for n terms in the arena.
func (g *gadget) alloc(n int) lin {
	if len(g.arena)+n > cap(g.arena) {
		g.arena = make([]term, 0, max(n, 1<<16))
	}
	l := g.arena[len(g.arena) : len(g.arena)+n : len(g.arena)+n]
	g.arena = g.arena[:len(g.arena)+n]
	return l
}

func (g *gadget) keep(t []term) lin {
	l := g.alloc(len(t))
	copy(l, t)
	return l
}

// cidsCached bounds the coefficients cid caches: sha256 has 315, all
// met again and again, while chain has a new one a step, met in one
// constraint, and a cache of them all would be a second map as large as
// the table's own (gnark's AddCoeff finds a coefficient's id there).
const cidsCached = 1 << 12

// cid is coeff's id in the coefficient table, which adds coefficients
// in the order they are first made into a term: le makes them at the
// points where the builder makes the same terms.
func (g *gadget) cid(coeff int64) uint32 {
	if d := uint64(coeff - g.run.lo); d < g.run.n {
		return g.run.base + uint32(d)
	}
	id, ok := g.cids[coeff]
	if !ok {
		id = g.cs.AddCoeff(g.cs.FromInterface(coeff))
		if len(g.cids) < cidsCached {
			g.cids[coeff] = id
		}
	}
	return id
}

// coeffRun adds the integers lo..hi to the coefficient table at once, in
// order, gnark's constants (-2..2) left out, for a circuit that meets them
// in that order and before any other coefficient but those constants
// (chain's i): the table is the one the builder makes one coefficient at
// a time, and cid finds their ids without a map. The table (BLS12-381's
// or BN254's) is appended to directly while it holds gnark's five
// constants alone;
// gnark's AddCoeff would also put each one in its map, a lookup and an
// insert keyed by field element (57% of chain's compile at 2^22). That map
// then lacks the run, as a system read back from a file lacks all of it:
// it only spares AddCoeff a duplicate entry. For another table coeffRun
// does nothing, and cid adds each coefficient when it is met.
func (g *gadget) coeffRun(lo, hi int64) {
	if lo < -2 {
		panic("circuits: a coefficient run below gnark's constants")
	}
	lo = max(lo, 3)
	if lo > hi || g.run.n != 0 {
		return
	}
	var ok bool
	switch t := g.cs.(type) {
	case *bls12381.R1CS:
		t.Coefficients, ok = appendRun(t.Coefficients, lo, hi)
	case *bn254.R1CS:
		t.Coefficients, ok = appendRun(t.Coefficients, lo, hi)
	}
	if ok {
		g.run.lo, g.run.n, g.run.base = lo, uint64(hi-lo+1), gnarkConstants
	}
}

// gnarkConstants is the length of a new system's coefficient table:
// gnark's constants 0, 1, 2, -1 and -2.
const gnarkConstants = 5

// appendRun appends the integers lo..hi to a coefficient table holding
// gnark's constants alone, and says whether it did.
func appendRun[E any, P interface {
	*E
	SetInt64(int64) P
}](table []E, lo, hi int64) ([]E, bool) {
	if len(table) != gnarkConstants {
		return table, false
	}
	table = slices.Grow(table, int(hi-lo+1))
	for c := lo; c <= hi; c++ {
		var e E
		P(&e).SetInt64(c)
		table = append(table, e)
	}
	return table, true
}

// appendLE appends l's terms, made as the builder makes them, to dst.
func (g *gadget) appendLE(dst constraint.LinearExpression, l lin) constraint.LinearExpression {
	if len(l) == 0 {
		return append(dst, g.zero[0])
	}
	for _, t := range l {
		dst = append(dst, constraint.Term{CID: g.cid(t.coeff), VID: t.vid})
	}
	return dst
}

func (g *gadget) le(l lin) constraint.LinearExpression {
	return g.appendLE(make(constraint.LinearExpression, 0, max(len(l), 1)), l)
}

// r1c adds the constraint l * r = o (AddR1C copies the expressions).
func (g *gadget) r1c(l, r, o constraint.LinearExpression) {
	g.cs.AddR1C(constraint.R1C{L: l, R: r, O: o}, g.bp)
}

// assertIsEqual is api.AssertIsEqual(a, b) of a non-constant: 1 * a = b.
func (g *gadget) assertIsEqual(a, b lin) {
	g.r1c(g.one, g.le(a), g.le(b))
}

func (g *gadget) newWire() lin {
	return g.keep([]term{{uint32(g.cs.AddInternalVariable()), 1}})
}

// merge appends the sum of a and b to dst.
func merge(dst []term, a, b lin) []term {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].vid < b[j].vid:
			dst = append(dst, a[i])
			i++
		case a[i].vid > b[j].vid:
			dst = append(dst, b[j])
			j++
		default:
			if c := a[i].coeff + b[j].coeff; c != 0 {
				dst = append(dst, term{a[i].vid, c})
			}
			i++
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}

// sum is api.Add(ls...): the expressions merged two by two, and the
// result replaced by a new wire if it is too long (the builder's
// compress: 1 * sum = wire).
func (g *gadget) sum(ls ...lin) lin {
	src := append(g.lists[0][:0], ls...)
	for k := 0; len(src) > 1; k ^= 1 {
		buf := g.levels[k][:0]
		dst := g.lists[k^1][:0]
		for i := 0; i < len(src); i += 2 {
			start := len(buf)
			if i+1 < len(src) {
				buf = merge(buf, src[i], src[i+1])
			} else {
				buf = append(buf, src[i]...)
			}
			dst = append(dst, buf[start:len(buf):len(buf)])
		}
		g.levels[k], g.lists[k^1], g.lists[k] = buf, dst, src
		src = dst
	}
	if len(src[0]) < compressThreshold {
		return g.keep(src[0])
	}
	le := g.le(src[0])
	w := g.newWire()
	g.r1c(g.one, le, g.appendLE(g.wire[:0], w))
	return w
}

// scale appends c times l to dst (the builder's mulConstant).
func scale(dst []term, l lin, c int64) []term {
	if c == 0 {
		return dst
	}
	for _, t := range l {
		dst = append(dst, term{t.vid, t.coeff * c})
	}
	return dst
}

// mul is api.Mul(a, b): a constant scales the other; otherwise a new
// wire with the constraint a * b = wire, the shorter expression left.
func (g *gadget) mul(a, b lin) lin {
	if c, ok := a.constant(); ok {
		return g.keep(scale(g.scaledBuf[:0], b, c))
	}
	if c, ok := b.constant(); ok {
		return g.keep(scale(g.scaledBuf[:0], a, c))
	}
	w := g.newWire()
	g.leL = g.appendLE(g.leL[:0], a)
	if len(a) == len(b) && &a[0] == &b[0] {
		// a square (chain's x*x): the same terms again.
		g.leR = append(g.leR[:0], g.leL...)
	} else {
		g.leR = g.appendLE(g.leR[:0], b)
	}
	l, r := g.leL, g.leR
	if len(l) > len(r) {
		l, r = r, l
	}
	g.r1c(l, r, g.appendLE(g.wire[:0], w))
	return w
}
