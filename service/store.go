package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// Names in JetStream. One stream holds every lane (a subject each, a
// work-queue consumer each); another the job ids in the order they were
// submitted (what List pages through, newest first); key-value buckets
// hold the jobs' records, their results and the workers' reports; an
// object store holds what is too large for a message and the jobs'
// witnesses. Added circuits have a bucket and an object store of their
// own (circuits.go), which keep them until they are removed.
const (
	queueStream    = "PROOFLANE_QUEUE"
	queueSubject   = "prooflane.queue."
	submitsStream  = "PROOFLANE_SUBMITS"
	submitsSubject = "prooflane.submitted"
	jobsBucket     = "prooflane_jobs"
	resultsBucket  = "prooflane_results"
	workersBucket  = "prooflane_workers"
	objectsBucket  = "prooflane_objects"
	notifySubject  = "prooflane.notify"
	cancelSubject  = "prooflane.cancel"
	controlSubject = "prooflane.control"
	// workerTTL is how long a worker's report lasts without a refresh.
	workerTTL = 15 * time.Second
	// dedupWindow is how long the queue drops a second publish of a job id.
	dedupWindow = 10 * time.Minute
)

// inlineLimit is the largest value kept in a record or a result itself; a
// larger one goes to the object store (a NATS message is 1 MiB by
// default). A variable for the tests.
var inlineLimit = 256 << 10

// record is a job's state in the jobs bucket, under its id.
type record struct {
	ID       string      `json:"id"`
	State    pb.JobState `json:"state"`
	Priority pb.Priority `json:"priority"`
	Spec     Spec        `json:"spec"`
	// SpecObject names the object holding Spec.PipelineYAML when it was
	// too large to keep here.
	SpecObject string `json:"spec_object,omitempty"`
	SpecHash   string `json:"spec_hash"`
	Error      string `json:"error,omitempty"`
	Worker     string `json:"worker,omitempty"`
	Done       int    `json:"done,omitempty"`
	Deliveries int    `json:"deliveries,omitempty"`
	// HandedBack counts the times a worker handed the job back to the
	// queue, waiting for memory, for a job of a higher lane.
	HandedBack int    `json:"handed_back,omitempty"`
	Submitted  int64  `json:"submitted"`
	Started    int64  `json:"started,omitempty"`
	Finished   int64  `json:"finished,omitempty"`
	StartSeq   uint64 `json:"start_seq,omitempty"`
	Estimate   uint64 `json:"estimate,omitempty"`
	// DeviceEstimate is the job's estimate of each device's memory.
	DeviceEstimate uint64 `json:"device_estimate,omitempty"`
	Deadline       int64  `json:"deadline,omitempty"`
}

func (r *record) terminal() bool {
	switch r.State {
	case pb.JobState_JOB_STATE_DONE, pb.JobState_JOB_STATE_FAILED, pb.JobState_JOB_STATE_CANCELLED:
		return true
	}
	return false
}

func (r *record) status() *pb.JobStatus {
	spec := r.Spec.proto()
	if r.SpecObject != "" {
		spec.PipelineYaml = "" // large; the job's own copy is in the object store
	}
	return &pb.JobStatus{
		JobId: r.ID, State: r.State, Priority: r.Priority, Spec: spec, Family: r.Spec.Family,
		Error: r.Error, Worker: r.Worker, Partitions: uint32(r.Spec.Partitions), PartitionsDone: uint32(r.Done),
		Deliveries: uint32(r.Deliveries), SubmittedUnixMs: r.Submitted, StartedUnixMs: r.Started,
		FinishedUnixMs: r.Finished, StartSeq: r.StartSeq, EstimateBytes: r.Estimate, DeviceEstimateBytes: r.DeviceEstimate,
	}
}

