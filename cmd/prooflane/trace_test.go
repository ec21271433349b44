package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// otlpReceiver is a fake OTLP/HTTP collector keeping every request.
func otlpReceiver(t *testing.T) (*httptest.Server, func() []*coltracepb.ExportTraceServiceRequest) {
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		req := &coltracepb.ExportTraceServiceRequest{}
		if r.URL.Path != "/v1/traces" || err != nil || proto.Unmarshal(b, req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []*coltracepb.ExportTraceServiceRequest {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// spanKey is what a replay must keep of a span: ids, name, times.
func spanKeys(spans []tracefile.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, strings.Join([]string{s.TraceID, s.SpanID, s.ParentID, s.Name,
			s.Start.Format("2006-01-02T15:04:05.999999999"), s.End.Format("2006-01-02T15:04:05.999999999")}, " "))
	}
	sort.Strings(out)
	return out
}

// trace send replays a file written by run (OTLP JSON) and a file in the
// older JSON-lines format to an OTLP endpoint with the original trace and
// span ids, parents and timestamps. The first is sent as the README
// writes it, the flags after the file.
func TestTraceSendReplaysAFileWithItsIDsAndTimes(t *testing.T) {
	recorded := recordTrace(t, `
pipeline: send
params: {partitions: 2}
resources:
  m: {}
stages:
  a: {type: sim.sleep, locks: [m], config: {duration: 1ms}}
  b: {type: sim.sleep, needs: [a], config: {duration: 1ms}}
`, 1)
	for _, file := range []string{recorded, "../../otel/tracefile/testdata/old-format.jsonl"} {
		t.Run(file, func(t *testing.T) {
			srv, got := otlpReceiver(t)
			args := []string{"trace", "send", "--protocol", "http", "--endpoint", srv.URL, file}
			if file == recorded {
				args = []string{"trace", "send", file, "--endpoint", srv.URL, "--protocol", "http"}
			}
			rc, out, stderr := prooflane(t, args...)
			if rc != 0 {
				t.Fatalf("exit %d: %s%s", rc, out, stderr)
			}
			want, err := tracefile.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			var sent []tracefile.Span
			for _, req := range got() {
				b, err := tracefile.MarshalRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				spans, err := tracefile.Parse("sent", b)
				if err != nil {
					t.Fatal(err)
				}
				sent = append(sent, spans...)
			}
			if w, g := spanKeys(want), spanKeys(sent); strings.Join(w, "\n") != strings.Join(g, "\n") {
				t.Errorf("sent spans differ from the file's:\n got %q\nwant %q", g, w)
			}
			if !strings.Contains(out, "sent ") || len(want) == 0 {
				t.Errorf("stdout %q, %d spans in the file", out, len(want))
			}
		})
	}
}

func TestTraceSendUsageMistakesExitTwoWithTheReasonFirst(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace"}, "prooflane trace: want a subcommand: send"},
		{[]string{"trace", "sned", "x"}, `prooflane trace: unknown subcommand "sned" (did you mean "send"?) (want send)`},
		{[]string{"trace", "send"}, "prooflane trace: want one trace file, got 0 arguments"},
		{[]string{"trace", "send", "--protocol", "udp", "x"}, `prooflane trace: --protocol "udp": want grpc or http`},
	} {
		rc, _, stderr := prooflane(t, tc.args...)
		if rc != 2 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q first", tc.args, rc, stderr, tc.want)
		}
	}
	// A collector that is not there is a failure naming it.
	rc, _, stderr := prooflane(t, "trace", "send", "--endpoint", "127.0.0.1:1", "../../otel/tracefile/testdata/old-format.jsonl")
	if rc != 1 || !strings.Contains(stderr, "otlp grpc 127.0.0.1:1") {
		t.Errorf("dead collector: exit %d, stderr %q", rc, stderr)
	}
}
