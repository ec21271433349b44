package analyze

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/otel/tracegen"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// reportOfFile is the report `prooflane analyze` prints of a trace file.
func reportOfFile(t testing.TB, path string, opts Options) *Report {
	t.Helper()
	r, err := AnalyzeFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// generated writes a tracegen trace of at least n spans and returns its
// path.
func generated(t testing.TB, n int) (string, *tracegen.Truth) {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("gen-%d.jsonl", n))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	truth, err := tracegen.Write(w, tracegen.Config{Spans: n, Devices: 3, Seed: 1})
	if err == nil {
		err = errors.Join(w.Flush(), f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	return path, truth
}

// kernelTrace is smallTrace with two kernel spans in each gpu_compute run.
func kernelTrace() []tracefile.Span {
	spans := append(make([]tracefile.Span, 0, 64), smallTrace()...)
	b := &builder{spans: spans, n: 100}
	for i := range len(spans) {
		s := &b.spans[i]
		if s.Name != "gpu_compute" {
			continue
		}
		from := float64(s.Start.Sub(t0)) / float64(ms)
		for _, k := range []struct {
			name       string
			start, end float64
		}{{"msm_a", from, from + 10}, {"ntt_h", from + 10, from + 15}} {
			b.add(s, k.name, k.start, k.end, map[string]any{"prooflane.kind": "kernel", "prooflane.kernel": k.name,
				"prooflane.device": int64(0), "prooflane.gpu_time_ms": k.end - k.start - 1})
		}
	}
	return b.spans
}

// failedTrace is smallTrace whose epilogue of partition 1 failed.
func failedTrace() []tracefile.Span {
	spans := smallTrace()
	for i := range spans {
		if spans[i].Name == "epilogue" && spans[i].Attrs["prooflane.partition"] == int64(1) {
			spans[i].Status, spans[i].StatusMessage = tracefile.StatusError, "boom"
		}
	}
	return spans
}

// TestReportsMatchGolden pins every output (text, JSON, HTML, Perfetto)
// of traces of every format and shape, byte for byte, against the files in
// testdata/golden; outputs too large to keep are pinned by their SHA-256.
// go test ./otel/analyze -run TestReportsMatchGolden -update rewrites them.
func TestReportsMatchGolden(t *testing.T) {
	slice := func(spans func() []tracefile.Span, opts Options) func(testing.TB) *Report {
		return func(t testing.TB) *Report {
			r, err := Analyze(spans(), opts)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	file := func(path string, opts Options) func(testing.TB) *Report {
		return func(t testing.TB) *Report { return reportOfFile(t, path, opts) }
	}
	gen := func(n int) func(testing.TB) *Report {
		return func(t testing.TB) *Report {
			path, _ := generated(t, n)
			return reportOfFile(t, path, Options{})
		}
	}
	for _, tc := range []struct {
		name   string
		report func(testing.TB) *Report
		digest bool // keep the SHA-256 of the outputs, not the outputs
	}{
		{"small", slice(smallTrace, Options{}), false},
		{"small-gap25", slice(smallTrace, Options{MinGap: 25 * ms}), false},
		{"failed", slice(failedTrace, Options{}), false},
		{"kernels", slice(kernelTrace, Options{}), false},
		{"two-lock-serialized", slice(func() []tracefile.Span { return twoLockTrace(false) }, Options{}), false},
		{"two-lock-overlapping", slice(func() []tracefile.Span { return twoLockTrace(true) }, Options{}), false},
		{"declared", slice(declaredTrace, Options{}), false},
		{"declared-busy-stage", slice(declaredTrace, Options{BusyStage: "gpu_compute"}), false},
		{"big", slice(func() []tracefile.Span { return bigTrace(3, 10) }, Options{}), true},
		{"file-old-format", file("../tracefile/testdata/old-format.jsonl", Options{}), false},
		{"file-jaeger", file("../tracefile/testdata/jaeger.json", Options{}), false},
		{"file-sim-groth16-run", file("testdata/sim-groth16-run.jsonl", Options{}), false},
		{"generated-2k", gen(2000), true},
		{"generated-20k", gen(20000), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.report(t)
			outputs := map[string]func(*bytes.Buffer) error{
				"txt":           func(b *bytes.Buffer) error { return r.WriteText(b) },
				"json":          func(b *bytes.Buffer) error { return r.WriteJSON(b) },
				"html":          func(b *bytes.Buffer) error { return r.WriteHTML(b, "golden "+tc.name) },
				"perfetto.json": func(b *bytes.Buffer) error { return r.WritePerfetto(b) },
			}
			for ext, write := range outputs {
				var buf bytes.Buffer
				if err := write(&buf); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, tc.name+"."+ext, buf.Bytes(), tc.digest)
			}
		})
	}
}

// checkGolden compares got with testdata/golden/name (or, for digest, its
// SHA-256 with name.sha256); on a difference it leaves got beside the
// test's temporary files for diffing.
func checkGolden(t *testing.T, name string, got []byte, digest bool) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	want := got
	if digest {
		path += ".sha256"
		sum := sha256.Sum256(got)
		want = []byte(fmt.Sprintf("%x", sum) + "\n")
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(old, want) {
		out := filepath.Join(os.TempDir(), strings.ReplaceAll(t.Name(), "/", "_")+"-"+name)
		os.WriteFile(out, got, 0o644)
		t.Errorf("%s differs from %s; the output is in %s", name, path, out)
	}
}
