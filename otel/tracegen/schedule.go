package tracegen

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	pl "github.com/prooflane/prooflane/otel/semconv"
)

// res is one resource: a worker pool or a lock of some capacity, granting
// in the order requests are made.
type res struct {
	name     string
	capacity int64
	device   int
	free     []time.Time // when each unit is next free
	truth    *ResourceTruth
}

func (g *gen) resource(name string, capacity int64, device int) *res {
	r := g.res[name]
	if r == nil {
		r = &res{name: name, capacity: capacity, device: device, free: make([]time.Time, capacity)}
		r.truth = &ResourceTruth{Capacity: capacity, Device: device}
		g.res[name] = r
		g.truth.Resources[name] = r.truth
	}
	return r
}

// grant is when w units are free, not before t.
func (r *res) grant(t time.Time, w int64) time.Time {
	free := slices.Clone(r.free)
	slices.SortFunc(free, time.Time.Compare)
	if g := free[w-1]; g.After(t) {
		return g
	}
	return t
}

// take books the w units free first until release, and returns the
// first one's index (the worker slot of a pool).
func (r *res) take(w int64, release time.Time) []int {
	idx := make([]int, len(r.free))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return r.free[a].Compare(r.free[b]) })
	idx = idx[:w]
	for _, i := range idx {
		r.free[i] = release
	}
	return idx
}

// need is one resource a stage acquires, in acquisition order: its worker
// pool, then its locks in the order of the pipeline's resources.
type need struct {
	r      *res
	weight int64
	// span marks a lock held past the stage, to the end of a later one.
	span bool
}

// stageSpec is one stage run to schedule.
type stageSpec struct {
	name, typ string
	device    int
	locks     []string // prooflane.locks
	needs     []need
	dur       time.Duration
	busy      bool
	attempt   int
	errMsg    string // a failed run
}

// partCtx is the partition being scheduled.
type partCtx struct {
	traceID trace.TraceID
	span    trace.SpanID
	job     string
	index   int
	device  int
	// spanLock is the span lock granted by an earlier stage, released
	// when the stage that ends the span ends.
	spanLock *booking
}