// result is a job's proofs in the results bucket: created once, by the
// first worker to finish the job; a later finisher's proofs are dropped.
type result struct {
	Worker string           `json:"worker"`
	Proofs []PartitionProof `json:"proofs,omitempty"`
	// Object names the object holding Proofs when they were too large.
	Object string `json:"object,omitempty"`
	// KeyFacts name the key that made the proofs.
	KeyFacts
	// MAC authenticates the result (Secret.resultMAC): a result without
	// the right one was not stored by a worker of this queue.
	MAC []byte `json:"mac,omitempty"`
}

// errIntegrity is a result whose MAC is missing or wrong.
var errIntegrity = errors.New("fails its integrity check")

// workerReport is what a worker publishes about itself.
type workerReport struct {
	Name           string `json:"name"`
	Backend        string `json:"backend"`
	Running        int    `json:"running"`
	Slots          int    `json:"slots"`
	Budget         uint64 `json:"budget"`
	Admitted       uint64 `json:"admitted"`
	PeakRunning    int    `json:"peak_running"`
	AdmissionWaits uint64 `json:"admission_waits"`
	Keys           []Key  `json:"keys,omitempty"`
	Seen           int64  `json:"seen"`
}

// control is a Preload or Evict sent to every worker, or the cancel of a
// Preload (by its ID) whose caller went away.
type control struct {
	Op   string `json:"op"` // "preload", "evict" or "cancel"
	ID   string `json:"id,omitempty"`
	Spec Spec   `json:"spec"`
}

type controlReply struct {
	Worker string `json:"worker"`
	Error  string `json:"error,omitempty"`
}

// QueueConfig configures the queue's streams when it creates them.
type QueueConfig struct {
	// AckWait is how long a worker may go without a heartbeat before its
	// job is handed to another (default 30s).
	AckWait time.Duration
	// Memory keeps the queue in memory (tests); the default is files.
	Memory bool
	// Replicas is the number of copies of each stream, bucket and object
	// store, 1 to MaxReplicas: each on another server of a NATS cluster,
	// so that the queue survives the loss of Replicas/2 of them. 0 is 3
	// on a cluster of three or more servers (counted from the servers
	// the cluster tells its clients of), else 1.
	Replicas int
	// Retain is how long a job's record, result and objects are kept
	// (default 24h): an await after that finds no job.
	Retain time.Duration
}

// store is the service's state in JetStream, shared by server and workers.
type store struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	jobs    jetstream.KeyValue
	results jetstream.KeyValue
	workers jetstream.KeyValue
	objects jetstream.ObjectStore
	// circuits and circuitFiles hold the added circuits.
	circuits     jetstream.KeyValue
	circuitFiles jetstream.ObjectStore
	submits      jetstream.Stream
	lanes        map[pb.Priority]jetstream.Consumer
	ackWait      time.Duration
	secret       Secret
	// retain is how long the objects live (the object store's TTL).
	retain time.Duration
}

// openTimeout bounds the opening of the queue: a NATS server without
// JetStream never answers its API.
const openTimeout = 30 * time.Second

// openStore creates (or binds to) the queue's streams, buckets and lane
// consumers on nc; secret authenticates the results.
func openStore(ctx context.Context, nc *nats.Conn, cfg QueueConfig, secret Secret) (*store, error) {
	if err := secret.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	s, err := openStoreCtx(ctx, nc, cfg)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("nats %s: the queue did not open within %s (is JetStream enabled?): %w", nc.ConnectedUrlRedacted(), openTimeout, err)
	}
	if err != nil {
		return nil, err
	}
	s.secret = secret
	return s, nil
}

