package service

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prooflane/prooflane/admission"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
	"github.com/prooflane/prooflane/stages/family"
)

// ServerConfig configures the API server.
type ServerConfig struct {
	// Token, when set, is the bearer token every request must carry.
	Token string
	// Secret is the queue's secret: a result is returned only when its
	// MAC under it is right.
	Secret Secret
	// Queue configures the queue when the server is the first to use it.
	Queue QueueConfig
	// Metrics, when set, count jobs and read the lanes' depths; served on
	// /metrics behind the same token check.
	Metrics *Metrics
	// UploadDir holds the files of an AddCircuit or UploadWitness while
	// they are checked, each upload in a directory of its own removed
	// when it ends (default: the system's temporary directory). What a
	// killed server left there is removed when NewServer starts.
	UploadDir string
}

// Server answers the API from the queue's state in JetStream.
type Server struct {
	cfg ServerConfig
	st  *store
	// checking admits one AddCircuit's check at a time (oneCheck),
	// reading one uploaded witness's (uploadedWitness), uploads
	// maxUploads uploads received at once.
	checking, reading, uploads chan struct{}

	mu          sync.Mutex
	lastReports []workerReport
	reportsAt   time.Time
}

var _ prooflanev1connect.ProverServiceHandler = (*Server)(nil)

// NewServer binds a server to the queue on nc.
func NewServer(ctx context.Context, nc *nats.Conn, cfg ServerConfig) (*Server, error) {
	st, err := openStore(ctx, nc, cfg.Queue, cfg.Secret)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, st: st, checking: make(chan struct{}, 1), reading: make(chan struct{}, 1),
		uploads: make(chan struct{}, maxUploads)}
	if cfg.UploadDir != "" {
		left, _ := filepath.Glob(filepath.Join(cfg.UploadDir, "upload-*"))
		for _, d := range left {
			_ = os.RemoveAll(d)
		}
	}
	if m := cfg.Metrics; m != nil {
		m.mu.Lock()
		m.lanes = s.laneDepths
		m.mu.Unlock()
	}
	return s, nil
}

// Handler is the HTTP handler of the API (Connect, gRPC and gRPC-Web on
// one port), a plain GET /healthz, and the extra handlers, each behind the
// token check and the request size limit.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	path, h := prooflanev1connect.NewProverServiceHandler(s,
		connect.WithReadMaxBytes(MaxRequestBytes),
		connect.WithInterceptors(tokenInterceptor{s.tokenHash()}))
	mux.Handle(path, h)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if s.st.nc.Status() != nats.CONNECTED {
			http.Error(w, "queue unreachable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	if s.cfg.Metrics != nil {
		mux.Handle("/metrics", s.cfg.Metrics.Handler())
	}
	want := s.tokenHash()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The uploads stream files in chunks, each message bounded by
		// MaxRequestBytes and the whole by what the header declares.
		if r.URL.Path != prooflanev1connect.ProverServiceAddCircuitProcedure && r.URL.Path != prooflanev1connect.ProverServiceUploadWitnessProcedure {
			r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes+64<<10)
		}
		if !strings.HasPrefix(r.URL.Path, path) && want != nil && !tokenOK(want, r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) tokenHash() []byte {
	if s.cfg.Token == "" {
		return nil
	}
	h := sha256.Sum256([]byte(s.cfg.Token))
	return h[:]
}

// tokenOK compares an Authorization header's bearer token with the
// token's hash in constant time (the hashes have one length whatever the
// token sent).
func tokenOK(want []byte, header string) bool {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return false
	}
	got := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(want, got[:]) == 1
}

// tokenInterceptor refuses RPCs without the bearer token.
type tokenInterceptor struct{ want []byte }

func (t tokenInterceptor) check(h http.Header) error {
	if t.want == nil || tokenOK(t.want, h.Get("Authorization")) {
		return nil
	}
	return connect.NewError(connect.CodeUnauthenticated, errors.New("missing or wrong bearer token (Authorization: Bearer <token>)"))
}

