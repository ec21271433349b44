package service

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/resources"
	"github.com/prooflane/prooflane/runtime"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// WorkerConfig configures a worker.
type WorkerConfig struct {
	// Conn is the worker's connection to NATS; the caller closes it
	// after Run has returned.
	Conn *nats.Conn
	// Name names the worker in job records (default: a random one).
	Name string
	// Runner runs the jobs; the worker does not close it.
	Runner Runner
	// Slots is the number of jobs run at once (default 1).
	Slots int
	// Budget is the host memory in bytes the admitted jobs' and key
	// setups' estimates may add up to: 0 (the default) is the machine's
	// memory (admission.Host: MemTotal, or PROOFLANE_HOST_MEMORY);
	// NoBudget is none. A job or a Preload whose estimate is above the
	// whole budget fails at once (it could never run), before anything
	// is allocated; one above what is left waits.
	Budget uint64
	// DeviceBudget is the same for each device's memory, against the
	// jobs' device estimates (jobs are taken to spread over the
	// devices); 0 or NoBudget is none (the command's default is the
	// devices' memory).
	DeviceBudget uint64
	// MaxDeliveries fails a job handed to workers this many times
	// without an end (default 5): a job that kills its workers.
	MaxDeliveries int
	// Queue configures the queue when the worker is the first to use it.
	Queue QueueConfig
	// Secret is the queue's secret: the worker authenticates each result
	// it stores with it.
	Secret Secret
	// Log receives one line per job and the key setup messages.
	Log io.Writer
	// Metrics, when set, count the worker's jobs.
	Metrics *Metrics
}

// NoBudget is a WorkerConfig budget that admits any estimate.
const NoBudget = ^uint64(0)

// Worker takes jobs from the queue, highest lane first, and runs them.
type Worker struct {
	cfg WorkerConfig
	st  *store
	// budget and deviceBudget are the budgets in force (Bytes 0: none),
	// named for refusals.
	budget, deviceBudget admission.Budget
	// preloads cancel the Preloads running, by their control id.
	preloads map[string]context.CancelFunc
	// mem admits jobs against the budget: its one resource is the
	// budget's bytes, waiters served by lane, then in arrival order.
	mem   *resources.Set
	slots chan struct{}
	wake  chan struct{}
	// full is poked with wake, for the check of a worker whose slots
	// are all taken (handBack).
	full chan struct{}
	// admitting are the jobs waiting for memory, by id.
	admitting map[string]*waiting

	mu       sync.Mutex
	running  map[string]context.CancelFunc
	admitted uint64
	runningN int
	peak     int
	waits    uint64
	seq      atomic.Uint64
	wg       sync.WaitGroup
}

// NewWorkerRetrying is NewWorker tried again every second while the
// queue cannot be reached (a worker started before its server), until
// ctx is done.
func NewWorkerRetrying(ctx context.Context, cfg WorkerConfig) (*Worker, error) {
	for {
		w, err := NewWorker(ctx, cfg)
		if err == nil || cfg.Runner == nil || cfg.Conn == nil {
			return w, err
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "worker: queue not reachable yet: %v\n", err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("worker: queue not reachable: %w", err)
		case <-time.After(time.Second):
		}
	}
}

