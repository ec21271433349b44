package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	goruntime "runtime"
	"slices"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats-server/v2/server"
	"google.golang.org/protobuf/proto"

	"github.com/prooflane/prooflane/device/cpu"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// Local is a whole service in this process: embedded NATS with its store
// in a directory, the API on a loopback port, and one worker on the CPU
// backend. The load test and the examples run on it.
type Local struct {
	// URL is the API's base URL.
	URL string
	// Client talks to the API.
	Client prooflanev1connect.ProverServiceClient

	ns     *server.Server
	hs     *http.Server
	runner *EngineRunner
	be     interface{ Close() error }
	cancel context.CancelFunc
	done   chan error
	conns  []interface{ Close() }
}

// LocalConfig configures a Local service.
type LocalConfig struct {
	// DataDir holds the queue; KeysDir the key cache.
	DataDir, KeysDir string
	// Slots is the jobs the worker runs at once (default 1).
	Slots int
	// Metrics, when set, are served on /metrics.
	Metrics *Metrics
	// Log receives the worker's lines (default: none).
	Log io.Writer
}

// StartLocal starts a Local service.
func StartLocal(ctx context.Context, cfg LocalConfig) (*Local, error) {
	secret, err := NewSecret()
	if err != nil {
		return nil, err
	}
	ns, err := StartNATS(NATSConfig{DataDir: cfg.DataDir, Port: -1, Secret: secret})
	if err != nil {
		return nil, err
	}
	l := &Local{ns: ns, done: make(chan error, 1)}
	fail := func(err error) (*Local, error) {
		l.Close()
		return nil, err
	}
	nc, err := Connect("", ns, secret, "local-server")
	if err != nil {
		return fail(err)
	}
	l.conns = append(l.conns, nc)
	srv, err := NewServer(ctx, nc, ServerConfig{Metrics: cfg.Metrics, Secret: secret})
	if err != nil {
		return fail(err)
	}
	be, err := cpu.New(1)
	if err != nil {
		return fail(err)
	}
	l.be = be
	l.runner = &EngineRunner{KeysDir: cfg.KeysDir, Backend: be, Log: cfg.Log, Metrics: cfg.Metrics}
	cfg.Metrics.ObserveResident(l.runner.ResidentBytes)
	wnc, err := Connect("", ns, secret, "local-worker")
	if err != nil {
		return fail(err)
	}
	l.conns = append(l.conns, wnc)
	w, err := NewWorker(ctx, WorkerConfig{Conn: wnc, Runner: l.runner, Slots: cfg.Slots, Log: cfg.Log, Metrics: cfg.Metrics, Name: "local", Secret: secret})
	if err != nil {
		return fail(err)
	}
	wctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	go func() { l.done <- w.Run(wctx) }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	l.hs = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go l.hs.Serve(ln)
	l.URL = "http://" + ln.Addr().String()
	l.Client = prooflanev1connect.NewProverServiceClient(http.DefaultClient, l.URL)
	return l, nil
}

// Close stops the worker (its jobs go back to the queue), the API and
// NATS.
func (l *Local) Close() error {
	var errs []error
	if l.hs != nil {
		errs = append(errs, l.hs.Close())
	}
	if l.cancel != nil {
		l.cancel()
		errs = append(errs, <-l.done)
	}
	if l.runner != nil {
		errs = append(errs, l.runner.Close())
	}
	if l.be != nil {
		errs = append(errs, l.be.Close())
	}
	for _, c := range l.conns {
		c.Close()
	}
	l.ns.Shutdown()
	l.ns.WaitForShutdown()
	return errors.Join(errs...)
}

// LoadConfig configures a load test.
type LoadConfig struct {
	// Jobs to submit, at most Concurrency in flight (submitted, not yet
	// awaited to their proofs).
	Jobs, Concurrency int
	// Spec is each job's spec: a built-in circuit's, job i seeded
	// Spec.Seed+i; or an added circuit's (CircuitId), job i proving
	// Witnesses(i).
	Spec      *pb.JobSpec
	Witnesses func(i int) []*pb.Witness
	// Priorities, when set, are the jobs' lanes in turn: job i's is
	// Priorities[i%len(Priorities)]; none: normal.
	Priorities []pb.Priority
	// Verify, when set, checks each job's proofs (outside the latency).
	Verify func(spec *pb.JobSpec, proofs []*pb.Proof) error
}