func (t tokenInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if err := t.check(req.Header()); err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

func (t tokenInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (t tokenInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		if err := t.check(conn.RequestHeader()); err != nil {
			return err
		}
		return next(ctx, conn)
	}
}

func invalid(err error) error { return connect.NewError(connect.CodeInvalidArgument, err) }

// storeError maps a store error: a missing job or circuit is NotFound,
// anything else the queue being unavailable.
func storeError(err error) error {
	if errors.Is(err, errNoJob) || errors.Is(err, errNoCircuit) {
		return connect.NewError(connect.CodeNotFound, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return connect.NewError(connect.CodeCanceled, err)
	}
	return connect.NewError(connect.CodeUnavailable, err)
}

func checkJobID(id string) error {
	if !validJobID(id) {
		return invalid(fmt.Errorf("job_id %q: not a job id (a 'j' or 'k' and 24 hex digits)", id))
	}
	return nil
}

// checkSubmit validates a submit request, of added circuit c when its
// spec names one; it changes nothing.
func checkSubmit(req *pb.SubmitRequest, now time.Time, c *Circuit) (Spec, pb.Priority, error) {
	spec, err := checkSpec(req.Spec, c)
	if err != nil {
		return Spec{}, 0, err
	}
	prio := req.Priority
	if prio == pb.Priority_PRIORITY_UNSPECIFIED {
		prio = pb.Priority_PRIORITY_NORMAL
	}
	if _, ok := pb.Priority_name[int32(prio)]; !ok {
		return Spec{}, 0, fmt.Errorf("priority %d: want PRIORITY_LOW, _NORMAL, _HIGH or _CRITICAL (1 to 4)", int32(prio))
	}
	if len(req.IdempotencyKey) > MaxIdempotencyKey {
		return Spec{}, 0, fmt.Errorf("idempotency_key: %d bytes, above the limit of %d", len(req.IdempotencyKey), MaxIdempotencyKey)
	}
	if req.DeadlineUnixMs != 0 && req.DeadlineUnixMs <= now.UnixMilli() {
		return Spec{}, 0, fmt.Errorf("deadline_unix_ms %d: already passed (now %d)", req.DeadlineUnixMs, now.UnixMilli())
	}
	return spec, prio, nil
}

// Submit implements the API: the job is on its lane when it returns. A
// job of an added circuit has its witnesses checked against the circuit
// first, and its inline ones stored (under their SHA-256) once it is
// admitted.
func (s *Server) Submit(ctx context.Context, req *connect.Request[pb.SubmitRequest]) (*connect.Response[pb.SubmitResponse], error) {
	now := time.Now()
	var c *Circuit
	if id := req.Msg.GetSpec().GetCircuitId(); id != "" {
		if err := checkCircuitID("spec: circuit_id", id); err != nil {
			return nil, invalid(err)
		}
		var err error
		if c, err = s.st.Circuit(ctx, id); err != nil {
			return nil, storeError(fmt.Errorf("spec: %w", err))
		}
	}
	spec, prio, err := checkSubmit(req.Msg, now, c)
	if err != nil {
		return nil, invalid(err)
	}
	var inline map[string][]byte
	if c != nil {
		if spec.Witnesses, inline, err = s.jobWitnesses(ctx, c, req.Msg.Spec.Witnesses); err != nil {
			return nil, err
		}
	}
	if err := s.admit(ctx, "spec", spec, EstimateHost); err != nil {
		return nil, err
	}
	for _, data := range inline {
		if _, err := s.st.putWitness(ctx, data); err != nil {
			return nil, storeError(err)
		}
	}
	id := newJobID(req.Msg.IdempotencyKey)
	r := &record{ID: id, State: pb.JobState_JOB_STATE_QUEUED, Priority: prio, Spec: spec, SpecHash: spec.hash() + LaneName(prio),
		Submitted: now.UnixMilli(), Deadline: req.Msg.DeadlineUnixMs}
	if len(spec.PipelineYAML) > inlineLimit/2 {
		r.SpecObject = "spec." + id
		if _, err := s.st.objects.PutBytes(ctx, r.SpecObject, []byte(spec.PipelineYAML)); err != nil {
			return nil, storeError(err)
		}
		r.Spec.PipelineYAML = ""
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	if _, err := s.st.jobs.Create(ctx, id, b); err != nil {
		if !isKeyExists(err) {
			return nil, storeError(err)
		}
		old, _, err := s.st.get(ctx, id)
		if err != nil {
			return nil, storeError(err)
		}
		if old.SpecHash != r.SpecHash {
			return nil, connect.NewError(connect.CodeAlreadyExists,
				fmt.Errorf("idempotency_key %q names job %q, submitted with a different spec or priority", req.Msg.IdempotencyKey, id))
		}
		// The first submit may have died between its record and the
		// queue: publish again (the queue drops a duplicate, and a
		// worker ends a job already ended without running it).
		if old.State == pb.JobState_JOB_STATE_QUEUED {
			if err := s.enqueue(ctx, old); err != nil {
				return nil, storeError(err)
			}
		}
		return connect.NewResponse(&pb.SubmitResponse{JobId: id, Duplicate: true}), nil
	}
	// The record is there: its enqueue does not stop with the caller (a
	// client's timeout while the queue's stream elects a leader would
	// fail an accepted job); retry bounds it. With an idempotency key, a
	// queue that does not answer now leaves the job queued for the
	// client's retry, which publishes it again; without one, the job
	// cannot be named again, so it fails.
	if err := s.enqueue(context.WithoutCancel(ctx), r); err != nil {
		if req.Msg.IdempotencyKey == "" || !unreachable(err) {
			_, _ = s.st.update(context.Background(), id, func(r *record) bool {
				r.State, r.Error = pb.JobState_JOB_STATE_FAILED, "not queued: "+err.Error()
				return true
			})
		}
		return nil, storeError(err)
	}
	s.cfg.Metrics.job(pb.JobState_JOB_STATE_QUEUED)
	return connect.NewResponse(&pb.SubmitResponse{JobId: id}), nil
}

// enqueue lists a job among the submissions and puts it on its lane.
func (s *Server) enqueue(ctx context.Context, r *record) error {
	if err := s.st.indexSubmit(ctx, r.ID); err != nil {
		return err
	}
	return s.st.publish(ctx, r)
}

func isKeyExists(err error) bool {
	return isWrongSequence(err) || strings.Contains(err.Error(), "key exists")
}

// awaitPoll is how often Await reads the record besides watching it. A
// variable for the tests.
var awaitPoll = 5 * time.Second

// Await implements the API: a message on every change of the job's
// record, the last with the proofs; a failed or cancelled job ends the
// stream with an error saying so.
func (s *Server) Await(ctx context.Context, req *connect.Request[pb.AwaitRequest], stream *connect.ServerStream[pb.AwaitResponse]) error {
	id := req.Msg.JobId
	if err := checkJobID(id); err != nil {
		return err
	}
	if _, _, err := s.st.get(ctx, id); err != nil {
		return storeError(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch, err := s.st.jobs.Watch(wctx, id)
	if err != nil {
		return storeError(err)
	}
	defer watch.Stop()
	poll := time.NewTicker(awaitPoll)
	defer poll.Stop()
	var last []byte
	for {
		var value []byte
		select {
		case <-ctx.Done():
			return connect.NewError(connect.CodeCanceled, ctx.Err())
		case u, ok := <-watch.Updates():
			if !ok {
				return connect.NewError(connect.CodeUnavailable, fmt.Errorf("job %q: the queue closed the watch", id))
			}
			if u == nil {
				continue // the end of the current values
			}
			value = u.Value()
		case <-poll.C:
			// A watch whose consumer went with its server (a NATS cluster's)
			// may stay silent: the record is read again now and then.
			r, _, err := s.st.get(ctx, id)
			if err != nil {
				continue
			}
			value, _ = json.Marshal(r)
		}
		var r record
		if err := json.Unmarshal(value, &r); err != nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("job %q: corrupt record: %w", id, err))
		}
		st := r.status()
		sb, _ := json.Marshal(st)
		if bytes.Equal(sb, last) {
			continue
		}
		last = sb
		switch r.State {
		case pb.JobState_JOB_STATE_DONE:
			res, _, err := s.st.result(ctx, &r)
			if errors.Is(err, errIntegrity) {
				return connect.NewError(connect.CodeDataLoss, err)
			}
			if err != nil {
				return storeError(err)
			}
			if res == nil {
				return connect.NewError(connect.CodeInternal, fmt.Errorf("job %q: done but no result stored", id))
			}
			out := &pb.AwaitResponse{Status: st, Key: res.Key, Constraints: uint64(max(res.Constraints, 0)), VerifyingKey: res.VK}
			for _, p := range res.Proofs {
				out.Proofs = append(out.Proofs, &pb.Proof{Partition: uint32(p.Partition), Proof: p.Proof, PublicWitness: p.Public})
			}
			return stream.Send(out)
		case pb.JobState_JOB_STATE_FAILED:
			return connect.NewError(connect.CodeAborted, fmt.Errorf("job %q failed: %s", id, r.Error))
		case pb.JobState_JOB_STATE_CANCELLED:
			return connect.NewError(connect.CodeCanceled, fmt.Errorf("job %q was cancelled", id))
		}
		if err := stream.Send(&pb.AwaitResponse{Status: st}); err != nil {
			return err
		}
	}
}

// Cancel implements the API: a queued job is never run, a running one is
// stopped (its locks and memory released); a job already done or failed
// is refused.
func (s *Server) Cancel(ctx context.Context, req *connect.Request[pb.CancelRequest]) (*connect.Response[pb.CancelResponse], error) {
	id := req.Msg.JobId
	if err := checkJobID(id); err != nil {
		return nil, err
	}
	ended := false
	r, err := s.st.update(ctx, id, func(r *record) bool {
		ended = r.terminal()
		if ended {
			return false
		}
		r.State, r.Finished = pb.JobState_JOB_STATE_CANCELLED, time.Now().UnixMilli()
		return true
	})
	if err != nil {
		return nil, storeError(err)
	}
	if ended {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("job %q already ended: %s", id, LaneState(r.State)))
	}
	_ = s.st.nc.Publish(cancelSubject, []byte(id))
	s.cfg.Metrics.job(pb.JobState_JOB_STATE_CANCELLED)
	return connect.NewResponse(&pb.CancelResponse{Status: r.status()}), nil
}

// LaneState names a job state in lower case: "queued", "done".
func LaneState(s pb.JobState) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "JOB_STATE_"))
}

