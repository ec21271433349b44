// Command testreport reads `go test -json` on stdin and prints what a
// person wants from `make test`: each package's result line, the output
// of every failing test and every build error, and at the end which tests
// were skipped and why (the Jaeger and Chromium integration tests skip
// when their tools are absent; this says so instead of passing silently).
// It exits 1 when anything failed, or when it read no test events.
//
//	go test -race -json ./... | go run ./internal/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Output     string
}

// skip is a skipped test and the message it skipped with.
type skip struct{ pkg, test, reason string }

// maxLine bounds one line of go test's JSON; a test printing a longer
// line without a newline is cut by test2json well below this.
const maxLine = 16 << 20

// maxBuffered bounds the output kept for one running test; a test that
// prints more has the rest replaced by a note if it fails.
const maxBuffered = 1 << 20

func report(r io.Reader, w io.Writer) (failed bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	type key struct{ pkg, test string }
	outputs := map[key]*strings.Builder{}
	var skips []skip
	events := 0
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// Not an event (go vet or the go command itself): pass it on.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		events++
		k := key{ev.Package, ev.Test}
		switch {
		case ev.Action == "build-output":
			fmt.Fprint(w, ev.Output)
		case ev.Action == "build-fail":
			failed = true
		case ev.Test == "" && ev.Action == "output":
			if ev.Output != "PASS\n" { // the ok line follows
				fmt.Fprint(w, ev.Output)
			}
		case ev.Test == "" && ev.Action == "fail":
			failed = true
		case ev.Test == "" && ev.Action == "skip":
			// A package with no test files; its "?" line said so.
		case ev.Action == "output":
			b := outputs[k]
			if b == nil {
				b = &strings.Builder{}
				outputs[k] = b
			}
			if b.Len() < maxBuffered {
				b.WriteString(ev.Output)
			}
		case ev.Action == "fail":
			failed = true
			if b := outputs[k]; b != nil {
				fmt.Fprint(w, b.String())
				if b.Len() >= maxBuffered {
					fmt.Fprintf(w, "    (output cut at %d bytes)\n", maxBuffered)
				}
			}
			delete(outputs, k)
		case ev.Action == "skip":
			skips = append(skips, skip{ev.Package, ev.Test, skipReason(outputs[k])})
			delete(outputs, k)
		case ev.Action == "pass":
			delete(outputs, k)
		}
	}
	if err := sc.Err(); err != nil {
		return true, fmt.Errorf("reading go test -json: %w", err)
	}
	if events == 0 {
		return true, fmt.Errorf("no test events on stdin (pipe `go test -json` into it)")
	}
	if len(skips) > 0 {
		fmt.Fprintf(w, "\n%d tests skipped:\n", len(skips))
		for _, s := range skips {
			fmt.Fprintf(w, "  %s %s: %s\n", strings.TrimPrefix(s.pkg, "github.com/prooflane/prooflane/"), s.test, s.reason)
		}
	}
	return failed, nil
}

// skipReason is the message a test skipped with: its output without the
// === and --- lines test2json frames it with.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "(no reason given)"
	}
	var msg []string
	for _, l := range strings.Split(b.String(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		msg = append(msg, t)
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}
