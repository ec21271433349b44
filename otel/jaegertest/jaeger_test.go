package jaegertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// repoRoot is where the module's go.mod is, from this package.
const repoRoot = "../.."

// jaeger is a running Jaeger with its endpoints.
type jaeger struct {
	otlpGRPC string // host:port
	otlpHTTP string
	query    string // http://host:port
}

// freePort returns a loopback address nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startJaeger runs $PROOFLANE_JAEGER with tools/jaeger/config.yaml on free
// ports and waits until its health check says it is up.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	bin := os.Getenv("PROOFLANE_JAEGER")
	if bin == "" {
		t.Skip("PROOFLANE_JAEGER is not set: build Jaeger with `scripts/jaeger.sh build` and set PROOFLANE_JAEGER=$PWD/bin/jaeger to run the Jaeger integration test")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("PROOFLANE_JAEGER=%q: %v", bin, err)
	}
	config, err := filepath.Abs(filepath.Join(repoRoot, "tools/jaeger/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	j := &jaeger{otlpGRPC: freePort(t), otlpHTTP: freePort(t)}
	queryAddr, health := freePort(t), freePort(t)
	j.query = "http://" + queryAddr
	cmd := exec.Command(bin, "--config", config)
	cmd.Env = append(os.Environ(),
		"PROOFLANE_JAEGER_OTLP_GRPC="+j.otlpGRPC, "PROOFLANE_JAEGER_OTLP_HTTP="+j.otlpHTTP,
		"PROOFLANE_JAEGER_QUERY="+queryAddr, "PROOFLANE_JAEGER_QUERY_GRPC="+freePort(t),
		"PROOFLANE_JAEGER_HEALTH="+health)
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting jaeger: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("jaeger log:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + health + "/status")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"healthy":true`)) {
				return j
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("jaeger exited: %v\n%s", err, logs.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("jaeger not healthy after 60s:\n%s", logs.String())
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// prooflane builds the command once per test binary.
func prooflane(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "prooflane-jaegertest-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "prooflane")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/prooflane")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/prooflane: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// runProoflane runs the command from the repository root with extra
// environment; it returns stdout, stderr and the exit error.
func runProoflane(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prooflane(t), args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// jaegerTrace is one trace of Jaeger's v1 query API.
type jaegerTrace struct {
	TraceID string `json:"traceID"`
	Spans   []struct {
		SpanID        string `json:"spanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		Duration int64 `json:"duration"`
		Tags     []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"tags"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
		Tags        []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"tags"`
	} `json:"processes"`
}

// fetchTrace polls Jaeger until service has a trace with a job span whose
// span count has stopped growing, and returns that trace's raw JSON (as
// /api/traces/{id} serves it) and its parsed spans.
func fetchTrace(t *testing.T, j *jaeger, service string) ([]byte, []tracefile.Span) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last []byte
	lastCount := -1
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		resp, err := http.Get(fmt.Sprintf("%s/api/traces?service=%s&lookback=1h&limit=20", j.query, service))
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			continue
		}
		spans, err := tracefile.Parse("jaeger", body)
		if err != nil {
			t.Fatalf("parsing jaeger's answer: %v\n%s", err, body)
		}
		hasJob := slices.ContainsFunc(spans, func(s tracefile.Span) bool { return s.Str("prooflane.kind") == "job" })
		if hasJob && len(spans) == lastCount {
			return body, spans
		}
		last, lastCount = body, len(spans)
	}
	t.Fatalf("no complete prooflane trace for service %q in jaeger after 30s; last answer:\n%s", service, last)
	return nil, nil
}

func kind(s tracefile.Span) string { return s.Str("prooflane.kind") }

func TestJaegerShowsGroth16SpanTree(t *testing.T) {
	j := startJaeger(t)
	service := fmt.Sprintf("prooflane-it-%d", time.Now().UnixNano())
	out := t.TempDir()
	const partitions = 2
	// cpu_bandwidth=2: synthesize takes both units, so the partitions
	// contend for it and lock_wait spans are likely.
	_, stderr, err := runProoflane(t,
		[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + j.otlpGRPC, "OTEL_SERVICE_NAME=" + service},
		"prove", "--pipeline", "pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^8",
		"--partitions", fmt.Sprint(partitions), "--set", "cpu_bandwidth=2", "--out", out, "--keys", filepath.Join(out, "keys"),
		"--trace", "otlp", "--progress", "off")
	if err != nil {
		t.Fatalf("prove: %v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("prove warned with jaeger up:\n%s", stderr)
	}
	raw, spans := fetchTrace(t, j, service)

	byID := map[string]tracefile.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	var jobs, parts, stageSpans, waits []tracefile.Span
	for _, s := range spans {
		switch kind(s) {
		case "job":
			jobs = append(jobs, s)
		case "partition":
			parts = append(parts, s)
		case "stage":
			stageSpans = append(stageSpans, s)
		case "lock_wait":
			waits = append(waits, s)
		}
	}
	if len(jobs) != 1 {
		t.Fatalf("%d job spans, want 1", len(jobs))
	}
	job := jobs[0]
	if job.ParentID != "" || job.Name != "job groth16" || job.IntOr("prooflane.partitions", 0) != partitions || job.Status == tracefile.StatusError {
		t.Errorf("job span: name %q parent %q partitions %v status %q", job.Name, job.ParentID, job.Attrs["prooflane.partitions"], job.Status)
	}
	res := job.Resource
	for k, want := range map[string]any{"service.name": service, "prooflane.pipeline": "groth16", "prooflane.backend": "cpu",
		"prooflane.circuit": "chain", "prooflane.size": int64(256), "prooflane.devices": int64(1)} {
		if res[k] != want {
			t.Errorf("resource %s = %v (%T), want %v", k, res[k], res[k], want)
		}
	}
	if h, _ := res["prooflane.pipeline_sha256"].(string); len(h) != 64 {
		t.Errorf("resource prooflane.pipeline_sha256 = %q, want a sha256", h)
	}

	if len(parts) != partitions {
		t.Fatalf("%d partition spans, want %d", len(parts), partitions)
	}
	partByIndex := map[int64]tracefile.Span{}
	for _, p := range parts {
		if p.ParentID != job.SpanID {
			t.Errorf("%s: parent %q, want the job span %q", p.Name, p.ParentID, job.SpanID)
		}
		partByIndex[p.IntOr("prooflane.partition", -1)] = p
	}
	wantStages := []string{"b_g2_msm", "epilogue", "gpu_compute", "prep_msm", "synthesize", "vram_stage"}
	perPart := map[int64][]string{}
	for _, s := range stageSpans {
		i := s.IntOr("prooflane.partition", -1)
		perPart[i] = append(perPart[i], s.Name)
		if p, ok := partByIndex[i]; !ok || s.ParentID != p.SpanID {
			t.Errorf("stage %q of partition %d: parent %q is not its partition span", s.Name, i, s.ParentID)
		}
		for _, k := range []string{"prooflane.stage", "prooflane.stage_type", "prooflane.device", "prooflane.worker",
			"prooflane.attempt", "prooflane.wait_ms", "prooflane.hold_ms", "prooflane.job", "prooflane.pipeline"} {
			if _, ok := s.Attrs[k]; !ok {
				t.Errorf("stage %q of partition %d lacks %s", s.Name, i, k)
			}
		}
		if typ := s.Str("prooflane.stage_type"); typ != "groth16."+s.Name {
			t.Errorf("stage %q has type %q", s.Name, typ)
		}
		if s.Name == "gpu_compute" {
			if l := s.Strings("prooflane.locks"); !slices.Contains(l, "gpu.0.compute") || !slices.Contains(l, "gpu.0.mem") {
				t.Errorf("gpu_compute of partition %d holds %q, want gpu.0.compute and gpu.0.mem", i, l)
			}
			if d := s.IntOr("prooflane.device", -1); d != 0 {
				t.Errorf("gpu_compute of partition %d on device %d", i, d)
			}
		}
		if s.Status == tracefile.StatusError {
			t.Errorf("stage %q of partition %d failed: %s", s.Name, i, s.StatusMessage)
		}
	}
	for i := int64(0); i < partitions; i++ {
		got := perPart[i]
		sort.Strings(got)
		if !slices.Equal(got, wantStages) {
			t.Errorf("partition %d stage spans %q, want %q", i, got, wantStages)
		}
	}
	// Whether the second synthesis has to wait depends on how the two
	// partitions interleave; TestJaegerShowsLockWait forces a wait. Here
	// every wait that happened must be well formed.
	checkLockWaits(t, waits, partByIndex)

	// prooflane analyze reads what Jaeger serves.
	var doc struct {
		Data []jaegerTrace `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Data) != 1 {
		t.Fatalf("jaeger answer: %v, %d traces", err, len(doc.Data))
	}
	export := filepath.Join(t.TempDir(), "jaeger.json")
	if err := os.WriteFile(export, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runProoflane(t, nil, "analyze", export)
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, fmt.Sprintf("1 jobs (0 failed), %d partitions", partitions)) || !strings.Contains(stdout, "device 0: busy") {
		t.Errorf("analyze of the Jaeger export:\n%s", stdout)
	}
	rep, err := analyze.Analyze(spans, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Stages) != len(wantStages) {
		t.Errorf("analysis found %d stages", len(rep.Stages))
	}
}

// runToJaeger runs the pipeline src with its traces going to j under a
// service name of its own, and returns that name, the run's stderr and its
// error.
func runToJaeger(t *testing.T, j *jaeger, src string) (service, stderr string, err error) {
	t.Helper()
	service = fmt.Sprintf("prooflane-it-%d", time.Now().UnixNano())
	pipeline := filepath.Join(t.TempDir(), "pipeline.yaml")
	if err := os.WriteFile(pipeline, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runProoflane(t,
		[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + j.otlpGRPC, "OTEL_SERVICE_NAME=" + service},
		"run", "--trace", "otlp", "--progress", "off", pipeline)
	return service, stderr, err
}

// checkLockWaits checks that each lock_wait span names its resource, hangs
// under its partition's span and says how long it waited, matching its own
// duration; it returns the waits per resource.
func checkLockWaits(t *testing.T, waits []tracefile.Span, partByIndex map[int64]tracefile.Span) map[string][]tracefile.Span {
	t.Helper()
	byResource := map[string][]tracefile.Span{}
	for _, w := range waits {
		r := w.Str("prooflane.resource")
		byResource[r] = append(byResource[r], w)
		if w.Name != "wait "+r {
			t.Errorf("lock wait span %q for resource %q", w.Name, r)
		}
		if p, ok := partByIndex[w.IntOr("prooflane.partition", -1)]; !ok || w.ParentID != p.SpanID {
			t.Errorf("lock wait %q: parent is not its partition span", w.Name)
		}
		ms, ok := w.Float("prooflane.wait_ms")
		if !ok || ms <= 0 {
			t.Errorf("lock wait %q: wait_ms %v", w.Name, w.Attrs["prooflane.wait_ms"])
		}
		if d := w.Duration(); d <= 0 || abs(d.Seconds()*1000-ms) > 1 {
			t.Errorf("lock wait %q lasts %v but says wait_ms %v", w.Name, d, ms)
		}
	}
	return byResource
}

// contended is a sim pipeline whose two synthesize workers share a lock of
// capacity 1 and hold it for 300 ms each: whichever worker comes second
// waits for the first, unless the scheduler starts it 300 ms late.
const contended = `pipeline: contended
params: {partitions: 2}
devices: 1
resources:
  cpu_bandwidth: {capacity: 1}
stages:
  synthesize:
    type: sim.sleep
    workers: 2
    locks: [cpu_bandwidth]
    config: {duration: 300ms}
`

func TestJaegerShowsLockWait(t *testing.T) {
	j := startJaeger(t)
	service, stderr, err := runToJaeger(t, j, contended)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	_, spans := fetchTrace(t, j, service)
	partByIndex := map[int64]tracefile.Span{}
	var waits []tracefile.Span
	for _, s := range spans {
		switch kind(s) {
		case "partition":
			partByIndex[s.IntOr("prooflane.partition", -1)] = s
		case "lock_wait":
			waits = append(waits, s)
		}
	}
	cpu := checkLockWaits(t, waits, partByIndex)["cpu_bandwidth"]
	if len(cpu) != 1 {
		t.Fatalf("%d waits on cpu_bandwidth, want 1 (the second synthesis waits for the first)", len(cpu))
	}
	if st := cpu[0].Str("prooflane.stage"); st != "synthesize" {
		t.Errorf("the wait on cpu_bandwidth is by stage %q, want synthesize", st)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// failing is a sim pipeline whose gpu_compute fails on partition 1.
const failing = `pipeline: failing
params: {partitions: 2}
devices: 1
resources:
  gpu.{gpu}.compute: {}
stages:
  synthesize: {type: sim.sleep, workers: 2, config: {duration: 5ms}}
  gpu_compute:
    type: sim.device
    needs: [synthesize]
    locks: ["gpu.{gpu}.compute"]
    config: {duration: 5ms, fail: {partitions: [1], message: "injected kernel failure"}}
`

func TestJaegerShowsFailedStageAsError(t *testing.T) {
	j := startJaeger(t)
	service, stderr, err := runToJaeger(t, j, failing)
	if err == nil {
		t.Fatalf("run of a failing pipeline succeeded:\n%s", stderr)
	}
	_, spans := fetchTrace(t, j, service)
	var failedStage, failedPart, failedJob bool
	for _, s := range spans {
		isErr := s.Status == tracefile.StatusError
		switch {
		case kind(s) == "stage" && s.Name == "gpu_compute" && s.IntOr("prooflane.partition", -1) == 1:
			failedStage = isErr && strings.Contains(s.StatusMessage, "injected kernel failure")
		case kind(s) == "stage" && isErr && !strings.Contains(s.StatusMessage, "context canceled"):
			// Stages still running when the job failed are cancelled,
			// and say so; nothing else may be marked failed.
			t.Errorf("stage %q of partition %d marked failed: %s", s.Name, s.IntOr("prooflane.partition", -1), s.StatusMessage)
		case kind(s) == "partition" && s.IntOr("prooflane.partition", -1) == 1:
			failedPart = isErr
		case kind(s) == "job":
			failedJob = isErr
		}
	}
	if !failedStage || !failedPart || !failedJob {
		t.Errorf("error status: stage %v, partition %v, job %v; want all three", failedStage, failedPart, failedJob)
	}
}

func TestUnreachableCollectorWarnsInsteadOfHanging(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the prooflane command")
	}
	pipeline := filepath.Join(t.TempDir(), "ok.yaml")
	ok := strings.Replace(failing, `, fail: {partitions: [1], message: "injected kernel failure"}`, "", 1)
	if err := os.WriteFile(pipeline, []byte(ok), 0o644); err != nil {
		t.Fatal(err)
	}
	dead := freePort(t)
	prooflane(t) // built before the clock starts: a build under -race on a busy machine takes minutes
	began := time.Now()
	_, stderr, err := runProoflane(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + dead},
		"run", "--trace", "otlp", "--progress", "off", pipeline)
	if err != nil {
		t.Fatalf("run failed because the collector is down (it should only warn): %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "warning") || !strings.Contains(stderr, dead) || !strings.Contains(stderr, "is the collector running?") {
		t.Errorf("stderr lacks a clear warning naming %s:\n%s", dead, stderr)
	}
	if el := time.Since(began); el > 3*time.Minute { // the flush gives up after 5 s; minutes mean a hang
		t.Errorf("run took %v with the collector down", el)
	}
}

// A trace file written by prove (OTLP JSON, the default --trace file) is
// replayed with `prooflane trace send` and found through Jaeger's query
// API with every span, its ids, parent and times unchanged.
func TestJaegerFindsATraceFileSentWithTraceSend(t *testing.T) {
	j := startJaeger(t)
	service := fmt.Sprintf("prooflane-send-%d", time.Now().UnixNano())
	out := t.TempDir()
	_, stderr, err := runProoflane(t, []string{"OTEL_SERVICE_NAME=" + service},
		"prove", "--pipeline", "pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^8",
		"--partitions", "2", "--out", out, "--keys", filepath.Join(out, "keys"), "--progress", "off")
	if err != nil {
		t.Fatalf("prove: %v\n%s", err, stderr)
	}
	file := filepath.Join(out, "trace.jsonl")
	written, err := tracefile.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runProoflane(t, nil, "trace", "send", "--endpoint", j.otlpGRPC, file)
	if err != nil || stderr != "" {
		t.Fatalf("trace send: %v\n%s%s", err, stdout, stderr)
	}
	_, found := fetchTrace(t, j, service)
	// Jaeger keeps microseconds and may drop leading zeros of ids.
	id := func(s tracefile.Span) string {
		return strings.TrimLeft(s.TraceID, "0") + "/" + strings.TrimLeft(s.SpanID, "0")
	}
	got := map[string]tracefile.Span{}
	for _, s := range found {
		got[id(s)] = s
	}
	near := func(a, b time.Time) bool { return a.Sub(b).Abs() <= 2*time.Microsecond }
	for _, w := range written {
		g, ok := got[id(w)]
		switch {
		case !ok:
			t.Errorf("span %q (%s) of the file not found in jaeger", w.Name, id(w))
		case g.Name != w.Name || strings.TrimLeft(g.ParentID, "0") != strings.TrimLeft(w.ParentID, "0") || !near(g.Start, w.Start) || !near(g.End, w.End):
			t.Errorf("span %s: jaeger has %q parent %s %v-%v, the file %q parent %s %v-%v",
				id(w), g.Name, g.ParentID, g.Start, g.End, w.Name, w.ParentID, w.Start, w.End)
		}
	}
	if len(got) != len(written) {
		t.Errorf("jaeger has %d spans for the service, the file %d", len(got), len(written))
	}
	holds := 0
	for _, s := range found {
		if kind(s) == "lock_hold" {
			holds++
		}
	}
	if holds == 0 {
		t.Error("no lock_hold spans in jaeger's copy of the trace")
	}
}
