package runtime

import "sync"

// slotPool hands out worker numbers 0..n-1 to the instances holding a
// stage's worker slots, so traces can show one row per worker. The worker
// pool resource bounds how many are out at once; this only names them.
type slotPool struct {
	mu   sync.Mutex
	free []int
}

func newSlotPool(n int) *slotPool {
	p := &slotPool{free: make([]int, n)}
	for i := range p.free {
		p.free[i] = n - 1 - i // pop from the end: lowest number first
	}
	return p
}

func (p *slotPool) get() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		panic("runtime: more workers than slots; worker pool and slots disagree")
	}
	s := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return s
}

func (p *slotPool) put(s int) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}
