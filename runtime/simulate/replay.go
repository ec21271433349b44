package simulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"time"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/stages"
)

// durations holds the recorded run times of each stage, shuffled once, and
// hands them out in turn so that replaying as many runs as were recorded
// uses each exactly once.
type durations struct {
	byName map[string]*pool
	byType map[string]*pool
	// longest is the longest stage span replayed, for checkLongest.
	longest *tracefile.Span
}

type pool struct {
	d    []time.Duration
	next atomic.Int64
}

func (p *pool) take() time.Duration {
	i := p.next.Add(1) - 1
	return p.d[int(i%int64(len(p.d)))]
}

func recorded(spans []tracefile.Span, seed uint64) *durations {
	byName := map[string][]time.Duration{}
	byType := map[string][]time.Duration{}
	var longest *tracefile.Span
	for i := range spans {
		s := &spans[i]
		if s.Str(string(pl.KeyKind)) != pl.KindStage || s.Status == tracefile.StatusError {
			continue
		}
		if longest == nil || s.Duration() > longest.Duration() {
			longest = s
		}
		name := s.Str(string(pl.KeyStage))
		if name == "" {
			name = s.Name
		}
		byName[name] = append(byName[name], s.Duration())
		if t := s.Str(string(pl.KeyStageType)); t != "" {
			byType[t] = append(byType[t], s.Duration())
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x70726f6f666c616e))
	mk := func(m map[string][]time.Duration) map[string]*pool {
		out := map[string]*pool{}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys) // deterministic shuffles for a seed
		for _, k := range keys {
			d := m[k]
			sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			rng.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
			out[k] = &pool{d: d}
		}
		return out
	}
	return &durations{byName: mk(byName), byType: mk(byType), longest: longest}
}

// replay is the implementation every simulated stage runs (through
// runtime.Options.Replace). It outputs nothing: the stages after it are
// replays too and read no input.
type replay struct {
	pools map[string]*pool // by stage name, resolved before the run
	speed float64
	// late is how late timers fire here (ns, a moving average), taken
	// off every sleep: the recorded durations already include it once.
	late atomic.Int64
}

func (r *replay) Run(ctx context.Context, in *stages.Input) (any, error) {
	p := r.pools[in.Stage]
	if p == nil {
		return nil, fmt.Errorf("replay: no recorded durations for stage %q", in.Stage)
	}
	d := max(0, time.Duration(float64(p.take())/r.speed)-time.Duration(r.late.Load()))
	start := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	// Move the average an eighth of the way to this sleep's lateness;
	// concurrent updates may lose one another, which only slows it.
	old := r.late.Load()
	r.late.Store(old + (int64(time.Since(start)-d)-old)/8)
	return nil, nil
}

// timerOvershoot measures how late short timers fire on this machine: the
// median of a few 1 ms sleeps, minus 1 ms.
func timerOvershoot() time.Duration {
	const n, d = 9, time.Millisecond
	late := make([]time.Duration, n)
	for i := range late {
		start := time.Now()
		time.Sleep(d)
		late[i] = time.Since(start) - d
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	return max(0, late[n/2])
}