// Status implements the API.
func (s *Server) Status(ctx context.Context, req *connect.Request[pb.StatusRequest]) (*connect.Response[pb.StatusResponse], error) {
	if err := checkJobID(req.Msg.JobId); err != nil {
		return nil, err
	}
	r, _, err := s.st.get(ctx, req.Msg.JobId)
	if err != nil {
		return nil, storeError(err)
	}
	return connect.NewResponse(&pb.StatusResponse{Status: r.status()}), nil
}

// List implements the API: jobs (up to limit, newest submitted first,
// from page_token on), the lanes' depths and the live workers.
func (s *Server) List(ctx context.Context, req *connect.Request[pb.ListRequest]) (*connect.Response[pb.ListResponse], error) {
	limit := int(req.Msg.Limit)
	if limit == 0 {
		limit = 100
	}
	if limit > MaxListJobs {
		return nil, invalid(fmt.Errorf("limit %d: above the limit of %d", limit, MaxListJobs))
	}
	var below uint64
	if tok := req.Msg.PageToken; tok != "" {
		n, err := strconv.ParseUint(tok, 10, 64)
		if err != nil || n == 0 {
			return nil, invalid(fmt.Errorf("page_token %q: not a next_page_token of a List answer", tok))
		}
		below = n
	}
	out := &pb.ListResponse{}
	lanes, err := s.laneDepths(ctx)
	if err != nil {
		return nil, storeError(err)
	}
	out.Lanes = lanes
	jobs, next, err := s.st.listJobs(ctx, below, limit)
	if err != nil {
		return nil, storeError(err)
	}
	for _, r := range jobs {
		out.Jobs = append(out.Jobs, r.status())
	}
	if next != 0 {
		out.NextPageToken = strconv.FormatUint(next, 10)
	}
	reps, err := s.st.workerReports(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, storeError(err)
	}
	for _, w := range reps {
		wi := &pb.WorkerInfo{Name: w.Name, Backend: w.Backend, Running: uint32(w.Running), Slots: uint32(w.Slots),
			BudgetBytes: w.Budget, AdmittedBytes: w.Admitted, PeakRunning: uint32(w.PeakRunning),
			AdmissionWaits: w.AdmissionWaits, SeenUnixMs: w.Seen}
		for _, k := range w.Keys {
			wi.Keys = append(wi.Keys, &pb.KeyInfo{Family: k.Family, Circuit: k.Circuit, Size: uint64(k.Size), Bytes: k.Bytes, Curve: k.Curve})
		}
		out.Workers = append(out.Workers, wi)
	}
	return connect.NewResponse(out), nil
}