// NewWorker binds a worker to the queue on cfg.Conn (creating the queue
// when it is not there yet).
func NewWorker(ctx context.Context, cfg WorkerConfig) (*Worker, error) {
	nc := cfg.Conn
	if nc == nil {
		return nil, errors.New("worker: no NATS connection")
	}
	if cfg.Runner == nil {
		return nil, errors.New("worker: no runner")
	}
	if cfg.Slots <= 0 {
		cfg.Slots = 1
	}
	if cfg.MaxDeliveries <= 0 {
		cfg.MaxDeliveries = 5
	}
	if cfg.Name == "" {
		cfg.Name = "w" + newJobID("")[1:9]
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	st, err := openStore(ctx, nc, cfg.Queue, cfg.Secret)
	if err != nil {
		return nil, err
	}
	budget, deviceBudget, err := budgets(cfg)
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, st: st, slots: make(chan struct{}, cfg.Slots), wake: make(chan struct{}, 1), full: make(chan struct{}, 1),
		running: map[string]context.CancelFunc{}, admitting: map[string]*waiting{}, preloads: map[string]context.CancelFunc{},
		budget: budget, deviceBudget: deviceBudget}
	// No budget: its resource has room for any estimate.
	decls := []resources.Decl{{Name: "host_memory", Capacity: 1 << 62}, {Name: "device_memory", Capacity: 1 << 62}}
	if budget.Bytes > 0 {
		decls[0].Capacity = int64(budget.Bytes)
	}
	if deviceBudget.Bytes > 0 {
		decls[1].Capacity = int64(deviceBudget.Bytes)
	}
	if budget.Bytes > 0 || deviceBudget.Bytes > 0 {
		if w.mem, err = resources.NewSet(decls, 0); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// budgets resolves cfg's budgets: the host's default is the machine's
// memory (admission.Host), NoBudget is none.
func budgets(cfg WorkerConfig) (host, device admission.Budget, err error) {
	for _, b := range []uint64{cfg.Budget, cfg.DeviceBudget} {
		if b > 1<<62 && b != NoBudget {
			return host, device, fmt.Errorf("worker %q: budget of %d bytes: above the limit of 2^62 (NoBudget for none)", cfg.Name, b)
		}
	}
	if cfg.DeviceBudget != NoBudget && cfg.DeviceBudget > 0 {
		device = admission.Budget{Bytes: cfg.DeviceBudget, Of: fmt.Sprintf("worker %q's device budget", cfg.Name)}
	}
	switch cfg.Budget {
	case NoBudget:
	case 0:
		host, _, err = admission.Host()
		if errors.Is(err, admission.ErrUnknown) {
			fmt.Fprintf(cfg.Log, "worker %s: no budget: %v (give one)\n", cfg.Name, err)
			return admission.Budget{}, device, nil
		}
		if err != nil {
			return host, device, fmt.Errorf("worker %q: its default budget, the machine's memory: %w", cfg.Name, err)
		}
		host.Of = fmt.Sprintf("worker %q's host %s", cfg.Name, cmp.Or(host.Of, "memory"))
		if host.Bytes > 1<<62 {
			host.Bytes = 1 << 62
		}
	default:
		host = admission.Budget{Bytes: cfg.Budget, Of: fmt.Sprintf("worker %q's budget", cfg.Name)}
	}
	return host, device, nil
}

// Name is the worker's name.
func (w *Worker) Name() string { return w.cfg.Name }

// Run takes and runs jobs until ctx is done; the jobs it has not finished
// then go back to the queue for another worker.
func (w *Worker) Run(ctx context.Context) error {
	nc := w.st.nc
	notify, err := nc.Subscribe(notifySubject, func(*nats.Msg) { w.poke() })
	if err != nil {
		return err
	}
	defer notify.Unsubscribe()
	cancels, err := nc.Subscribe(cancelSubject, func(m *nats.Msg) {
		w.mu.Lock()
		cancel := w.running[string(m.Data)]
		w.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	})
	if err != nil {
		return err
	}
	defer cancels.Unsubscribe()
	ctl, err := nc.Subscribe(controlSubject, func(m *nats.Msg) { go w.control(ctx, m) })
	if err != nil {
		return err
	}
	defer ctl.Unsubscribe()
	reportDone := make(chan struct{})
	go func() {
		defer close(reportDone)
		t := time.NewTicker(workerTTL / 5)
		defer t.Stop()
		for {
			w.report(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	defer func() {
		w.wg.Wait()
		<-reportDone
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = w.st.workers.Delete(dctx, w.cfg.Name)
	}()
	for {
		if err := w.takeSlot(ctx); err != nil {
			return nil
		}
		msg, err := w.next(ctx)
		if err != nil {
			<-w.slots
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer func() { <-w.slots }()
			w.handle(ctx, msg)
		}()
	}
}

func (w *Worker) poke() {
	for _, c := range []chan struct{}{w.wake, w.full} {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// waiting is a job waiting for memory.
type waiting struct {
	lane     pb.Priority
	handBack context.CancelCauseFunc
}

// errHandedBack cancels the admission wait of a job handed back to the
// queue for a job of a higher lane.
var errHandedBack = errors.New("handed back to the queue for a job of a higher lane")

// takeSlot waits for a free slot. Meanwhile, on every submit notice (and
// every second), a job of a lower lane waiting for memory is handed back
// to the queue when a higher lane has work: its slot goes to that work,
// which then waits only for the jobs running.
func (w *Worker) takeSlot(ctx context.Context) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case w.slots <- struct{}{}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-w.full:
		case <-t.C:
		}
		w.handBack(ctx)
	}
}

// handBack hands back the lowest-lane admitting job when a higher lane
// has jobs queued.
func (w *Worker) handBack(ctx context.Context) {
	w.mu.Lock()
	var low *waiting
	for _, a := range w.admitting {
		if low == nil || a.lane < low.lane {
			low = a
		}
	}
	w.mu.Unlock()
	if low == nil {
		return
	}
	for _, l := range Lanes {
		if l <= low.lane {
			return
		}
		info, err := w.st.lanes[l].Info(ctx)
		if err == nil && info.NumPending > 0 {
			low.handBack(errHandedBack)
			return
		}
	}
}

// next returns the next job's message, from the highest lane that has
// one, waiting for a submit's notice (or a second, for work published
// while this worker was not listening).
func (w *Worker) next(ctx context.Context) (jetstream.Msg, error) {
	for {
		for _, l := range Lanes {
			batch, err := w.st.lanes[l].FetchNoWait(1)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				fmt.Fprintf(w.cfg.Log, "worker %s: lane %s: %v\n", w.cfg.Name, LaneName(l), err)
				break
			}
			for m := range batch.Messages() {
				return m, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w.wake:
		case <-time.After(time.Second):
		}
	}
}

// handle runs one job's message to its end: the job done, failed or
// cancelled (message acknowledged), or the worker stopping (message
// handed back).
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	id := string(msg.Data())
	// Records are written with a context of their own, so that a worker
	// told to stop still hands its job back cleanly; each operation on
	// the queue's state is bounded on its own (opTimeout), however long
	// the job runs.
	bg := context.Background()
	logf := func(format string, args ...any) {
		fmt.Fprintf(w.cfg.Log, "worker %s: job %s: %s\n", w.cfg.Name, id, fmt.Sprintf(format, args...))
	}
	deliveries := 1
	if md, err := msg.Metadata(); err == nil {
		deliveries = int(md.NumDelivered)
	}
	// Whatever could not be written to the queue's state (it stayed
	// unreachable through retry's attempts) leaves the job to a later
	// delivery: never acknowledged, so never lost.
	retryLater := func(err error) {
		logf("%v; handed back", err)
		_ = msg.NakWithDelay(time.Second)
	}
	r, _, err := w.st.get(bg, id)
	if errors.Is(err, errNoJob) {
		logf("%v; dropped", err)
		_ = msg.Term()
		return
	}
	if err != nil {
		retryLater(err)
		return
	}
	if r.terminal() {
		_ = msg.Ack()
		return
	}
	fail := func(cause error) {
		logf("failed: %v", cause)
		_, err := w.st.update(bg, id, func(r *record) bool {
			if r.terminal() {
				return false
			}
			r.State, r.Error, r.Finished = pb.JobState_JOB_STATE_FAILED, cause.Error(), time.Now().UnixMilli()
			return true
		})
		if err != nil {
			retryLater(err)
			return
		}
		w.cfg.Metrics.job(pb.JobState_JOB_STATE_FAILED)
		_ = msg.Ack()
	}
	// A worker that stored the result and died before acknowledging. (A
	// result that fails its integrity check is not one: the job runs,
	// and its result replaces it.)
	if res, _, err := w.st.result(bg, r); err == nil && res != nil {
		if err := w.finish(bg, id, res); err != nil {
			retryLater(err)
			return
		}
		_ = msg.Ack()
		return
	}
	if deliveries-r.HandedBack > w.cfg.MaxDeliveries {
		fail(fmt.Errorf("job %q: handed to workers %d times without an end (limit %d): a worker died on each", id, deliveries-1-r.HandedBack, w.cfg.MaxDeliveries))
		return
	}
	if r.Deadline > 0 && time.Now().UnixMilli() > r.Deadline {
		fail(fmt.Errorf("job %q: deadline %s passed before it started", id, time.UnixMilli(r.Deadline).UTC().Format(time.RFC3339Nano)))
		return
	}
	spec, err := w.st.spec(bg, r)
	if err != nil {
		fail(err)
		return
	}
	spec.Priority, spec.Inputs = LanePriority(r.Priority), w.st
	est, err := w.cfg.Runner.Estimate(spec)
	if err != nil {
		fail(fmt.Errorf("job %q: %w", id, err))
		return
	}
	if err := w.fits(fmt.Sprintf("job %q", id), est); err != nil {
		fail(err)
		return
	}

	jctx, cancel := context.WithCancel(ctx)
	if r.Deadline > 0 {
		cancel()
		jctx, cancel = context.WithDeadline(ctx, time.UnixMilli(r.Deadline))
	}
	defer cancel()
	var cancelled atomic.Bool
	w.mu.Lock()
	w.running[id] = func() { cancelled.Store(true); cancel() }
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.running, id)
		w.mu.Unlock()
	}()
	// Heartbeats keep the job this worker's while it waits and runs.
	var done atomic.Int64
	hbStop := make(chan struct{})
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		every := max(w.st.ackWait/3, 100*time.Millisecond)
		t := time.NewTicker(every)
		defer t.Stop()
		last := int64(0)
		for {
			select {
			case <-hbStop:
				return
			case <-t.C:
				_ = msg.InProgress()
				if d := done.Load(); d != last {
					last = d
					_, _ = w.st.update(bg, id, func(r *record) bool {
						if r.terminal() {
							return false
						}
						r.Done = int(d)
						return true
					})
				}
			}
		}
	}()
	defer func() { close(hbStop); <-hbDone }()

	// The record says the job is this worker's (it may have been
	// cancelled since it was read).
	r, err = w.st.update(bg, id, func(r *record) bool {
		if r.terminal() {
			return false
		}
		r.State, r.Worker, r.Deliveries, r.Estimate, r.DeviceEstimate, r.Error = pb.JobState_JOB_STATE_ADMITTING, w.cfg.Name, deliveries, est.Host, est.Device, ""
		return true
	})
	if err != nil {
		retryLater(err)
		return
	}
	if r.terminal() {
		_ = msg.Ack()
		return
	}
	w.cfg.Metrics.activeDelta(pb.JobState_JOB_STATE_ADMITTING, 1)
	admitting := true
	defer func() {
		if admitting {
			w.cfg.Metrics.activeDelta(pb.JobState_JOB_STATE_ADMITTING, -1)
		}
	}()
	if w.mem != nil {
		claim := []resources.Claim{{ID: 0, Weight: max(int64(est.Host), 1)}}
		if est.Device > 0 {
			claim = append(claim, resources.Claim{ID: 1, Weight: int64(est.Device)})
		}
		g, ok, err := w.mem.TryAcquire(claim)
		if err == nil && !ok {
			w.mu.Lock()
			w.waits++
			actx, handBack := context.WithCancelCause(jctx)
			w.admitting[id] = &waiting{lane: r.Priority, handBack: handBack}
			w.mu.Unlock()
			w.poke() // a higher lane's job may be waiting for this slot already
			g, err = w.mem.Acquire(actx, claim, int(r.Priority), nil)
			w.mu.Lock()
			delete(w.admitting, id)
			w.mu.Unlock()
			handedBack := context.Cause(actx) == errHandedBack
			handBack(nil)
			if err != nil && handedBack && jctx.Err() == nil {
				w.handBackJob(bg, msg, id)
				return
			}
		}
		if err != nil {
			w.endCancelled(bg, msg, id, ctx, &cancelled, err)
			return
		}
		defer g.Release()
	}
	w.mu.Lock()
	w.admitted += est.Host
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.admitted -= est.Host
		w.mu.Unlock()
	}()
	seq := w.seq.Add(1)
	r, err = w.st.update(bg, id, func(r *record) bool {
		if r.terminal() {
			return false
		}
		r.State, r.Started, r.StartSeq = pb.JobState_JOB_STATE_RUNNING, time.Now().UnixMilli(), seq
		return true
	})
	if err != nil {
		retryLater(err)
		return
	}
	if r.terminal() {
		_ = msg.Ack()
		return
	}
	w.cfg.Metrics.activeDelta(pb.JobState_JOB_STATE_ADMITTING, -1)
	admitting = false
	w.cfg.Metrics.activeDelta(pb.JobState_JOB_STATE_RUNNING, 1)
	w.countRunning(+1)
	output, err := w.cfg.Runner.Run(jctx, spec, func(ev runtime.Event) {
		if ev.Kind == runtime.PartitionDone {
			done.Add(1)
		}
	})
	w.countRunning(-1)
	w.cfg.Metrics.activeDelta(pb.JobState_JOB_STATE_RUNNING, -1)
	if err != nil {
		if jctx.Err() != nil {
			w.endCancelled(bg, msg, id, ctx, &cancelled, err)
			return
		}
		fail(err)
		return
	}
	res, err := w.st.storeResult(bg, r, w.cfg.Name, output)
	if err != nil {
		// Not stored: another worker will run it again.
		retryLater(err)
		return
	}
	if err := w.finish(bg, id, res); err != nil {
		// Stored, not marked done: the next delivery finds the result.
		retryLater(err)
		return
	}
	_ = msg.Ack()
	if res.Worker == w.cfg.Name {
		w.cfg.Metrics.job(pb.JobState_JOB_STATE_DONE)
		w.cfg.Metrics.jobLatency(r.Submitted)
	}
	logf("done, %d proofs", len(res.Proofs))
}

