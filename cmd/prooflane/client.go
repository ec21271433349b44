package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/service"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("submit", command{summary: "submit a job to a proving service (prooflane serve); prints its id, or with --await its proofs", run: runSubmit})
	register("await", command{summary: "wait for a service job and write its proofs (--out)", run: runAwait})
	register("status", command{summary: "a service job's state, or the service's queue, jobs and workers", run: runStatus})
	register("cancel", command{summary: "cancel a service job", run: runCancel})
	register("keys", command{summary: "list, preload or evict the keys a service's workers hold", run: runKeys, subcommands: []string{"preload", "evict"}})
}

// maxProofResponse bounds an Await message read by the client.
const maxProofResponse = 64 << 20

// maxCAFile bounds a --ca file: a few certificates in PEM.
const maxCAFile = 1 << 20

// clientFlags are the flags of every client command.
type clientFlags struct {
	addr, tokenFile, caFile string
	json                    bool
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "http://127.0.0.1:7450", "the service's URL (https:// for TLS)")
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the bearer token (default: $"+tokenEnv+")")
	fs.StringVar(&c.caFile, "ca", "", "CA certificate file trusted for an https --addr")
	fs.BoolVar(&c.json, "json", false, "print the replies as JSON")
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func (c *clientFlags) client() (prooflanev1connect.ProverServiceClient, error) {
	if !strings.HasPrefix(c.addr, "http://") && !strings.HasPrefix(c.addr, "https://") {
		return nil, fmt.Errorf("--addr %q: want an http:// or https:// URL", c.addr)
	}
	token, err := readToken(c.tokenFile)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.caFile != "" {
		pem, err := regfile.ReadFile(c.caFile, maxCAFile)
		if err != nil {
			return nil, fmt.Errorf("--ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca %q: no PEM certificate in it", c.caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	var rt http.RoundTripper = apiCheck{addr: c.addr, next: tr}
	if token != "" {
		rt = bearer{token, rt}
	}
	return prooflanev1connect.NewProverServiceClient(&http.Client{Transport: rt}, strings.TrimRight(c.addr, "/"),
		connect.WithReadMaxBytes(maxProofResponse)), nil
}

func (c *clientFlags) print(stdout io.Writer, v any, plain func()) {
	if c.json {
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return
	}
	plain()
}

// apiCheck refuses an answer that no prooflane API gives: another
// program listening at --addr (a web server, another service) would
// otherwise come back as a puzzling protocol error.
type apiCheck struct {
	addr string
	next http.RoundTripper
}

func (a apiCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(r)
	if err != nil || isAPIAnswer(resp) {
		return resp, err
	}
	resp.Body.Close()
	return nil, &notAPIError{addr: a.addr, path: r.URL.Path, status: resp.Status, contentType: resp.Header.Get("Content-Type")}
}

// isAPIAnswer reports whether resp is a Connect server's: its procedures
// answer in Connect's content types (JSON for a unary call's error: a
// not_found one is a 404 too), and a prooflane API has every procedure
// this client calls (a plain 404 is a server without them).
func isAPIAnswer(resp *http.Response) bool {
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return strings.HasPrefix(ct, "application/json")
	case strings.HasPrefix(ct, "application/proto"), strings.HasPrefix(ct, "application/connect+"):
		return true
	}
	return resp.StatusCode != http.StatusOK && strings.HasPrefix(ct, "application/json")
}

// notAPIError is an answer from something at --addr that is not a
// prooflane API.
type notAPIError struct {
	addr, path, status, contentType string
}

func (e *notAPIError) Error() string {
	return fmt.Sprintf("--addr %q is not a prooflane API: %s answered %s with content type %q (give --addr the address prooflane serve prints)",
		e.addr, e.path, e.status, e.contentType)
}

// rpcError words a service error for the command line.
func rpcError(what string, err error) error {
	var ce *connect.Error
	var na *notAPIError
	if errors.As(err, &na) {
		return fmt.Errorf("%s: %w", what, na)
	}
	if errors.As(err, &ce) {
		return fmt.Errorf("%s: %s (%s)", what, ce.Message(), ce.Code())
	}
	return fmt.Errorf("%s: %w", what, err)
}

// submitFlags are submit's flags.
type submitFlags struct {
	cf                                 clientFlags
	af                                 awaitFlags
	pipeline, circuit, size, circuitID string
	priority, idem, hash               string
	partitions                         int
	seed                               uint64
	deadline                           time.Duration
	await                              bool
	witnesses                          filesFlag
	curve                              curveFlag
}

// parseSubmit parses and checks submit's flags.
func parseSubmit(args []string, stderr io.Writer) (*flag.FlagSet, *submitFlags, error) {
	fs := newFlags("submit", "", stderr)
	f := &submitFlags{}
	f.cf.register(fs)
	fs.StringVar(&f.circuitID, "circuit-id", "", "ID: prove your own circuit, added with prooflane circuits add, with its --witness files")
	fs.Var(&f.witnesses, "witness", "FILE: a full witness of the --circuit-id circuit (gnark's witness MarshalBinary); one partition each, in order; repeat it")
	fs.StringVar(&f.pipeline, "pipeline", "", "an embedded pipeline's name, or a pipeline file (sent as its content); default: the --circuit-id circuit's, else groth16")
	fs.StringVar(&f.circuit, "circuit", "chain", "a built-in circuit, for load tests (empty for a family without circuits)")
	fs.StringVar(&f.size, "size", "2^12", "the built-in circuit's size: 4096 or 2^12")
	f.curve.id = family.DefaultCurve
	fs.Var(&f.curve, "curve", "the built-in circuit's curve ("+curveNames()+"); a --circuit-id circuit's is its own")
	fs.IntVar(&f.partitions, "partitions", 0, "the built-in circuit's proofs (default: the pipeline's partitions)")
	fs.Uint64Var(&f.seed, "seed", 1, "the built-in circuit's witness seed")
	fs.StringVar(&f.hash, "commitment-hash", "", "groth16: the hash of a circuit's commitment to a field element: rfc9380 (gnark's default) or keccak256 (gnark's Solidity verifier's); the service refuses it for a family that hashes one way only")
	fs.StringVar(&f.priority, "priority", "normal", "lane: critical, high, normal or low")
	fs.StringVar(&f.idem, "idempotency-key", "", "names the request: submitting it again returns the same job")
	fs.DurationVar(&f.deadline, "deadline", 0, "fail the job not finished within this long (0: none)")
	fs.BoolVar(&f.await, "await", false, "wait for the proofs, check them and write them to --out (as await does)")
	f.af.register(fs, "with --await: directory for the proofs, written as prove writes them")
	if err := parseFlags(fs, args); err != nil {
		return nil, nil, err
	}
	if fs.NArg() != 0 {
		return nil, nil, usageErrorf(fs, "submit takes no arguments, got %q", fs.Args())
	}
	if _, err := family.ParseCommitmentHash(f.hash); err != nil {
		return nil, nil, usageErrorf(fs, "--commitment-hash: %v", err)
	}
	if err := checkCounts(fs, "partitions"); err != nil {
		return nil, nil, err
	}
	if f.await && f.af.out == "" {
		return nil, nil, usageErrorf(fs, "--await needs --out")
	}
	switch {
	case f.circuitID == "" && len(f.witnesses) > 0:
		return nil, nil, usageErrorf(fs, "--witness is for your own circuit: give its id with --circuit-id (prooflane circuits add prints it)")
	case f.circuitID != "" && len(f.witnesses) == 0:
		return nil, nil, usageErrorf(fs, "--circuit-id: give the witnesses to prove with --witness FILE (one partition each)")
	case f.circuitID != "":
		for _, name := range []string{"circuit", "size", "seed", "partitions", "curve"} {
			if flagGiven(fs, name) {
				return nil, nil, usageErrorf(fs, "--%s: a built-in circuit's; --circuit-id proves your --witness files", name)
			}
		}
	}
	return fs, f, nil
}

// spec is the job the flags submit: the --circuit-id circuit's
// witnesses (inline, or uploaded first when large: service.Witnesses), or
// a built-in circuit's partitions from a seed.
func (f *submitFlags) spec(ctx context.Context, fs *flag.FlagSet, cl prooflanev1connect.ProverServiceClient) (*pb.JobSpec, error) {
	spec := &pb.JobSpec{CircuitId: f.circuitID}
	if f.circuitID == "" {
		n, err := parseSize(f.size)
		if err != nil {
			return nil, usageErrorf(fs, "--size: %w", err)
		}
		spec = &pb.JobSpec{Circuit: f.circuit, Size: uint64(n), Partitions: uint32(f.partitions), Seed: f.seed}
		if flagGiven(fs, "curve") {
			spec.Curve = family.CurveName(f.curve.id)
		}
		f.pipeline = cmp.Or(f.pipeline, "groth16")
	}
	spec.CommitmentHash = f.hash
	if err := setPipeline(spec, f.pipeline); err != nil {
		return nil, err
	}
	if f.circuitID != "" {
		ws, err := service.Witnesses(ctx, cl, f.circuitID, f.witnesses)
		if err != nil {
			return nil, fmt.Errorf("--witness: %w", err)
		}
		spec.Witnesses = ws
	}
	return spec, nil
}

// setPipeline sets spec's pipeline: a file's content, else a name ("" for
// the circuit's).
func setPipeline(spec *pb.JobSpec, pipeline string) error {
	st, err := os.Stat(pipeline)
	if pipeline == "" || err != nil || st.IsDir() {
		spec.Pipeline = pipeline
		return nil
	}
	if st.Size() > 1<<20 {
		return fmt.Errorf("--pipeline %q: %d bytes, over the limit of 1 MiB", pipeline, st.Size())
	}
	b, err := regfile.ReadFile(pipeline, 1<<20)
	if err != nil {
		return fmt.Errorf("--pipeline: %w", err)
	}
	spec.PipelineYaml = string(b)
	return nil
}

func runSubmit(args []string, stdout, stderr io.Writer) error {
	fs, f, err := parseSubmit(args, stderr)
	if err != nil {
		return err
	}
	prio, err := service.ParsePriority(f.priority)
	if err != nil {
		return usageErrorf(fs, "--priority: %w", err)
	}
	cl, err := f.cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	spec, err := f.spec(ctx, fs, cl)
	if err != nil {
		return err
	}
	req := &pb.SubmitRequest{Spec: spec, Priority: prio, IdempotencyKey: f.idem}
	if f.deadline > 0 {
		req.DeadlineUnixMs = time.Now().Add(f.deadline).UnixMilli()
	}
	resp, err := cl.Submit(ctx, connect.NewRequest(req))
	if err != nil {
		return rpcError("submit", err)
	}
	if !f.await {
		f.cf.print(stdout, resp.Msg, func() { fmt.Fprintln(stdout, resp.Msg.JobId) })
		return nil
	}
	fmt.Fprintf(stderr, "prooflane submit: job %s\n", resp.Msg.JobId)
	return awaitJob(ctx, cl, f.cf, resp.Msg.JobId, f.af, stdout, stderr)
}

func runAwait(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("await", "JOB_ID", stderr)
	var cf clientFlags
	cf.register(fs)
	var af awaitFlags
	af.register(fs, "directory for the proofs, public inputs, verifying key and manifest, as prove writes them (replaced as a whole) once they verify; empty prints only the state")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "await takes one job id, got %d arguments", fs.NArg())
	}
	cl, err := cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	return awaitJob(ctx, cl, cf, fs.Arg(0), af, stdout, stderr)
}