// laneDepths reads each lane's queued and in-flight counts.
func (s *Server) laneDepths(ctx context.Context) ([]*pb.LaneDepth, error) {
	var out []*pb.LaneDepth
	for _, l := range Lanes {
		info, err := s.st.lanes[l].Info(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, &pb.LaneDepth{Priority: l, Queued: info.NumPending, InFlight: uint64(info.NumAckPending)})
	}
	return out, nil
}

// checkKey validates a Preload or Evict request.
func checkKey(req *pb.KeyRequest) (Spec, error) {
	pipeline := req.Pipeline
	if pipeline == "" {
		pipeline = "groth16"
	}
	return checkSpec(&pb.JobSpec{Pipeline: pipeline, Circuit: req.Circuit, Size: req.Size, Curve: req.Curve, Partitions: 1}, nil)
}

// Preload implements the API: every live worker loads the key (making it
// when it is not cached) and answers.
func (s *Server) Preload(ctx context.Context, req *connect.Request[pb.KeyRequest]) (*connect.Response[pb.KeyResponse], error) {
	return s.control(ctx, "preload", req.Msg, 10*time.Minute)
}

// Evict implements the API: every live worker drops the key.
func (s *Server) Evict(ctx context.Context, req *connect.Request[pb.KeyRequest]) (*connect.Response[pb.KeyResponse], error) {
	return s.control(ctx, "evict", req.Msg, 30*time.Second)
}