// fits refuses what (a job, a Preload) when its estimate is above the
// worker's whole budget of host or device memory: it could never run.
func (w *Worker) fits(what string, est Estimate) error {
	if err := admission.Check(admission.Refusal{What: what, Memory: "host memory"}, est.Host, w.budget); err != nil {
		return err
	}
	return admission.Check(admission.Refusal{What: what, Memory: "each device's memory"}, est.Device, w.deviceBudget)
}

// endCancelled ends a job whose run stopped early: cancelled by the
// client (acknowledged), past its deadline (failed), or the worker
// stopping (handed back to the queue).
func (w *Worker) endCancelled(bg context.Context, msg jetstream.Msg, id string, worker context.Context, cancelled *atomic.Bool, cause error) {
	switch {
	case cancelled.Load():
		_ = msg.Ack()
	case worker.Err() != nil:
		_, _ = w.st.update(bg, id, func(r *record) bool {
			if r.terminal() {
				return false
			}
			r.State, r.Worker = pb.JobState_JOB_STATE_QUEUED, ""
			return true
		})
		_ = msg.Nak()
	default:
		_, err := w.st.update(bg, id, func(r *record) bool {
			if r.terminal() {
				return false
			}
			r.State, r.Error, r.Finished = pb.JobState_JOB_STATE_FAILED, fmt.Sprintf("job %q: %v", id, cause), time.Now().UnixMilli()
			return true
		})
		if err != nil { // not recorded: a later delivery ends it
			_ = msg.NakWithDelay(time.Second)
			return
		}
		_ = msg.Ack()
	}
}

