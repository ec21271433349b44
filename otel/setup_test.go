package otel

import (
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

func TestFileExporterWritesEverySpanReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	p, err := Setup(context.Background(), Config{
		File:       path,
		Attributes: []attribute.KeyValue{semconv.KeyPipeline.String("groth16"), semconv.KeyBackend.String("cpu")},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.TracerProvider().Tracer("test")
	ctx, job := tr.Start(context.Background(), "job groth16")
	job.SetAttributes(semconv.KeyKind.String(semconv.KindJob), semconv.KeyPartitions.Int(2))
	for i := range 2 {
		_, st := tr.Start(ctx, "prep_msm")
		st.SetAttributes(semconv.KeyKind.String(semconv.KindStage), semconv.KeyPartition.Int(i), semconv.KeyLocks.StringSlice([]string{"gpu.0.compute", "gpu.0.mem"}))
		if i == 1 {
			st.RecordError(errors.New("out of memory"))
			st.SetStatus(codes.Error, "out of memory")
		}
		st.End()
	}
	job.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	spans, err := tracefile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 3 {
		t.Fatalf("read %d spans, want 3", len(spans))
	}
	var root *tracefile.Span
	for i := range spans {
		if spans[i].ParentID == "" {
			root = &spans[i]
		}
	}
	if root == nil || root.Name != "job groth16" || root.IntOr(string(semconv.KeyPartitions), -1) != 2 {
		t.Fatalf("root span = %+v", root)
	}
	if got := root.Resource["service.name"]; got != DefaultServiceName {
		t.Errorf("service.name = %v, want %q", got, DefaultServiceName)
	}
	if got := root.Resource[string(semconv.KeyPipeline)]; got != "groth16" {
		t.Errorf("resource pipeline = %v", got)
	}
	errs := 0
	for _, s := range spans {
		if s.ParentID == "" {
			continue
		}
		if s.ParentID != root.SpanID || s.TraceID != root.TraceID {
			t.Errorf("span %q parent %s/%s, want %s/%s", s.Name, s.TraceID, s.ParentID, root.TraceID, root.SpanID)
		}
		if got := strings.Join(s.Strings(string(semconv.KeyLocks)), ","); got != "gpu.0.compute,gpu.0.mem" {
			t.Errorf("locks = %q", got)
		}
		if s.Status == tracefile.StatusError {
			errs++
			if s.StatusMessage != "out of memory" || len(s.Events) != 1 || s.Events[0].Name != "exception" {
				t.Errorf("error span: message %q events %+v", s.StatusMessage, s.Events)
			}
		}
	}
	if errs != 1 {
		t.Errorf("%d error spans, want 1", errs)
	}
}

// A trace file that cannot be written (a full disk: /dev/full) is a
// TraceFileError naming the file, with no hint about a collector.
func TestTraceFileWriteFailureIsATraceFileError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	p, err := Setup(context.Background(), Config{File: "/dev/full"})
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.TracerProvider().Tracer("test").Start(context.Background(), "x")
	s.End()
	err = p.Shutdown(context.Background())
	var tfe *TraceFileError
	if !errors.As(err, &tfe) || tfe.File != "/dev/full" || tfe.Lost != 1 {
		t.Fatalf("err = %#v, want a TraceFileError for /dev/full with 1 span lost", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `trace file "/dev/full"`) || !strings.Contains(msg, "no space left on device") ||
		strings.Contains(msg, "collector") {
		t.Errorf("message %q", msg)
	}
}

func TestServiceNameFromEnvWins(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "from-env")
	path := filepath.Join(t.TempDir(), "t.jsonl")
	p, err := Setup(context.Background(), Config{File: path, ServiceName: "from-config"})
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.TracerProvider().Tracer("t").Start(context.Background(), "x")
	s.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans, err := tracefile.Read(path)
	if err != nil || len(spans) != 1 {
		t.Fatalf("read: %v, %d spans", err, len(spans))
	}
	if got := spans[0].Resource["service.name"]; got != "from-env" {
		t.Errorf("service.name = %v, want from-env", got)
	}
}

func TestSetupRejectsUnknownExporter(t *testing.T) {
	_, err := Setup(context.Background(), Config{Exporter: "jaeger"})
	if err == nil || !strings.Contains(err.Error(), `trace exporter "jaeger" not recognised`) {
		t.Fatalf("err = %v", err)
	}
}

func TestNoneExporterTracesNothing(t *testing.T) {
	p, err := Setup(context.Background(), Config{Exporter: ExporterNone})
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.TracerProvider().Tracer("t").Start(context.Background(), "x")
	if s.SpanContext().IsValid() {
		t.Error("none exporter made a recording span")
	}
	s.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestRegisterFlagsSetsConfig(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if c.Exporter != ExporterFile || c.File != DefaultFile {
		t.Fatalf("defaults: %+v", c)
	}
	if err := fs.Parse([]string{"--trace", "otlp", "--trace-endpoint", "http://127.0.0.1:4317", "--trace-file", "a.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if c.Exporter != "otlp" || c.Endpoint != "http://127.0.0.1:4317" || c.File != "a.jsonl" {
		t.Fatalf("parsed: %+v", c)
	}
}

func TestProtocolFollowsStandardVariables(t *testing.T) {
	for _, tc := range []struct {
		exporter, proto, tracesProto, want string
	}{
		{"otlp", "", "", ExporterOTLPGRPC},
		{"otlp", "http/protobuf", "", ExporterOTLPHTTP},
		{"otlp", "http/protobuf", "grpc", ExporterOTLPGRPC},
		{"otlp-grpc", "http/protobuf", "", ExporterOTLPGRPC},
		{"otlp-http", "", "", ExporterOTLPHTTP},
	} {
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tc.proto)
		t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", tc.tracesProto)
		got, err := protocol(tc.exporter)
		if err != nil || got != tc.want {
			t.Errorf("%s with %q/%q = %q, %v; want %q", tc.exporter, tc.proto, tc.tracesProto, got, err, tc.want)
		}
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "")
	if _, err := protocol("otlp"); err == nil {
		t.Error("http/json accepted")
	}
}

func TestPlainTextForLocalCollectors(t *testing.T) {
	for _, tc := range []struct {
		override, env string
		envInsecure   bool
		want          bool
	}{
		{"", "", false, true},                               // default localhost collector
		{"", "", true, false},                               // OTEL_EXPORTER_OTLP_INSECURE decides
		{"", "http://127.0.0.1:4317", false, false},         // the scheme decides inside the exporter
		{"", "127.0.0.1:4317", false, true},                 // bare loopback
		{"", "collector.example:4317", false, false},        // bare remote: TLS
		{"localhost:4317", "", false, true},                 // flag, bare loopback
		{"[::1]:4317", "", false, true},                     // IPv6 loopback
		{"collector.example:4317", "", false, false},        // flag, bare remote
		{"https://127.0.0.1:4317", "", false, false},        // scheme decides
		{"127.0.0.1:4317", "https://x.example", true, true}, // flag beats env
	} {
		raw := tc.override
		if raw == "" {
			raw = tc.env
		}
		var ep endpoint
		if raw != "" {
			var err error
			if ep, err = parseEndpoint(raw); err != nil {
				t.Fatal(err)
			}
		}
		if got := plainText(tc.override, ep, raw, tc.envInsecure); got != tc.want {
			t.Errorf("override %q env %q insecure-env %v: plain text %v, want %v", tc.override, tc.env, tc.envInsecure, got, tc.want)
		}
	}
}

// collector is a fake OTLP/HTTP receiver counting requests.
func collector(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		n.Add(1)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestOTLPHTTPDeliversToStandardEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(url string) Config
		env  func(url string) map[string]string
	}{
		{"env endpoint and protocol", func(string) Config { return Config{Exporter: ExporterOTLP} },
			func(u string) map[string]string {
				return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": u, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
			}},
		{"flag endpoint url", func(u string) Config { return Config{Exporter: ExporterOTLPHTTP, Endpoint: u} },
			func(string) map[string]string { return nil }},
		{"flag bare loopback", func(u string) Config {
			return Config{Exporter: ExporterOTLPHTTP, Endpoint: strings.TrimPrefix(u, "http://")}
		}, func(string) map[string]string { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := collector(t)
			for k, v := range tc.env(srv.URL) {
				t.Setenv(k, v)
			}
			p, err := Setup(context.Background(), tc.cfg(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			_, s := p.TracerProvider().Tracer("t").Start(context.Background(), "x")
			s.End()
			if err := p.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n.Load() == 0 {
				t.Error("collector got no request")
			}
		})
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestShutdownWarnsInsteadOfHangingWhenCollectorIsDown(t *testing.T) {
	for _, exporter := range []string{ExporterOTLPGRPC, ExporterOTLPHTTP} {
		t.Run(exporter, func(t *testing.T) {
			addr := closedPort(t)
			p, err := Setup(context.Background(), Config{Exporter: exporter, Endpoint: "http://" + addr})
			if err != nil {
				t.Fatal(err)
			}
			_, s := p.TracerProvider().Tracer("t").Start(context.Background(), "x")
			s.End()
			done := make(chan error, 1)
			go func() { done <- p.Shutdown(context.Background()) }()
			select {
			case err = <-done:
			case <-time.After(time.Minute): // Shutdown is bounded by ShutdownTimeout; a minute means a hang
				t.Fatal("Shutdown hung with the collector down")
			}
			if err == nil {
				t.Fatal("Shutdown reported success with the collector down")
			}
			for _, want := range []string{addr, "is the collector running?"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("warning %q lacks %q", err, want)
				}
			}
		})
	}
}

// blackhole accepts connections and never answers, like a collector
// behind a dead proxy.
func blackhole(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

func TestShutdownIsBoundedWhenCollectorNeverAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the shutdown timeout")
	}
	addr := blackhole(t)
	p, err := Setup(context.Background(), Config{Exporter: ExporterOTLPGRPC, Endpoint: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, s := p.TracerProvider().Tracer("t").Start(context.Background(), "x")
		s.End()
	}
	done := make(chan error, 1)
	go func() { done <- p.Shutdown(context.Background()) }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Shutdown hung on a collector that never answers")
	}
	// The spans were still in an export when the flush gave up: none was
	// delivered, and the warning says so (it once counted them as sent).
	for _, want := range []string{"3 of 3 spans not delivered", addr, "is the collector running?"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
}