func openStoreCtx(ctx context.Context, nc *nats.Conn, cfg QueueConfig) (*store, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = 30 * time.Second
	}
	storage := jetstream.FileStorage
	if cfg.Memory {
		storage = jetstream.MemoryStorage
	}
	replicas, err := queueReplicas(nc, cfg.Replicas)
	if err != nil {
		return nil, err
	}
	// placed says why a cluster refused to make a store of replicas.
	placed := func(err error) error {
		var apiErr *jetstream.APIError
		if replicas > 1 && errors.As(err, &apiErr) && (apiErr.ErrorCode == jsErrClusterNoPeers || apiErr.ErrorCode == jsErrInsufficientResources) {
			return fmt.Errorf("%d replicas: more than NATS cluster %q can place (a cluster of N servers, all up, holds up to N): %w", replicas, nc.ConnectedClusterName(), err)
		}
		return err
	}
	if cfg.Retain <= 0 {
		cfg.Retain = 24 * time.Hour
	}
	s := &store{nc: nc, js: js, lanes: map[pb.Priority]jetstream.Consumer{}}
	var subjects []string
	for _, l := range Lanes {
		subjects = append(subjects, queueSubject+LaneName(l))
	}
	stream := func(cfg jetstream.StreamConfig) (jetstream.Stream, error) {
		str, err := js.Stream(ctx, cfg.Name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			cfg.Storage, cfg.Replicas, cfg.Duplicates = storage, replicas, dedupWindow
			str, err = js.CreateStream(ctx, cfg)
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				str, err = js.Stream(ctx, cfg.Name)
			}
			err = placed(err)
		}
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", cfg.Name, err)
		}
		return str, nil
	}
	if _, err := stream(jetstream.StreamConfig{Name: queueStream, Subjects: subjects, Retention: jetstream.WorkQueuePolicy}); err != nil {
		return nil, err
	}
	if s.submits, err = stream(jetstream.StreamConfig{Name: submitsStream, Subjects: []string{submitsSubject}, MaxAge: cfg.Retain}); err != nil {
		return nil, err
	}
	for _, l := range Lanes {
		name := "lane-" + LaneName(l)
		c, err := js.Consumer(ctx, queueStream, name)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			c, err = js.CreateConsumer(ctx, queueStream, jetstream.ConsumerConfig{
				Durable: name, FilterSubject: queueSubject + LaneName(l), AckPolicy: jetstream.AckExplicitPolicy,
				AckWait: cfg.AckWait, MaxDeliver: -1, MaxAckPending: -1,
			})
			if errors.Is(err, jetstream.ErrConsumerExists) {
				c, err = js.Consumer(ctx, queueStream, name)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("lane %s: %w", LaneName(l), err)
		}
		s.lanes[l] = c
		s.ackWait = c.CachedInfo().Config.AckWait
	}
	kv := func(bucket string, ttl time.Duration) (jetstream.KeyValue, error) {
		b, err := js.KeyValue(ctx, bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			b, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucket, Storage: storage, Replicas: replicas, TTL: ttl})
			if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				b, err = js.KeyValue(ctx, bucket)
			}
			err = placed(err)
		}
		if err != nil {
			return nil, fmt.Errorf("bucket %s: %w", bucket, err)
		}
		return b, nil
	}
	if s.jobs, err = kv(jobsBucket, cfg.Retain); err != nil {
		return nil, err
	}
	if s.results, err = kv(resultsBucket, cfg.Retain); err != nil {
		return nil, err
	}
	if s.workers, err = kv(workersBucket, workerTTL); err != nil {
		return nil, err
	}
	if s.circuits, err = kv(circuitsBucket, 0); err != nil {
		return nil, err
	}
	objects := func(bucket string, ttl time.Duration) (jetstream.ObjectStore, error) {
		o, err := js.ObjectStore(ctx, bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			o, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucket, Storage: storage, Replicas: replicas, TTL: ttl})
			if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				o, err = js.ObjectStore(ctx, bucket)
			}
			err = placed(err)
		}
		if err != nil {
			return nil, fmt.Errorf("object store %s: %w", bucket, err)
		}
		return o, nil
	}
	if s.objects, err = objects(objectsBucket, cfg.Retain); err != nil {
		return nil, err
	}
	if s.circuitFiles, err = objects(circuitFilesBucket, 0); err != nil {
		return nil, err
	}
	st, err := s.objects.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", objectsBucket, err)
	}
	s.retain = st.TTL()
	return s, nil
}

