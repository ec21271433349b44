package runtime

import "sync"

// slotPool hands out worker numbers 0..n-1 to the instances holding a
// stage's worker slots, so traces can show one row per worker. The worker
// pool resource bounds how many are out at once; this only names them.
// Numbers are made on first use, so a large workers: costs nothing up front.
type slotPool struct {
	mu   sync.Mutex
	n    int   // slots in all
	made int   // numbers handed out at least once: 0..made-1
	free []int // numbers given back, reused first
}

func newSlotPool(n int) *slotPool { return &slotPool{n: n} }

func (p *slotPool) get() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		s := p.free[k-1]
		p.free = p.free[:k-1]
		return s
	}
	if p.made == p.n {
		panic("runtime: more workers than slots; worker pool and slots disagree")
	}
	p.made++
	return p.made - 1
}

func (p *slotPool) put(s int) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}