// handBackJob puts an admitting job back on its lane (counting it, so
// that the limit on deliveries counts only the deliveries that ended
// without an end).
func (w *Worker) handBackJob(bg context.Context, msg jetstream.Msg, id string) {
	_, _ = w.st.update(bg, id, func(r *record) bool {
		if r.terminal() {
			return false
		}
		r.State, r.Worker, r.HandedBack = pb.JobState_JOB_STATE_QUEUED, "", r.HandedBack+1
		return true
	})
	_ = msg.Nak()
	fmt.Fprintf(w.cfg.Log, "worker %s: job %s: %v\n", w.cfg.Name, id, errHandedBack)
}

// finish marks a job done with the result that stands.
func (w *Worker) finish(ctx context.Context, id string, res *result) error {
	_, err := w.st.update(ctx, id, func(r *record) bool {
		if r.terminal() {
			return false
		}
		r.State, r.Done, r.Finished, r.Worker = pb.JobState_JOB_STATE_DONE, len(res.Proofs), time.Now().UnixMilli(), res.Worker
		if r.Done == 0 {
			r.Done = r.Spec.Partitions
		}
		return true
	})
	return err
}

func (w *Worker) countRunning(d int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runningN += d
	w.peak = max(w.peak, w.runningN)
}

// report publishes the worker's state for List and the metrics.
func (w *Worker) report(ctx context.Context) {
	w.mu.Lock()
	rep := workerReport{
		Name: w.cfg.Name, Backend: w.cfg.Runner.BackendName(), Running: w.runningN, Slots: w.cfg.Slots,
		Budget: w.budget.Bytes, Admitted: w.admitted, PeakRunning: w.peak, AdmissionWaits: w.waits,
		Keys: w.cfg.Runner.Keys(), Seen: time.Now().UnixMilli(),
	}
	w.mu.Unlock()
	b, err := json.Marshal(rep)
	if err != nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _ = w.st.workers.Put(rctx, w.cfg.Name, b)
}