// keySpec is the spec of a Preload's or Evict's key: a built-in
// circuit's (checkKey), or an added circuit's (NotFound naming an
// unknown id).
func (s *Server) keySpec(ctx context.Context, req *pb.KeyRequest) (Spec, error) {
	if req.CircuitId == "" {
		spec, err := checkKey(req)
		if err != nil {
			return Spec{}, invalid(err)
		}
		return spec, nil
	}
	if req.Circuit != "" || req.Size != 0 {
		return Spec{}, invalid(fmt.Errorf("circuit %q and size %d name a built-in circuit's key: give circuit_id alone", req.Circuit, req.Size))
	}
	if err := checkCircuitID("circuit_id", req.CircuitId); err != nil {
		return Spec{}, invalid(err)
	}
	c, err := s.st.Circuit(ctx, req.CircuitId)
	if err != nil {
		return Spec{}, storeError(err)
	}
	if req.Curve != "" && !strings.EqualFold(req.Curve, family.CurveName(c.curve())) {
		return Spec{}, invalid(fmt.Errorf("curve %q: circuit %s is a %s circuit", req.Curve, c.ID, family.CurveName(c.curve())))
	}
	spec, _, err := circuitKeySpec(c, req.Pipeline, "")
	if err != nil {
		return Spec{}, invalid(err)
	}
	return spec, nil
}

