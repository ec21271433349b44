package tracefile_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/tracefile"
	"github.com/prooflane/prooflane/otel/tracegen"
)

// viaProtojson decodes an OTLP JSON line the way `trace send` does, through
// protojson, into Spans.
func viaProtojson(line []byte) ([]tracefile.Span, error) {
	req, err := tracefile.UnmarshalRequest(line)
	if err != nil {
		return nil, err
	}
	return tracefile.SpansOf(req), nil
}

// text prints spans for comparing: fmt sorts map keys, and NaN prints as
// itself where reflect.DeepEqual would find it unequal.
func text(spans []tracefile.Span) string { return fmt.Sprintf("%+v", spans) }

// The direct decoder reads every line of a generated trace into the spans
// protojson reads from it.
func TestDirectDecoderAgreesWithProtojsonOnAGeneratedTrace(t *testing.T) {
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, tracegen.Config{Spans: 3000, Devices: 3, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, tracefile.MaxLineSize)
	lines := 0
	for sc.Scan() {
		lines++
		got, err := tracefile.SpansOfLine(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		want, err := viaProtojson(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if text(got) != text(want) {
			t.Fatalf("line %d:\n got %s\nwant %s", lines, text(got), text(want))
		}
	}
	if lines < 5 {
		t.Fatalf("%d lines", lines)
	}
}

// Values protojson accepts in forms prooflane does not write (numbers for
// 64-bit integers, strings for doubles, enum names, upper-case hex, both
// base64 alphabets, key-value lists) read alike both ways.
func TestDirectDecoderAgreesWithProtojsonOnEveryValueForm(t *testing.T) {
	const ids = `"traceId":"5E72AB0000000000000000000000cd01","spanId":"B369000000000001","parentSpanId":"f382000000000002"`
	for _, line := range []string{
		`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"p"}}]},"scopeSpans":[{"spans":[{` + ids +
			`,"name":"a","startTimeUnixNano":1764573340942260295,"endTimeUnixNano":"1764573340975979728","attributes":[` +
			`{"key":"i","value":{"intValue":42}},{"key":"is","value":{"intValue":"-7"}},{"key":"d","value":{"doubleValue":"1.5"}},` +
			`{"key":"nan","value":{"doubleValue":"NaN"}},{"key":"inf","value":{"doubleValue":"-Infinity"}},{"key":"b","value":{"boolValue":true}},` +
			`{"key":"bytes","value":{"bytesValue":"-_8"}},{"key":"std","value":{"bytesValue":"+/8="}},{"key":"empty","value":{}},` +
			`{"key":"arr","value":{"arrayValue":{"values":[{"stringValue":"x"},{"intValue":"1"},{"arrayValue":{}}]}}},` +
			`{"key":"kv","value":{"kvlistValue":{"values":[{"key":"z","value":{"intValue":"1"}},{"key":"a","value":{"stringValue":"q"}}]}}}],` +
			`"events":[{"timeUnixNano":"5","name":"exception","attributes":[{"key":"m","value":{"stringValue":"oom"}}]}],` +
			`"links":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000001"}],` +
			`"status":{"code":"STATUS_CODE_ERROR","message":"oom"}}]}]}]}`,
		`{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{` + ids + `,"name":"b","status":{"code":1}},{` + ids + `,"name":"c","status":{"code":7}},` +
			`{` + ids + `,"name":"d","status":{"code":"STATUS_CODE_MAYBE"}}]}]},` +
			`{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000001","spanId":"0000000000000001","parentSpanId":"","status":{}}]}]}]}`,
		`{"resourceSpans":[]}`,
	} {
		got, err := tracefile.SpansOfLine([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		want, err := viaProtojson([]byte(line))
		if err != nil {
			t.Fatalf("protojson: %s: %v", line, err)
		}
		if text(got) != text(want) {
			t.Errorf("%s:\n got %s\nwant %s", line, text(got), text(want))
		}
	}
}

// Lines protojson refuses are refused; ids are checked with its messages.
func TestDirectDecoderRefusesWhatProtojsonRefuses(t *testing.T) {
	span := func(fields string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[{` + fields + `}]}]}]}`
	}
	const ok = `"traceId":"00000000000000000000000000000001","spanId":"0000000000000001"`
	for _, tc := range []struct{ line, want string }{
		{span(`"traceId":"zz","spanId":"0000000000000001"`), `traceId: id "zz" is not hex`},
		{span(`"traceId":"0001","spanId":"0000000000000001","name":"x"`), `span "x": trace id of 2 bytes, span id of 8, parent of 0; want 16, 8 and 8 (or none)`},
		{span(ok + `,"links":[{"traceId":"0x","spanId":"00"}]`), `traceId: id "0x" is not hex`},
		{span(ok + `,"startTimeUnixNano":"-1"`), ""},
		{span(ok + `,"startTimeUnixNano":"1.5"`), ""},
		{span(ok + `,"attributes":[{"key":"b","value":{"bytesValue":"!!"}}]`), ""},
		{span(ok + `,"attributes":[{"key":"i","value":{"intValue":"x"}}]`), ""},
		{`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0`, ""},
	} {
		_, err := tracefile.SpansOfLine([]byte(tc.line))
		_, perr := viaProtojson([]byte(tc.line))
		if err == nil || perr == nil || (tc.want != "" && (err.Error() != tc.want || perr.Error() != tc.want)) {
			t.Errorf("%s:\n direct: %v\n protojson: %v\n want both to fail with %q", tc.line, err, perr, tc.want)
		}
	}
}

func writeTrace(t *testing.T, spans int) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := tracegen.Write(&buf, tracegen.Config{Spans: spans, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Scan hands over the spans Load returns, in the file's order, and Load's
// warnings; Load's are the same sorted by start time.
func TestScanGivesLoadsSpansInFileOrder(t *testing.T) {
	torn := writeTrace(t, 1500)
	b, err := os.ReadFile(torn)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(torn, append(b, b[:len(b)/4]...), 0o644); err != nil { // a run cut off writing another batch
		t.Fatal(err)
	}
	for _, path := range []string{writeTrace(t, 1500), torn, "testdata/old-format.jsonl", "testdata/jaeger.json"} {
		var got []tracefile.Span
		warnings, err := tracefile.Scan(path, func(s *tracefile.Span) error {
			got = append(got, *s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tracefile.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(warnings) != fmt.Sprint(tr.Warnings) || (path == torn) != (len(warnings) == 1) {
			t.Errorf("%s: Scan warned %q, Load %q", path, warnings, tr.Warnings)
		}
		sort.SliceStable(got, func(i, j int) bool { return got[i].Start.Before(got[j].Start) })
		if len(got) == 0 || text(got) != text(tr.Spans) {
			t.Errorf("%s: Scan's %d spans, sorted, are not Load's %d", path, len(got), len(tr.Spans))
		}
	}
}

// An error from the callback stops the scan and comes back as it is.
func TestScanStopsAtTheCallbacksError(t *testing.T) {
	stop := errors.New("enough")
	n := 0
	_, err := tracefile.Scan(writeTrace(t, 1500), func(*tracefile.Span) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Errorf("err %v after %d spans; want %v after 10", err, n, stop)
	}
	if _, err := tracefile.Scan(filepath.Join(t.TempDir(), "none.jsonl"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}