// awaitJob streams a job's states to stderr and, with --out, writes its
// proofs once they verify (writeAwaited).
func awaitJob(ctx context.Context, cl prooflanev1connect.ProverServiceClient, cf clientFlags, id string, af awaitFlags, stdout, stderr io.Writer) error {
	stream, err := cl.Await(ctx, connect.NewRequest(&pb.AwaitRequest{JobId: id}))
	if err != nil {
		return rpcError("await", err)
	}
	defer stream.Close()
	var last *pb.AwaitResponse
	for stream.Receive() {
		last = stream.Msg()
		st := last.Status
		fmt.Fprintf(stderr, "prooflane await: job %s %s (%d/%d partitions)\n", id, service.LaneState(st.State), st.PartitionsDone, st.Partitions)
	}
	if err := stream.Err(); err != nil {
		return rpcError("await", err)
	}
	if last == nil || last.Status.State != pb.JobState_JOB_STATE_DONE {
		return fmt.Errorf("await: job %q: the stream ended before the job did", id)
	}
	from := ""
	if af.out != "" {
		if from, err = writeAwaited(af, awaited{id: id, status: last.Status, resp: last}, stderr); err != nil {
			return err
		}
	}
	cf.print(stdout, last.Status, func() {
		fmt.Fprintf(stdout, "job %s done by %s: %d proofs", id, last.Status.Worker, len(last.Proofs))
		if af.out != "" {
			fmt.Fprintf(stdout, ", verified with %s, written to %s", from, af.out)
		}
		fmt.Fprintln(stdout)
	})
	return nil
}

func runStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("status", "[JOB_ID]", stderr)
	var cf clientFlags
	cf.register(fs)
	limit := fs.Int("limit", 100, "jobs listed without a job id, the newest submitted first")
	page := fs.String("page-token", "", "list the jobs older than a previous listing's last (the token it printed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageErrorf(fs, "status takes at most one job id, got %d arguments", fs.NArg())
	}
	if *limit < 1 || *limit > service.MaxListJobs {
		return usageErrorf(fs, "--limit %d: want 1 to %d", *limit, service.MaxListJobs)
	}
	cl, err := cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if fs.NArg() == 1 {
		resp, err := cl.Status(ctx, connect.NewRequest(&pb.StatusRequest{JobId: fs.Arg(0)}))
		if err != nil {
			return rpcError("status", err)
		}
		cf.print(stdout, resp.Msg.Status, func() { printJob(stdout, resp.Msg.Status) })
		return nil
	}
	resp, err := cl.List(ctx, connect.NewRequest(&pb.ListRequest{Limit: uint32(*limit), PageToken: *page}))
	if err != nil {
		return rpcError("status", err)
	}
	cf.print(stdout, resp.Msg, func() {
		for _, l := range resp.Msg.Lanes {
			fmt.Fprintf(stdout, "lane %-8s queued %d, in flight %d\n", service.LaneName(l.Priority), l.Queued, l.InFlight)
		}
		for _, w := range resp.Msg.Workers {
			fmt.Fprintf(stdout, "worker %s (%s): %d of %d running, %d keys, %s\n", w.Name, w.Backend, w.Running, w.Slots, len(w.Keys), admitted(w.AdmittedBytes, w.BudgetBytes))
		}
		for _, j := range resp.Msg.Jobs {
			printJob(stdout, j)
		}
		if resp.Msg.NextPageToken != "" {
			fmt.Fprintf(stdout, "older jobs: --page-token %s\n", resp.Msg.NextPageToken)
		}
	})
	return nil
}