// LoadReport is what a load test measured.
type LoadReport struct {
	Jobs    int           `json:"jobs"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Submit to proofs received, per job.
	P50           time.Duration `json:"p50_ns"`
	P99           time.Duration `json:"p99_ns"`
	Max           time.Duration `json:"max_ns"`
	JobsPerSecond float64       `json:"jobs_per_s"`
	// This process's goroutines, and its heap in use after a GC.
	GoroutinesBefore    int    `json:"goroutines_before"`
	GoroutinesAfter     int    `json:"goroutines_after"`
	HeapBefore          uint64 `json:"heap_before_bytes"`
	HeapAfter           uint64 `json:"heap_after_bytes"`
	ProofBytesPerJobAvg int    `json:"proof_bytes_per_job"`
	// IDs are the jobs' ids, job i's at i.
	IDs []string `json:"-"`
	// Lanes are the latencies of each lane's jobs, highest lane first,
	// when the jobs went to more than one.
	Lanes []LaneLatency `json:"lanes,omitempty"`
}

// LaneLatency is the submit-to-proofs latency of one lane's jobs.
type LaneLatency struct {
	Lane string        `json:"lane"`
	Jobs int           `json:"jobs"`
	P50  time.Duration `json:"p50_ns"`
	P99  time.Duration `json:"p99_ns"`
}

// percentiles returns the median and 99th percentile of lat, sorting it.
func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(lat)
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
}

// laneLatencies splits the jobs' latencies by lane: job i's lane is
// prios[i%len(prios)].
func laneLatencies(lat []time.Duration, prios []pb.Priority) []LaneLatency {
	if len(slices.Compact(slices.Clone(prios))) < 2 {
		return nil
	}
	var out []LaneLatency
	for _, l := range Lanes {
		var mine []time.Duration
		for i, d := range lat {
			if prios[i%len(prios)] == l {
				mine = append(mine, d)
			}
		}
		if len(mine) > 0 {
			p50, p99 := percentiles(mine)
			out = append(out, LaneLatency{Lane: LaneName(l), Jobs: len(mine), P50: p50, P99: p99})
		}
	}
	return out
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// LoadTest submits cfg.Jobs jobs through cl and awaits each to its proofs,
// measuring each job's submit-to-proofs latency; the goroutine count and
// heap are this process's (run it against a Local service to see the
// service's own).
func LoadTest(ctx context.Context, cl prooflanev1connect.ProverServiceClient, cfg LoadConfig) (*LoadReport, error) {
	if cfg.Jobs < 1 || cfg.Concurrency < 1 {
		return nil, fmt.Errorf("load test: %d jobs at %d at once: want at least 1 of each", cfg.Jobs, cfg.Concurrency)
	}
	rep := &LoadReport{Jobs: cfg.Jobs, GoroutinesBefore: goruntime.NumGoroutine(), HeapBefore: heapInUse()}
	lat := make([]time.Duration, cfg.Jobs)
	rep.IDs = make([]string, cfg.Jobs)
	sizes := make([]int, cfg.Jobs)
	sem := make(chan struct{}, cfg.Concurrency)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	began := time.Now()
	for i := range cfg.Jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			spec := proto.Clone(cfg.Spec).(*pb.JobSpec)
			if cfg.Witnesses != nil {
				spec.Witnesses = cfg.Witnesses(i)
			} else {
				spec.Seed += uint64(i)
			}
			req := &pb.SubmitRequest{Spec: spec}
			if len(cfg.Priorities) > 0 {
				req.Priority = cfg.Priorities[i%len(cfg.Priorities)]
			}
			t0 := time.Now()
			err := func() error {
				resp, err := cl.Submit(ctx, connect.NewRequest(req))
				if err != nil {
					return err
				}
				rep.IDs[i] = resp.Msg.JobId
				stream, err := cl.Await(ctx, connect.NewRequest(&pb.AwaitRequest{JobId: resp.Msg.JobId}))
				if err != nil {
					return err
				}
				defer stream.Close()
				var last *pb.AwaitResponse
				for stream.Receive() {
					last = stream.Msg()
				}
				if err := stream.Err(); err != nil {
					return err
				}
				if want := max(int(spec.Partitions), len(spec.Witnesses)); last == nil || len(last.Proofs) != want {
					return fmt.Errorf("job %s: no proofs", resp.Msg.JobId)
				}
				lat[i] = time.Since(t0)
				for _, p := range last.Proofs {
					sizes[i] += len(p.Proof) + len(p.PublicWitness)
				}
				if cfg.Verify != nil {
					return cfg.Verify(spec, last.Proofs)
				}
				return nil
			}()
			if err != nil {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("job %d: %w", i, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Elapsed = time.Since(began)
	if first != nil {
		return nil, first
	}
	rep.Lanes = laneLatencies(lat, cfg.Priorities)
	rep.P50, rep.P99 = percentiles(lat)
	rep.Max = lat[len(lat)-1]
	rep.JobsPerSecond = float64(cfg.Jobs) / rep.Elapsed.Seconds()
	total := 0
	for _, s := range sizes {
		total += s
	}
	rep.ProofBytesPerJobAvg = total / cfg.Jobs
	// Connections and streams wind down after their last use.
	http.DefaultClient.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
	rep.GoroutinesAfter, rep.HeapAfter = goruntime.NumGoroutine(), heapInUse()
	return rep, nil
}
