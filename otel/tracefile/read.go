package tracefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"
)

// Limits on what a trace read takes in, checked before the bytes are
// kept: a file (or stream) above MaxFileSize, or a line above MaxLineSize,
// is an error naming the limit.
const (
	MaxFileSize = 1 << 30  // 1 GiB
	MaxLineSize = 64 << 20 // 64 MiB
)

// maxFileSize is MaxFileSize; tests lower it.
var maxFileSize int64 = MaxFileSize

// Trace is what a trace file holds: its spans, sorted by start time, and
// what was wrong with it short of an error (a torn last line).
type Trace struct {
	Spans    []Span
	Warnings []string
	// Requests holds the file's OTLP requests as written, for an OTLP JSON
	// file; nil for the other formats.
	Requests []*Request
}

// Read reads a trace file in any of the formats of the package doc and
// returns its spans sorted by start time. Warnings are dropped; use Load
// to see them.
func Read(path string) ([]Span, error) {
	t, err := Load(path)
	if err != nil {
		return nil, err
	}
	return t.Spans, nil
}

// Load reads a trace file in any of the formats of the package doc.
func Load(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > maxFileSize {
		return nil, fmt.Errorf("%s: %d bytes, above the %s limit on a trace file", path, st.Size(), sizeName(maxFileSize))
	}
	return load(path, f)
}

// Parse is Load's reading of bytes already in memory, returning the spans;
// name is used in errors.
func Parse(name string, data []byte) ([]Span, error) {
	t, err := load(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return t.Spans, nil
}

func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// capped counts what is read through it and fails past MaxFileSize, so a
// stream (/dev/zero, a pipe) is bounded as a regular file is.
type capped struct {
	r    io.Reader
	n    int64
	name string
}

var errTooLarge = errors.New("trace above the file size limit")

func (c *capped) Read(p []byte) (int, error) {
	if c.n > maxFileSize {
		return 0, fmt.Errorf("%s: more than %s, the limit on a trace file: %w", c.name, sizeName(maxFileSize), errTooLarge)
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func load(name string, r io.Reader) (*Trace, error) {
	br := bufio.NewReaderSize(&capped{r: r, name: name}, 64<<10)
	// Sniff: a trace starts with '{' after any whitespace.
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return &Trace{}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			continue
		}
		br.UnreadByte()
		if b != '{' {
			return nil, fmt.Errorf("%s:1: not a trace file: want OTLP JSON lines (trace.jsonl), prooflane's older JSON lines or a Jaeger JSON export (it starts with %q)", name, b)
		}
		break
	}
	first, err := readLine(br, name, 1)
	if err != nil && err != io.EOF {
		return nil, err
	}
	var t *Trace
	switch {
	case isOTLPLine(first):
		t, err = readLines(name, first, br, true)
	case isOldLine(first):
		t, err = readLines(name, first, br, false)
	default:
		// One JSON document over several lines: Jaeger's export.
		var rest bytes.Buffer
		rest.Write(first)
		rest.WriteByte('\n')
		if _, err := io.Copy(&rest, br); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		data := rest.Bytes()
		if !isJaeger(data) {
			return readLines(name, first, bufio.NewReader(bytes.NewReader(data[len(first)+1:])), false)
		}
		var spans []Span
		if spans, err = parseJaeger(name, data); err == nil {
			t = &Trace{Spans: spans}
		}
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(t.Spans, func(i, j int) bool { return t.Spans[i].Start.Before(t.Spans[j].Start) })
	return t, nil
}

// readLine reads one line (without its newline) of at most MaxLineSize
// bytes; io.EOF with the last line's bytes when the file ends without one.
func readLine(br *bufio.Reader, name string, n int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLineSize {
			return nil, fmt.Errorf("%s:%d: line longer than %s, the limit on a trace line", name, n, sizeName(MaxLineSize))
		}
		line = append(line, chunk...)
		switch err {
		case nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return line, io.EOF
		default:
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
}

// isOldLine reports whether a line is a span of the JSON-lines format
// prooflane wrote before OTLP JSON.
func isOldLine(b []byte) bool {
	var probe struct {
		SpanID *string `json:"span_id"`
	}
	return json.Unmarshal(b, &probe) == nil && probe.SpanID != nil
}

// readLines reads a JSON-lines file whose first line is first: OTLP
// requests or older span lines. A last line that does not parse (a run
// cut off while writing) is left out with a warning; any other bad line is
// an error naming it.
func readLines(name string, first []byte, br *bufio.Reader, otlp bool) (*Trace, error) {
	t := &Trace{}
	line, n := first, 1
	for {
		if b := bytes.TrimSpace(line); len(b) > 0 {
			if err := t.add(name, n, b, otlp); err != nil {
				if n == 1 || json.Valid(b) {
					return nil, err // not a torn line: a whole line that is wrong
				}
				blank, rerr := restBlank(br, name, n)
				if rerr != nil {
					return nil, rerr
				}
				if !blank {
					return nil, err
				}
				t.Warnings = append(t.Warnings, fmt.Sprintf(
					"%s:%d: last line is incomplete (was the run cut off while writing?): read the %d line(s) before it; %v", name, n, n-1, err))
				return t, nil
			}
		}
		next, err := readLine(br, name, n+1)
		if err == io.EOF && len(next) == 0 {
			return t, nil
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		line, n = next, n+1
	}
}

// restBlank reports whether nothing but whitespace follows line n.
func restBlank(br *bufio.Reader, name string, n int) (bool, error) {
	for {
		l, err := readLine(br, name, n+1)
		if len(bytes.TrimSpace(l)) > 0 {
			return false, nil
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		n++
	}
}

// add parses one line into t.
func (t *Trace) add(name string, n int, b []byte, otlp bool) error {
	if otlp {
		req, err := UnmarshalRequest(b)
		if err != nil {
			return fmt.Errorf("%s:%d: otlp json: %w", name, n, err)
		}
		t.Requests = append(t.Requests, req)
		t.Spans = append(t.Spans, spansOf(req)...)
		return nil
	}
	s, err := parseOldLine(name, n, b)
	if err != nil {
		return err
	}
	t.Spans = append(t.Spans, s)
	return nil
}

func parseOldLine(name string, n int, b []byte) (Span, error) {
	var l struct {
		line
		Events []struct {
			Name       string         `json:"name"`
			Time       time.Time      `json:"time"`
			Attributes map[string]any `json:"attributes"`
		} `json:"events"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&l); err != nil {
		return Span{}, fmt.Errorf("%s:%d: %w", name, n, err)
	}
	if l.SpanID == "" {
		return Span{}, fmt.Errorf("%s:%d: span has no \"span_id\"", name, n)
	}
	s := Span{
		TraceID:       l.TraceID,
		SpanID:        l.SpanID,
		ParentID:      l.ParentSpanID,
		Name:          l.Name,
		Start:         l.Start,
		End:           l.End,
		Status:        l.Status,
		StatusMessage: l.StatusMessage,
		Attrs:         normalizeMap(l.Attributes),
		Resource:      normalizeMap(l.Resource),
	}
	if s.Status == "" {
		s.Status = StatusUnset
	}
	for _, ev := range l.Events {
		s.Events = append(s.Events, Event{Name: ev.Name, Time: ev.Time, Attrs: normalizeMap(ev.Attributes)})
	}
	return s, nil
}

// isJaeger reports whether data is one JSON document with a "data" member
// (Jaeger), rather than JSON lines.
func isJaeger(data []byte) bool {
	var probe struct {
		Data json.RawMessage `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&probe); err != nil || probe.Data == nil {
		return false
	}
	return !dec.More()
}