// control answers a Preload or Evict, or cancels a Preload whose caller
// went away.
func (w *Worker) control(ctx context.Context, m *nats.Msg) {
	var c control
	reply := controlReply{Worker: w.cfg.Name}
	if err := json.Unmarshal(m.Data, &c); err != nil {
		reply.Error = fmt.Sprintf("bad control message: %v", err)
	} else {
		switch c.Op {
		case "cancel":
			w.mu.Lock()
			cancel := w.preloads[c.ID]
			w.mu.Unlock()
			if cancel != nil {
				cancel()
			}
			return // nobody waits for an answer
		case "preload":
			c.Spec.Inputs = w.st
			if err := w.preload(ctx, c); err != nil {
				reply.Error = err.Error()
			}
		case "evict":
			if !w.cfg.Runner.Evict(c.Spec) {
				reply.Error = fmt.Sprintf("key %s/%d not loaded", c.Spec.Circuit, c.Spec.Size)
			}
		default:
			reply.Error = fmt.Sprintf("unknown control op %q", c.Op)
		}
	}
	w.report(ctx)
	b, _ := json.Marshal(reply)
	_ = m.Respond(b)
}

// preload loads (or makes) the key c names once its estimate fits the
// budget: refused at once above the whole budget, waiting while jobs hold
// the memory, holding it while it runs. A "cancel" for c's id stops it,
// and a setup with it.
func (w *Worker) preload(ctx context.Context, c control) error {
	est, err := w.cfg.Runner.EstimateKey(c.Spec)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("preload of %s key %s/%d", c.Spec.Family, c.Spec.Circuit, c.Spec.Size)
	if err := w.fits(what, est); err != nil {
		return err
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.ID != "" {
		w.mu.Lock()
		w.preloads[c.ID] = cancel
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			delete(w.preloads, c.ID)
			w.mu.Unlock()
		}()
	}
	if w.mem != nil {
		claim := []resources.Claim{{ID: 0, Weight: max(int64(est.Host), 1)}}
		if est.Device > 0 {
			claim = append(claim, resources.Claim{ID: 1, Weight: int64(est.Device)})
		}
		g, err := w.mem.Acquire(pctx, claim, int(pb.Priority_PRIORITY_CRITICAL), nil)
		if err != nil {
			return fmt.Errorf("%s: waiting for memory: %w", what, err)
		}
		defer g.Release()
	}
	return w.cfg.Runner.Preload(pctx, c.Spec)
}