func (s *Server) control(ctx context.Context, op string, req *pb.KeyRequest, wait time.Duration) (*connect.Response[pb.KeyResponse], error) {
	spec, err := s.keySpec(ctx, req)
	if err != nil {
		return nil, err
	}
	if op == "preload" {
		if err := s.admit(ctx, "preload", spec, EstimateKeyHost); err != nil {
			return nil, err
		}
	}
	reps, err := s.st.workerReports(ctx)
	if len(reps) == 0 {
		if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil, storeError(err)
		}
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("%s: no worker is running", op))
	}
	c := control{Op: op, ID: newJobID("")[1:], Spec: spec}
	b, _ := json.Marshal(c)
	inbox := s.st.nc.NewRespInbox()
	replies := make(chan *nats.Msg, len(reps)+8)
	sub, err := s.st.nc.ChanSubscribe(inbox, replies)
	if err != nil {
		return nil, storeError(err)
	}
	defer sub.Unsubscribe()
	if err := s.st.nc.PublishRequest(controlSubject, inbox, b); err != nil {
		return nil, storeError(err)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	out := &pb.KeyResponse{}
	for len(out.Workers)+len(out.Errors) < len(reps) {
		select {
		case m := <-replies:
			var rep controlReply
			if json.Unmarshal(m.Data, &rep) != nil {
				continue
			}
			if rep.Error != "" {
				out.Errors = append(out.Errors, fmt.Sprintf("worker %q: %s", rep.Worker, rep.Error))
			} else {
				out.Workers = append(out.Workers, rep.Worker)
			}
		case <-wctx.Done():
			if ctx.Err() != nil {
				// The caller went away: the workers stop what they do
				// for it (a key setup), freeing its memory.
				cb, _ := json.Marshal(control{Op: "cancel", ID: c.ID})
				_ = s.st.nc.Publish(controlSubject, cb)
				return nil, connect.NewError(connect.CodeCanceled, fmt.Errorf("%s: %w", op, ctx.Err()))
			}
			out.Errors = append(out.Errors, fmt.Sprintf("%d of %d workers did not answer within %s", len(reps)-len(out.Workers)-len(out.Errors), len(reps), wait))
			return connect.NewResponse(out), nil
		}
	}
	return connect.NewResponse(out), nil
}

// admit refuses a Submit or Preload (field names it in the error) that no
// worker could ever admit: estimate's figure for spec with the key taken
// as cached (the least it needs: a worker's cache may hold the key) above
// every live worker's budget, or above this host's memory
// (admission.Host) when no worker reports; a worker with no budget
// admits anything. A worker checks again with its own cache (a setup
// counted) before it allocates anything. The answer needs no more than
// the reports and the family's estimate: nothing is allocated for it.
func (s *Server) admit(ctx context.Context, field string, spec Spec, estimate func(Spec, string) (uint64, error)) error {
	est, err := estimate(spec, "")
	if err != nil {
		return invalid(fmt.Errorf("%s: %w", field, err))
	}
	reps, err := s.reports(ctx)
	if err != nil {
		return storeError(err)
	}
	var budget admission.Budget
	for _, w := range reps {
		if w.Budget == 0 {
			return nil
		}
		if w.Budget > budget.Bytes {
			budget = admission.Budget{Bytes: w.Budget, Of: fmt.Sprintf("worker %q's budget, the largest of %d live workers'", w.Name, len(reps))}
		}
	}
	if len(reps) == 0 {
		if budget, _, err = admission.Host(); err != nil {
			return nil // nothing to compare with: the workers check
		}
		budget.Of = "the service host's " + cmp.Or(budget.Of, "memory") + " (no worker is running)"
	}
	what := fmt.Sprintf("%s: %s %s/%d", field, spec.Family, spec.Circuit, spec.Size)
	if field == "spec" {
		what = fmt.Sprintf("%s: %s %s/%d with %d partitions", field, spec.Family, spec.Circuit, spec.Size, spec.Partitions)
	}
	r := admission.Refusal{What: what, Memory: "host memory", Advice: "no worker could ever admit it: a smaller size or fewer partitions, or a worker with more memory"}
	if err := admission.Check(r, est, budget); err != nil {
		return connect.NewError(connect.CodeResourceExhausted, err)
	}
	return nil
}

// reportsFor is how long admit reuses the workers' reports (a worker
// refreshes its report every few seconds).
const reportsFor = time.Second

// reports returns the live workers' reports, read at most once every
// reportsFor.
func (s *Server) reports(ctx context.Context) ([]workerReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.reportsAt) < reportsFor {
		return s.lastReports, nil
	}
	reps, err := s.st.workerReports(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, err
	}
	s.lastReports, s.reportsAt = reps, time.Now()
	return reps, nil
}

// Health implements the API.
func (s *Server) Health(ctx context.Context, req *connect.Request[pb.HealthRequest]) (*connect.Response[pb.HealthResponse], error) {
	if s.st.nc.Status() != nats.CONNECTED {
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("queue unreachable"))
	}
	reps, _ := s.st.workerReports(ctx)
	return connect.NewResponse(&pb.HealthResponse{Serving: true, Workers: uint32(len(reps))}), nil
}