// admitted says how much memory a worker's admitted jobs hold, against
// its budget: "admitted 36 MiB of 15.6 GiB", or "admitted 36 MiB, no
// budget" for a worker that admits anything (it reports a budget of 0).
func admitted(bytes, budget uint64) string {
	if budget == 0 {
		return "admitted " + admission.HumanBytes(bytes) + ", no budget"
	}
	return "admitted " + admission.HumanBytes(bytes) + " of " + admission.HumanBytes(budget)
}

func printJob(w io.Writer, s *pb.JobStatus) {
	fmt.Fprintf(w, "job %s %s %s: %s %s/%d", s.JobId, service.LaneName(s.Priority), service.LaneState(s.State),
		s.Family, s.Spec.GetCircuit(), s.Spec.GetSize())
	if c := s.Spec.GetCurve(); c != "" {
		fmt.Fprintf(w, " on %s", c)
	}
	if h := s.Spec.GetCommitmentHash(); h != "" {
		fmt.Fprintf(w, " (%s commitments)", h)
	}
	fmt.Fprintf(w, ", %d/%d partitions", s.PartitionsDone, s.Partitions)
	if s.Worker != "" {
		fmt.Fprintf(w, ", worker %s", s.Worker)
	}
	if s.Error != "" {
		fmt.Fprintf(w, ": %s", s.Error)
	}
	fmt.Fprintln(w)
}