// MaxReplicas bounds QueueConfig.Replicas (JetStream's own limit).
const MaxReplicas = 5

// JetStream's error codes: a stream it cannot place on enough servers
// (no peers, insufficient resources), and its system being unavailable
// for now (a cluster without a leader).
const (
	jsErrClusterNoPeers        jetstream.ErrorCode = 10005
	jsErrInsufficientResources jetstream.ErrorCode = 10023
	jsErrClusterNotAvailable   jetstream.ErrorCode = 10008
)

// queueReplicas is the number of copies of the stores this process
// creates: want (1 to MaxReplicas; more than 1 only on a cluster), or for
// 0, 3 on a cluster of three or more servers and 1 elsewhere.
func queueReplicas(nc *nats.Conn, want int) (int, error) {
	if want < 0 || want > MaxReplicas {
		return 0, fmt.Errorf("replicas %d: want 1 to %d", want, MaxReplicas)
	}
	cluster := nc.ConnectedClusterName()
	if cluster == "" {
		if want > 1 {
			return 0, fmt.Errorf("replicas %d: the NATS server %s is not in a cluster; it holds one copy (want 1, or a cluster of %d servers)", want, nc.ConnectedUrlRedacted(), want)
		}
		return 1, nil
	}
	if want > 0 {
		return want, nil
	}
	if clusterServers(nc) >= 3 {
		return 3, nil
	}
	return 1, nil
}

// clusterServers counts the servers of nc's cluster that it knows of:
// those it was given and those the cluster told it of (the client URLs
// each server advertises, unless the cluster is set not to).
func clusterServers(nc *nats.Conn) int {
	seen := map[string]bool{}
	for _, u := range nc.Servers() {
		if p, err := url.Parse(u); err == nil {
			seen[p.Host] = true
		}
	}
	return len(seen)
}

// newJobID returns a fresh job id, or the one an idempotency key names.
func newJobID(idempotencyKey string) string {
	if idempotencyKey != "" {
		h := sha256.Sum256([]byte(idempotencyKey))
		return "k" + hex.EncodeToString(h[:12])
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "j" + hex.EncodeToString(b[:])
}

// validJobID reports whether id has a job id's form (so it is a safe key).
func validJobID(id string) bool {
	if len(id) != 25 || (id[0] != 'j' && id[0] != 'k') {
		return false
	}
	_, err := hex.DecodeString(id[1:])
	return err == nil
}

var errNoJob = errors.New("no such job")

// opTimeout bounds one operation on the queue's state whose context has no
// deadline of its own (a worker's, for a job that may run for hours).
const opTimeout = 30 * time.Second

// opContext is ctx with opTimeout when it has no deadline.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, opTimeout)
}

// attemptTimeout bounds one attempt of an operation that retry repeats.
const attemptTimeout = 5 * time.Second

