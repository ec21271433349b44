package groth16

import (
	"context"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/prooflane/prooflane/device"
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
	pk := j.PK
	out := &MSMInputs{Solution: sol, Form: device.FormMontgomery}
	var zeros [3]int
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		out.A, out.OnesA, zeros[0] = s.filter(sol.Wires, pk.InfinityA, len(pk.G1.A))
	}()
	go func() {
		defer wg.Done()
		out.B, out.OnesB, zeros[1] = s.filter(sol.Wires, pk.InfinityB, len(pk.G1.B))
	}()
	go func() {
		defer wg.Done()
		out.K, out.OnesK, zeros[2] = s.filter(sol.Wires[j.nbPublic:], nil, len(pk.G1.K))
	}()
	wg.Wait()
	out.Zeros = zeros[0] + zeros[1] + zeros[2]
	out.BMont = out.B
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dev.WantsCanonical() {
		out.BMont = append([]fr.Element(nil), out.B...)
		for _, v := range [][]fr.Element{out.A, out.B, out.K} {
			toCanonical(v)
		}
		out.Form = device.FormCanonical
	}
	return out, nil
}

// filter copies the wires whose base is not infinity (skip may be nil),
// and when splitting ones zeroes them in the copy and lists their indices.
func (s *prepMSM) filter(wires []fr.Element, skip []bool, n int) ([]fr.Element, []int32, int) {
	out := make([]fr.Element, n)
	var ones []int32
	zeros := 0
	j := 0
	for i := range wires {
		if skip != nil && skip[i] {
			continue
		}
		w := &wires[i]
		switch {
		case w.IsZero():
			zeros++
		case s.cfg.SplitOnes && w.IsOne():
			ones = append(ones, int32(j))
		default:
			out[j] = *w
		}
		j++
	}
	return out, ones, zeros
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