func runCancel(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cancel", "JOB_ID", stderr)
	var cf clientFlags
	cf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "cancel takes one job id, got %d arguments", fs.NArg())
	}
	cl, err := cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	resp, err := cl.Cancel(ctx, connect.NewRequest(&pb.CancelRequest{JobId: fs.Arg(0)}))
	if err != nil {
		return rpcError("cancel", err)
	}
	cf.print(stdout, resp.Msg.Status, func() { printJob(stdout, resp.Msg.Status) })
	return nil
}

func runKeys(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("keys", "[preload|evict]", stderr)
	var cf clientFlags
	cf.register(fs)
	pipeline := fs.String("pipeline", "groth16", "an embedded pipeline of the key's family (with --circuit-id: default the circuit's)")
	circuit := fs.String("circuit", "", "the key's built-in circuit (default: the family's default; none for a family without circuits)")
	size := fs.String("size", "2^12", "the key's size: 4096 or 2^12")
	circuitID := fs.String("circuit-id", "", "ID: the key of your own circuit, added with prooflane circuits add, instead of --circuit and --size")
	curve := curveFlag{id: family.DefaultCurve}
	fs.Var(&curve, "curve", "the built-in circuit's key's curve ("+curveNames()+"); a --circuit-id circuit's is its own")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 || (fs.NArg() == 1 && fs.Arg(0) != "preload" && fs.Arg(0) != "evict") {
		return usageErrorf(fs, "keys takes nothing, preload or evict, got %q", fs.Args())
	}
	cl, err := cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if fs.NArg() == 0 {
		return listKeys(ctx, cl, cf, stdout)
	}
	req := &pb.KeyRequest{Pipeline: *pipeline, Circuit: *circuit, CircuitId: *circuitID}
	what := *circuitID
	if *circuitID == "" {
		n, err := parseSize(*size)
		if err != nil {
			return usageErrorf(fs, "--size: %w", err)
		}
		req.Size, what = uint64(n), fmt.Sprintf("%s %s/%d", *pipeline, *circuit, n)
		if flagGiven(fs, "curve") {
			req.Curve = family.CurveName(curve.id)
			what += " on " + req.Curve
		}
	} else if err := circuitKeyFlags(fs, req); err != nil {
		return err
	}
	var resp *connect.Response[pb.KeyResponse]
	if fs.Arg(0) == "preload" {
		resp, err = cl.Preload(ctx, connect.NewRequest(req))
	} else {
		resp, err = cl.Evict(ctx, connect.NewRequest(req))
	}
	if err != nil {
		return rpcError("keys "+fs.Arg(0), err)
	}
	cf.print(stdout, resp.Msg, func() {
		fmt.Fprintf(stdout, "%s %s: %d workers done\n", fs.Arg(0), what, len(resp.Msg.Workers))
		for _, e := range resp.Msg.Errors {
			fmt.Fprintln(stdout, e)
		}
	})
	if len(resp.Msg.Errors) > 0 {
		return errSilent
	}
	return nil
}

// circuitKeyFlags fits req to --circuit-id: no built-in circuit's flags,
// and the circuit's pipeline unless --pipeline names one.
func circuitKeyFlags(fs *flag.FlagSet, req *pb.KeyRequest) error {
	for _, name := range []string{"circuit", "size", "curve"} {
		if flagGiven(fs, name) {
			return usageErrorf(fs, "--%s: a built-in circuit's; --circuit-id names your circuit's key", name)
		}
	}
	if !flagGiven(fs, "pipeline") {
		req.Pipeline = ""
	}
	return nil
}

// listKeys prints the keys each worker holds.
func listKeys(ctx context.Context, cl prooflanev1connect.ProverServiceClient, cf clientFlags, stdout io.Writer) error {
	resp, err := cl.List(ctx, connect.NewRequest(&pb.ListRequest{Limit: 1}))
	if err != nil {
		return rpcError("keys", err)
	}
	cf.print(stdout, resp.Msg.Workers, func() {
		for _, w := range resp.Msg.Workers {
			for _, k := range w.Keys {
				on := ""
				if k.Curve != "" {
					on = " on " + k.Curve
				}
				fmt.Fprintf(stdout, "worker %s: %s %s/%d%s (%s)\n", w.Name, k.Family, k.Circuit, k.Size, on, admission.HumanBytes(k.Bytes))
			}
		}
	})
	return nil
}