// retry runs op until it succeeds or fails otherwise than by the queue
// being unreachable for a while (a NATS cluster electing a stream's
// leader, the connection moving to another server), each attempt within
// attemptTimeout, all within ctx (opTimeout when it has no deadline).
func retry(ctx context.Context, op func(ctx context.Context) error) error {
	ctx, cancel := opContext(ctx)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(ctx, attemptTimeout)
		err := op(actx)
		acancel()
		if err == nil || !unreachable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// unreachable reports an error of the queue's servers not answering now,
// as opposed to one about the request.
func unreachable(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode == jsErrClusterNotAvailable || apiErr.Code == 408
	}
	for _, e := range []error{context.DeadlineExceeded, nats.ErrTimeout, nats.ErrNoResponders, jetstream.ErrNoStreamResponse,
		nats.ErrConnectionReconnecting, nats.ErrDisconnected, nats.ErrConnectionDraining} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// get reads a job's record and its revision.
func (s *store) get(ctx context.Context, id string) (*record, uint64, error) {
	var e jetstream.KeyValueEntry
	err := retry(ctx, func(ctx context.Context) (err error) {
		e, err = s.jobs.Get(ctx, id)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, fmt.Errorf("job %q: %w", id, errNoJob)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("job %q: %w", id, err)
	}
	var r record
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return nil, 0, fmt.Errorf("job %q: corrupt record: %w", id, err)
	}
	return &r, e.Revision(), nil
}

// update changes a job's record with f, retrying on a concurrent change;
// f returns false to leave it as it is. It returns the record as it is.
// A write whose answer was lost (a NATS cluster changing leaders) and
// that landed is not made twice: the record read back is the one written.
func (s *store) update(ctx context.Context, id string, f func(r *record) bool) (*record, error) {
	var tried []byte
	for {
		r, rev, err := s.get(ctx, id)
		if err != nil {
			return nil, err
		}
		if tried != nil {
			if now, err := json.Marshal(r); err == nil && bytes.Equal(now, tried) {
				return r, nil
			}
		}
		if !f(r) {
			return r, nil
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		err = retry(ctx, func(ctx context.Context) error {
			_, err := s.jobs.Update(ctx, id, b, rev)
			return err
		})
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !isWrongSequence(err) {
			return nil, fmt.Errorf("job %q: update: %w", id, err)
		}
		tried = b
	}
}

func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// spec returns r's spec with a large pipeline read back from the objects.
func (s *store) spec(ctx context.Context, r *record) (Spec, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	spec := r.Spec
	if r.SpecObject != "" {
		b, err := s.objects.GetBytes(ctx, r.SpecObject)
		if err != nil {
			return Spec{}, fmt.Errorf("job %q: pipeline_yaml object %q: %w", r.ID, r.SpecObject, err)
		}
		spec.PipelineYAML = string(b)
	}
	spec.JobID = r.ID
	return spec, nil
}

// publish puts a job on its lane; a second publish of the same id within
// the dedup window is dropped by the stream.
func (s *store) publish(ctx context.Context, r *record) error {
	err := retry(ctx, func(ctx context.Context) error {
		_, err := s.js.Publish(ctx, queueSubject+LaneName(r.Priority), []byte(r.ID), jetstream.WithMsgID(r.ID))
		return err
	})
	if err != nil {
		return fmt.Errorf("job %q: queue: %w", r.ID, err)
	}
	_ = s.nc.Publish(notifySubject, nil)
	return nil
}

// indexSubmit appends a job to the submissions List reads (a second
// append of the same id within the dedup window is dropped).
func (s *store) indexSubmit(ctx context.Context, id string) error {
	err := retry(ctx, func(ctx context.Context) error {
		_, err := s.js.Publish(ctx, submitsSubject, []byte(id), jetstream.WithMsgID(id))
		return err
	})
	if err != nil {
		return fmt.Errorf("job %q: index: %w", id, err)
	}
	return nil
}

// listJobs returns up to limit jobs, newest submitted first, from those
// submitted before the submission numbered below (0: from the newest);
// next is the number of the last one returned when older ones remain
// (the next page's below), else 0. A job whose record has expired is
// skipped.
func (s *store) listJobs(ctx context.Context, below uint64, limit int) (jobs []*record, next uint64, err error) {
	info, err := s.submits.Info(ctx)
	if err != nil {
		return nil, 0, err
	}
	first, seq := info.State.FirstSeq, info.State.LastSeq
	if info.State.Msgs == 0 {
		return nil, 0, nil
	}
	if below != 0 {
		seq = min(seq, below-1)
	}
	for ; seq >= first && seq > 0; seq-- {
		if len(jobs) == limit {
			return jobs, seq + 1, nil
		}
		m, err := s.submits.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		r, _, err := s.get(ctx, string(m.Data))
		if errors.Is(err, errNoJob) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		jobs = append(jobs, r)
	}
	return jobs, 0, nil
}

// storeResult records proofs as the job's result, authenticated, unless
// another worker did first; it returns the result that stands. A result
// there that fails its integrity check was not stored by a worker of
// this queue: it is replaced.
func (s *store) storeResult(ctx context.Context, r *record, worker string, out *Output) (*result, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	id := r.ID
	res := &result{Worker: worker, Proofs: out.Proofs, KeyFacts: out.KeyFacts, MAC: s.secret.resultMAC(id, worker, r.SpecHash, out)}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if len(b) > inlineLimit {
		// A name of its own: a second run of the job on a worker of the
		// same name must not overwrite the first's proofs.
		obj := id + "." + worker + "." + newJobID("")[1:9]
		if _, err := s.objects.PutBytes(ctx, obj, b); err != nil {
			return nil, fmt.Errorf("job %q: store proofs: %w", id, err)
		}
		if b, err = json.Marshal(&result{Worker: worker, Object: obj, KeyFacts: out.KeyFacts, MAC: res.MAC}); err != nil {
			return nil, err
		}
		res.Object = obj
	}
	for {
		err := retry(ctx, func(ctx context.Context) error {
			_, err := s.results.Create(ctx, id, b)
			return err
		})
		if err == nil {
			return res, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("job %q: store result: %w", id, err)
		}
		old, rev, err := s.result(ctx, r)
		if err == nil && old != nil {
			if res.Object != "" && old.Object != res.Object {
				_ = s.objects.Delete(ctx, res.Object)
			}
			return old, nil
		}
		if !errors.Is(err, errIntegrity) {
			if err == nil { // deleted meanwhile
				continue
			}
			return nil, err
		}
		if _, err := s.results.Update(ctx, id, b, rev); err == nil {
			return res, nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) && !isWrongSequence(err) {
			return nil, fmt.Errorf("job %q: replace a result that %v: %w", id, errIntegrity, err)
		}
	}
}

// result reads the result of r's job, nil when it has none, and its
// revision. A result whose MAC is missing or wrong is an errIntegrity
// error naming the job: it was not stored by a worker of this queue.
func (s *store) result(ctx context.Context, r *record) (*result, uint64, error) {
	ctx, cancel := opContext(ctx)
	defer cancel()
	id := r.ID
	var e jetstream.KeyValueEntry
	err := retry(ctx, func(ctx context.Context) (err error) {
		e, err = s.results.Get(ctx, id)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("job %q: result: %w", id, err)
	}
	var res result
	if err := json.Unmarshal(e.Value(), &res); err != nil {
		return nil, e.Revision(), fmt.Errorf("job %q: result %w: %v", id, errIntegrity, err)
	}
	if res.Object != "" {
		b, err := s.objects.GetBytes(ctx, res.Object)
		if err != nil {
			return nil, e.Revision(), fmt.Errorf("job %q: proofs object %q: %w", id, res.Object, err)
		}
		var full result
		if err := json.Unmarshal(b, &full); err != nil {
			return nil, e.Revision(), fmt.Errorf("job %q: proofs object %q %w: %v", id, res.Object, errIntegrity, err)
		}
		res.Proofs = full.Proofs
	}
	want := s.secret.resultMAC(id, res.Worker, r.SpecHash, &Output{Proofs: res.Proofs, KeyFacts: res.KeyFacts})
	if !hmac.Equal(res.MAC, want) {
		what := "its MAC is wrong"
		if len(res.MAC) == 0 {
			what = "it has no MAC"
		}
		return nil, e.Revision(), fmt.Errorf("job %q: the result stored by %q %w (%s): refused", id, res.Worker, errIntegrity, what)
	}
	return &res, e.Revision(), nil
}

// workerReports lists the workers' live reports.
func (s *store) workerReports(ctx context.Context) ([]workerReport, error) {
	lister, err := s.workers.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []workerReport
	for k := range lister.Keys() {
		e, err := s.workers.Get(ctx, k)
		if err != nil {
			continue // expired meanwhile
		}
		var w workerReport
		if json.Unmarshal(e.Value(), &w) == nil {
			out = append(out, w)
		}
	}
	return out, nil
}