// booking is a grant whose hold span is written when it is released.
type booking struct {
	n      need
	stage  string
	device int
	slots  []int
	from   time.Time
	wait   time.Duration
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stage schedules one stage run that is ready at ready and returns its
// span's id and interval.
func (g *gen) stage(p *partCtx, s stageSpec, ready time.Time) (trace.SpanID, time.Time, time.Time) {
	t := ready
	grants := make([]time.Time, len(s.needs))
	for i, n := range s.needs {
		at := n.r.grant(t, n.weight)
		if at.After(t) {
			g.plan(&planned{scope: runtimeScope, name: "wait " + n.r.name, traceID: p.traceID, parent: p.span, start: t, end: at,
				attrs: []attribute.KeyValue{pl.KeyKind.String(pl.KindLockWait), pl.KeyPipeline.String(pipeline), pl.KeyJob.String(p.job),
					pl.KeyStage.String(s.name), pl.KeyPartition.Int(p.index), pl.KeyDevice.Int(s.device), pl.KeyResource.String(n.r.name),
					pl.KeyWeight.Int64(n.weight), pl.KeyWaitMS.Float64(ms(at.Sub(t)))}})
		}
		grants[i], t = at, at
	}
	start, end := t, t.Add(s.dur)
	worker := 0
	for i, n := range s.needs {
		prev := ready
		if i > 0 {
			prev = grants[i-1]
		}
		b := &booking{n: n, stage: s.name, device: s.device, from: grants[i], wait: grants[i].Sub(prev)}
		if n.span && s.errMsg == "" {
			b.slots = n.r.take(n.weight, time.Unix(1<<40, 0)) // released by a later stage
			p.spanLock = b
			continue
		}
		b.slots = n.r.take(n.weight, end)
		if i == 0 {
			worker = b.slots[0]
		}
		releasedBy := s.name
		if n.span {
			releasedBy = "" // a failed run gives its span lock back
		}
		g.release(p, b, end, releasedBy)
	}
	st := g.truth.Stages[s.name]
	if st == nil {
		st = &StageTruth{Type: s.typ}
		g.truth.Stages[s.name] = st
	}
	st.Durations = append(st.Durations, s.dur)
	st.Wait += time.Duration(ms(start.Sub(ready)) * float64(time.Millisecond))
	if s.errMsg != "" {
		st.Errors++
	}
	sp := g.plan(&planned{scope: runtimeScope, name: s.name, traceID: p.traceID, parent: p.span, start: start, end: end, errMsg: s.errMsg,
		attrs: []attribute.KeyValue{pl.KeyKind.String(pl.KindStage), pl.KeyPipeline.String(pipeline), pl.KeyJob.String(p.job),
			pl.KeyStage.String(s.name), pl.KeyStageType.String(s.typ), pl.KeyPartition.Int(p.index), pl.KeyDevice.Int(s.device),
			pl.KeyWorker.Int(worker), pl.KeyAttempt.Int(s.attempt), pl.KeyLocks.StringSlice(s.locks),
			pl.KeyWaitMS.Float64(ms(start.Sub(ready))), pl.KeyDeviceBusy.Bool(s.busy)},
		late: []attribute.KeyValue{pl.KeyHoldMS.Float64(ms(s.dur))}})
	return sp.id, start, end
}

// release ends a booking at end: its units free again, its hold span.
func (g *gen) release(p *partCtx, b *booking, end time.Time, releasedBy string) {
	for _, i := range b.slots {
		b.n.r.free[i] = end
	}
	r := b.n.r
	g.plan(&planned{scope: runtimeScope, name: "hold " + r.name, traceID: p.traceID, parent: p.span, start: b.from, end: end,
		attrs: []attribute.KeyValue{pl.KeyKind.String(pl.KindLockHold), pl.KeyPipeline.String(pipeline), pl.KeyJob.String(p.job),
			pl.KeyStage.String(b.stage), pl.KeyPartition.Int(p.index), pl.KeyDevice.Int(b.device), pl.KeyResource.String(r.name),
			pl.KeyWeight.Int64(b.n.weight), pl.KeyCapacity.Int64(r.capacity), pl.KeyWaitMS.Float64(ms(b.wait)),
			pl.KeyReleasedBy.String(releasedBy), pl.KeyResourceDevice.Int(r.device)}})
	rt := r.truth
	rt.Holds++
	rt.HoldTotal += end.Sub(b.from)
	if w := time.Duration(ms(b.wait) * float64(time.Millisecond)); w > 0 {
		rt.Waits++
		rt.WaitTotal += w
		rt.WaitMax = max(rt.WaitMax, w)
	}
}

// job schedules one job of cfg.Partitions partitions.
func (g *gen) job() {
	start := g.nextStart()
	g.lastStart = start
	n := len(g.jobEnds) + 1
	var traceID trace.TraceID
	for !traceID.IsValid() {
		for i := range traceID {
			traceID[i] = byte(g.rng.Uint32())
		}
	}
	jobSpan := g.spanID()
	id := fmt.Sprintf("job-%d", n)
	end := start
	for i := range g.cfg.Partitions {
		p := &partCtx{traceID: traceID, span: g.spanID(), job: id, index: i, device: i % g.cfg.Devices}
		pend := g.partition(p, start)
		g.plan(&planned{scope: runtimeScope, name: "partition " + fmt.Sprint(i), traceID: traceID, id: p.span, parent: jobSpan,
			start: start, end: pend, attrs: []attribute.KeyValue{pl.KeyKind.String(pl.KindPartition), pl.KeyPipeline.String(pipeline),
				pl.KeyJob.String(id), pl.KeyPartition.Int(i)},
			late: []attribute.KeyValue{pl.KeyDevice.Int(p.device)}})
		end = maxTime(end, pend)
		g.truth.Partitions++
	}
	end = end.Add(50 * time.Microsecond)
	g.plan(&planned{scope: runtimeScope, name: "job " + pipeline, traceID: traceID, id: jobSpan, start: start, end: end,
		attrs: []attribute.KeyValue{pl.KeyKind.String(pl.KindJob), pl.KeyPipeline.String(pipeline), pl.KeyJob.String(id),
			pl.KeyPartitions.Int(g.cfg.Partitions)}})
	g.truth.Jobs++
	g.jobEnds = append(g.jobEnds, end)
}

// partition schedules the six stages of one partition, ready at ready,
// and returns when the partition ends.
func (g *gen) partition(p *partCtx, ready time.Time) time.Time {
	d := p.device
	cpu := g.resource("cpu_bandwidth", 8, -1)
	mem := g.resource(fmt.Sprintf("gpu.%d.mem", d), 2, d)
	compute := g.resource(fmt.Sprintf("gpu.%d.compute", d), 1, d)
	workers := map[string]int64{"synthesize": 4, "prep_msm": 2, "b_g2_msm": 2, "epilogue": 2}
	pool := func(stage string, device int) *res {
		if device < 0 {
			return g.resource("workers."+stage, workers[stage], -1)
		}
		return g.resource(fmt.Sprintf("workers.%s.%d", stage, device), 2, device)
	}
	_, _, synthEnd := g.stage(p, stageSpec{name: "synthesize", typ: "sim.sleep", device: -1, locks: []string{cpu.name},
		needs: []need{{r: pool("synthesize", -1), weight: 1}, {r: cpu, weight: 2}}, dur: g.jitter(200*time.Millisecond, 20*time.Millisecond), attempt: 1}, ready)
	_, _, prepEnd := g.stage(p, stageSpec{name: "prep_msm", typ: "sim.sleep", device: -1, locks: []string{cpu.name},
		needs: []need{{r: pool("prep_msm", -1), weight: 1}, {r: cpu, weight: 1}}, dur: g.jitter(60*time.Millisecond, 5*time.Millisecond), attempt: 1}, synthEnd)
	_, _, bEnd := g.stage(p, stageSpec{name: "b_g2_msm", typ: "sim.sleep", device: -1, locks: []string{},
		needs: []need{{r: pool("b_g2_msm", -1), weight: 1}}, dur: g.jitter(60*time.Millisecond, 5*time.Millisecond), attempt: 1}, prepEnd)
	upload := stageSpec{name: "vram_stage", typ: "sim.device", device: d, locks: []string{mem.name},
		needs: []need{{r: pool("vram_stage", d), weight: 1}, {r: mem, weight: 1, span: true}}, attempt: 1}
	vramReady := prepEnd
	for {
		g.uploads++
		u := upload
		u.dur = g.jitter(10*time.Millisecond, 0)
		if g.cfg.FailEvery > 0 && g.uploads%g.cfg.FailEvery == 0 && u.attempt == 1 {
			u.dur, u.errMsg = 3*time.Millisecond, fmt.Sprintf("device %d: out of memory: 2 partitions resident", d)
		}
		_, _, end := g.stage(p, u, vramReady)
		if u.errMsg == "" {
			vramReady = end
			break
		}
		upload.attempt++
		vramReady = end.Add(50 * time.Millisecond) // the retry's backoff
	}
	gpuSpan, gpuStart, gpuEnd := g.stage(p, stageSpec{name: "gpu_compute", typ: "sim.device", device: d, locks: []string{compute.name, mem.name},
		needs: []need{{r: pool("gpu_compute", d), weight: 1}, {r: compute, weight: 1}}, dur: g.jitter(90*time.Millisecond, 10*time.Millisecond),
		busy: true, attempt: 1}, vramReady)
	g.truth.Busy[d] += gpuEnd.Sub(gpuStart)
	g.release(p, p.spanLock, gpuEnd, "gpu_compute")
	g.kernels(p, gpuSpan, gpuStart, gpuEnd)
	_, _, epiEnd := g.stage(p, stageSpec{name: "epilogue", typ: "sim.sleep", device: d, locks: []string{},
		needs: []need{{r: pool("epilogue", -1), weight: 1}}, dur: g.jitter(5*time.Millisecond, 0), attempt: 1}, maxTime(bEnd, gpuEnd))
	return epiEnd.Add(20 * time.Microsecond)
}

// kernels schedules the device operations of a gpu_compute run: an MSM,
// then an NTT.
func (g *gen) kernels(p *partCtx, parent trace.SpanID, start, end time.Time) {
	d := end.Sub(start)
	at := func(f float64) time.Time { return start.Add(time.Duration(f * float64(d)).Round(time.Microsecond)) }
	for _, k := range []struct {
		name     string
		from, to float64
	}{{"msm_a", 0.05, 0.6}, {"ntt_h", 0.6, 0.9}} {
		from, to := at(k.from), at(k.to)
		gpu := to.Sub(from) - 20*time.Microsecond
		g.plan(&planned{scope: kernelScope, name: k.name, traceID: p.traceID, parent: parent, start: from, end: to,
			attrs: []attribute.KeyValue{pl.KeyKind.String(pl.KindKernel), pl.KeyKernel.String(k.name), pl.KeyDevice.Int(p.device)},
			late:  []attribute.KeyValue{pl.KeyGPUTimeMS.Float64(ms(gpu)), pl.KeyGPUTimeSource.String("device")}})
		kt := g.truth.Kernels[k.name]
		if kt == nil {
			kt = &KernelTruth{}
			g.truth.Kernels[k.name] = kt
		}
		kt.Count++
		kt.Total += to.Sub(from)
		kt.GPUTime += time.Duration(ms(gpu) * float64(time.Millisecond))
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// spanHeap orders planned spans by end, then by when they were planned.
type spanHeap []*planned

func (h spanHeap) Len() int { return len(h) }
func (h spanHeap) Less(i, j int) bool {
	if c := h[i].end.Compare(h[j].end); c != 0 {
		return c < 0
	}
	return h[i].seq < h[j].seq
}
func (h spanHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *spanHeap) Push(x any)   { *h = append(*h, x.(*planned)) }
func (h *spanHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *spanHeap) push(p *planned) { heap.Push(h, p) }
func (h *spanHeap) pop() *planned   { return heap.Pop(h).(*planned) }
func (h spanHeap) peek() *planned   { return h[0] }
