package groth16

import (
	"context"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/internal/split"
	"github.com/prooflane/prooflane/stages"
)

// prepMSM builds the MSM scalar vectors from the wire values.
type prepMSM struct {
	cfg PrepConfig
	dev backendRef
}

func (s *prepMSM) Run(ctx context.Context, in *stages.Input) (any, error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	sol, err := stages.Get[*Solution](in, TypeSolution)
	if err != nil {
		return nil, err
	}
	_, dev, err := s.dev.device(in)
	if err != nil {
		return nil, err
	}
	if len(sol.Wires) != len(j.PK.InfinityA) {
		return nil, fmt.Errorf("partition %d: the solution has %d wires, the proving key is for %d", in.Partition, len(sol.Wires), len(j.PK.InfinityA))
	}
	// A device that sums its MSMs' ones apart itself is given them as
	// they are: its gather beats uploading the lists (cuda.PlanMSM).
	out := s.scalars(j, sol.Wires, s.cfg.SplitOnes && !dev.SumsUnits())
	out.Solution = sol
	if out.PoK, err = j.pokScalars(sol.Wires); err != nil {
		return nil, fmt.Errorf("partition %d: %w", in.Partition, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dev.WantsCanonical() {
		out.BMont = append([]fr.Element(nil), out.B...)
		for _, v := range [][]fr.Element{out.A, out.B, out.K, out.PoK} {
			toCanonical(v)
		}
		out.Form = device.FormCanonical
	}
	return out, nil
}

// prepChunk is the number of wires prep_msm handles as one piece: the
// plan's offsets are kept at this granularity, and the pieces are shared
// out over the cores.
const prepChunk = 1 << 12

// prepPlan is what prep_msm derives from the proving key once, rather
// than for every partition: where each chunk of wires starts in the A and
// B vectors, which leave out the wires whose base is infinity, and in K,
// which leaves out the public wires and, with commitments, the committed
// private wires and the commitment wires (commitPlan.removed).
type prepPlan struct {
	// chunk is the number of wires in a chunk (prepChunk but in tests).
	chunk int
	// offA[c], offB[c], offK[c] index the first scalar of chunk c (wires
	// c*chunk...) in A, B and K; the last entry is the vector's length.
	offA, offB, offK []int
	// offRemoved[c] indexes the first wire of commitPlan.removed in chunk
	// c or after it.
	offRemoved []int
}

// prepPlan returns the job's plan, computing it on first use.
func (j *Job) prepPlan() *prepPlan {
	j.plan.once.Do(func() { j.plan.p = newPrepPlan(j.PK, j.nbPublic, j.commit.removed, prepChunk) })
	return j.plan.p
}

func newPrepPlan(pk *g16.ProvingKey, nbPublic int, removed []uint32, chunk int) *prepPlan {
	n := len(pk.InfinityA)
	chunks := (n + chunk - 1) / chunk
	p := &prepPlan{chunk: chunk, offA: make([]int, chunks+1), offB: make([]int, chunks+1),
		offK: make([]int, chunks+1), offRemoved: make([]int, chunks+1)}
	a, b, k, r := 0, 0, 0, 0
	for i := 0; i < n; i++ {
		if i%chunk == 0 {
			p.offA[i/chunk], p.offB[i/chunk], p.offK[i/chunk], p.offRemoved[i/chunk] = a, b, k, r
		}
		if !pk.InfinityA[i] {
			a++
		}
		if !pk.InfinityB[i] {
			b++
		}
		switch {
		case r < len(removed) && removed[r] == uint32(i):
			r++
		case i >= nbPublic:
			k++
		}
	}
	p.offA[chunks], p.offB[chunks], p.offK[chunks], p.offRemoved[chunks] = a, b, k, r
	return p
}

// prepPart is what one of scalars' tasks found in its range of chunks.
type prepPart struct {
	onesA, onesB, onesK []int32
	zeros               int
}

// put writes w (kind 0 zero, 1 one, 2 other) at v[i]: a zero or a split
// one as zero, the one's index listed in ones.
func (p *prepPart) put(v []fr.Element, i int, w *fr.Element, kind int, ones *[]int32) {
	switch kind {
	case 0:
		v[i] = fr.Element{}
		p.zeros++
	case 1:
		v[i] = fr.Element{}
		*ones = append(*ones, int32(i))
	default:
		v[i] = *w
	}
}

// scalars builds A, B and K from the wires in one pass over them: each
// wire is read and classified (zero, one, other) once and written to
// every vector that keeps it, a range of chunks per core. A zero is
// written as zero; with ones a one is written as zero and its index
// listed.
func (s *prepMSM) scalars(j *Job, wires []fr.Element, ones bool) *MSMInputs {
	pk, plan, nbPublic, removed := j.PK, j.prepPlan(), j.nbPublic, j.commit.removed
	out := &MSMInputs{
		Form: device.FormMontgomery,
		A:    make([]fr.Element, len(pk.G1.A)),
		B:    make([]fr.Element, len(pk.G1.B)),
		K:    make([]fr.Element, len(pk.G1.K)),
	}
	chunks := len(plan.offA) - 1
	parts := make([]prepPart, chunks)
	split.Run(chunks, 1, func(lo, hi int) {
		part := &parts[lo]
		ja, jb, jk, r := plan.offA[lo], plan.offB[lo], plan.offK[lo], plan.offRemoved[lo]
		for i := lo * plan.chunk; i < min(hi*plan.chunk, len(wires)); i++ {
			w := &wires[i]
			kind := 2
			switch {
			case w.IsZero():
				kind = 0
			case ones && w.IsOne():
				kind = 1
			}
			if !pk.InfinityA[i] {
				part.put(out.A, ja, w, kind, &part.onesA)
				ja++
			}
			if !pk.InfinityB[i] {
				part.put(out.B, jb, w, kind, &part.onesB)
				jb++
			}
			switch {
			case r < len(removed) && removed[r] == uint32(i):
				r++ // a committed or commitment wire: not in K
			case i >= nbPublic:
				part.put(out.K, jk, w, kind, &part.onesK)
				jk++
			}
		}
	})
	out.OnesA = joinOnes(parts, func(p *prepPart) []int32 { return p.onesA })
	out.OnesB = joinOnes(parts, func(p *prepPart) []int32 { return p.onesB })
	out.OnesK = joinOnes(parts, func(p *prepPart) []int32 { return p.onesK })
	for i := range parts {
		out.Zeros += parts[i].zeros
	}
	out.BMont = out.B
	return out
}

// joinOnes concatenates one list of every part, in order (nil if empty).
func joinOnes(parts []prepPart, list func(*prepPart) []int32) []int32 {
	n := 0
	for i := range parts {
		n += len(list(&parts[i]))
	}
	if n == 0 {
		return nil
	}
	out := make([]int32, 0, n)
	for i := range parts {
		out = append(out, list(&parts[i])...)
	}
	return out
}

// toCanonical converts v from Montgomery to canonical form in place, in
// chunks over the cores.
func toCanonical(v []fr.Element) {
	const chunk = 1 << 15
	var wg sync.WaitGroup
	for lo := 0; lo < len(v); lo += chunk {
		part := v[lo:min(lo+chunk, len(v))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range part {
				part[i] = fr.Element(part[i].Bits())
			}
		}()
	}
	wg.Wait()
}
