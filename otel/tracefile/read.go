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
// is an error naming the limit. Scan, which keeps one line, reads JSON
// lines up to MaxScanSize; a Jaeger export, read whole, up to MaxFileSize.
const (
	MaxFileSize = 1 << 30  // 1 GiB
	MaxScanSize = 16 << 30 // 16 GiB
	MaxLineSize = 64 << 20 // 64 MiB
)

// maxFileSize and maxScanSize are MaxFileSize and MaxScanSize; tests lower
// them.
var maxFileSize, maxScanSize int64 = MaxFileSize, MaxScanSize

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
	f, err := open(path, maxFileSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := load(path, f, false)
	if err != nil {
		return nil, err
	}
	return t.Spans, nil
}

// Load reads a trace file in any of the formats of the package doc.
func Load(path string) (*Trace, error) {
	f, err := open(path, maxFileSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return load(path, f, true)
}

// Parse is Load's reading of bytes already in memory, returning the spans;
// name is used in errors.
func Parse(name string, data []byte) ([]Span, error) {
	t, err := load(name, bytes.NewReader(data), false)
	if err != nil {
		return nil, err
	}
	return t.Spans, nil
}

// Scan reads the trace file at path, in any of the formats of the package
// doc, and calls fn with each span in the order the file holds them (Load
// sorts them by start time). It decodes one line at a time and keeps
// nothing of a span once fn returns, so its memory does not grow with the
// file; only a Jaeger export, one JSON document, is read whole. fn owns the
// span it is given, but the spans of one OTLP resource share their
// Resource map. Scan returns what Load puts in Trace.Warnings (a torn last
// line); an error from fn stops the read and is returned as it is.
func Scan(path string, fn func(*Span) error) ([]string, error) {
	f, err := open(path, maxScanSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := &reader{name: path, span: fn, limit: maxScanSize}
	if err := rd.read(f); err != nil {
		return nil, err
	}
	return rd.warnings, nil
}

// open opens a trace file, refusing a regular file above limit.
func open(path string, limit int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		f.Close()
		return nil, fmt.Errorf("%s: %d bytes, above the %s limit on a trace file", path, st.Size(), sizeName(limit))
	}
	return f, nil
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

// capped counts what is read through it and fails past its limit, so a
// stream (/dev/zero, a pipe) is bounded as a regular file is.
type capped struct {
	r     io.Reader
	n     int64
	limit int64
	name  string
}

var errTooLarge = errors.New("trace above the file size limit")

func (c *capped) Read(p []byte) (int, error) {
	if c.n > c.limit {
		return 0, fmt.Errorf("%s: more than %s, the limit on a trace file: %w", c.name, sizeName(c.limit), errTooLarge)
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// load reads a trace; requests keeps an OTLP file's requests too (decoded
// a second time, by protojson), for Trace.Requests.
func load(name string, r io.Reader, requests bool) (*Trace, error) {
	t := &Trace{}
	rd := &reader{name: name, limit: maxFileSize,
		span: func(s *Span) error {
			t.Spans = append(t.Spans, *s)
			return nil
		},
	}
	if requests {
		rd.otlp = func(n int, b []byte) error {
			req, err := UnmarshalRequest(b)
			if err != nil {
				return fmt.Errorf("%s:%d: otlp json: %w", name, n, err)
			}
			t.Requests = append(t.Requests, req)
			return nil
		}
	}
	if err := rd.read(r); err != nil {
		return nil, err
	}
	t.Warnings = rd.warnings
	sort.SliceStable(t.Spans, func(i, j int) bool { return t.Spans[i].Start.Before(t.Spans[j].Start) })
	return t, nil
}

// reader reads a trace, handing each span to span as its line is decoded.
type reader struct {
	name  string
	limit int64 // on the bytes read
	span  func(*Span) error
	// otlp, when set, is also given each OTLP line that decoded.
	otlp     func(n int, line []byte) error
	warnings []string
}

func (rd *reader) read(r io.Reader) error {
	name := rd.name
	br := bufio.NewReaderSize(&capped{r: r, limit: rd.limit, name: name}, 64<<10)
	// Sniff: a trace starts with '{' after any whitespace.
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			continue
		}
		br.UnreadByte()
		if b != '{' {
			return fmt.Errorf("%s:1: not a trace file: want OTLP JSON lines (trace.jsonl), prooflane's older JSON lines or a Jaeger JSON export (it starts with %q)", name, b)
		}
		break
	}
	first, err := readLine(br, name, 1)
	if err != nil && err != io.EOF {
		return err
	}
	switch {
	case isOTLPLine(first):
		return rd.lines(first, br, true)
	case isOldLine(first):
		return rd.lines(first, br, false)
	}
	// One JSON document over several lines: Jaeger's export, read whole.
	var rest bytes.Buffer
	rest.Write(first)
	rest.WriteByte('\n')
	if _, err := io.Copy(&rest, io.LimitReader(br, maxFileSize+1-int64(rest.Len()))); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if int64(rest.Len()) > maxFileSize {
		return fmt.Errorf("%s: more than %s, the limit on a trace that is one JSON document (a Jaeger export)", name, sizeName(maxFileSize))
	}
	data := rest.Bytes()
	if !isJaeger(data) {
		return rd.lines(first, bufio.NewReader(bytes.NewReader(data[len(first)+1:])), false)
	}
	spans, err := parseJaeger(name, data)
	if err != nil {
		return err
	}
	return rd.deliver(spans)
}

// deliver hands spans to rd.span one by one, each a copy of its own.
func (rd *reader) deliver(spans []Span) error {
	for i := range spans {
		s := spans[i]
		if err := rd.span(&s); err != nil {
			return err
		}
	}
	return nil
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

// lines reads a JSON-lines file whose first line is first: OTLP
// requests or older span lines. A last line that does not parse (a run
// cut off while writing) is left out with a warning; any other bad line is
// an error naming it.
func (rd *reader) lines(first []byte, br *bufio.Reader, otlp bool) error {
	name := rd.name
	line, n := first, 1
	for {
		if b := bytes.TrimSpace(line); len(b) > 0 {
			spans, err := rd.parse(n, b, otlp)
			if err != nil {
				if n == 1 || json.Valid(b) {
					return err // not a torn line: a whole line that is wrong
				}
				blank, rerr := restBlank(br, name, n)
				if rerr != nil {
					return rerr
				}
				if !blank {
					return err
				}
				rd.warnings = append(rd.warnings, fmt.Sprintf(
					"%s:%d: last line is incomplete (was the run cut off while writing?): read the %d line(s) before it; %v", name, n, n-1, err))
				return nil
			}
			if err := rd.deliver(spans); err != nil {
				return err
			}
		}
		next, err := readLine(br, name, n+1)
		if err == io.EOF && len(next) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
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

// parse decodes line n into its spans.
func (rd *reader) parse(n int, b []byte, otlp bool) ([]Span, error) {
	if !otlp {
		s, err := parseOldLine(rd.name, n, b)
		if err != nil {
			return nil, err
		}
		return []Span{s}, nil
	}
	spans, err := spansOfLine(b)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: otlp json: %w", rd.name, n, err)
	}
	if rd.otlp != nil {
		if err := rd.otlp(n, b); err != nil {
			return nil, err
		}
	}
	return spans, nil
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
