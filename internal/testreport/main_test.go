package main

import (
	"strings"
	"testing"
)

// Recorded from `go test -json` on the Chromium check without chromium,
// a passing test, a failing test and a package build failure.
const sample = `{"Action":"start","Package":"github.com/prooflane/prooflane/otel/analyze"}
{"Action":"run","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestHTMLRendersInChromium"}
{"Action":"output","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestHTMLRendersInChromium","Output":"=== RUN   TestHTMLRendersInChromium\n"}
{"Action":"output","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestHTMLRendersInChromium","Output":"    chromium_test.go:27: no chromium on PATH (apt-get install chromium, or set PROOFLANE_CHROMIUM): HTML rendering not checked\n"}
{"Action":"output","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestHTMLRendersInChromium","Output":"--- SKIP: TestHTMLRendersInChromium (0.00s)\n"}
{"Action":"skip","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestHTMLRendersInChromium","Elapsed":0}
{"Action":"run","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestPasses"}
{"Action":"output","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestPasses","Output":"=== RUN   TestPasses\nnoise from a passing test\n"}
{"Action":"pass","Package":"github.com/prooflane/prooflane/otel/analyze","Test":"TestPasses","Elapsed":0}
{"Action":"output","Package":"github.com/prooflane/prooflane/otel/analyze","Output":"PASS\n"}
{"Action":"output","Package":"github.com/prooflane/prooflane/otel/analyze","Output":"ok  \tgithub.com/prooflane/prooflane/otel/analyze\t0.5s\n"}
{"Action":"pass","Package":"github.com/prooflane/prooflane/otel/analyze","Elapsed":0.5}
{"Action":"output","Package":"github.com/prooflane/prooflane/stages","Output":"?   \tgithub.com/prooflane/prooflane/stages\t[no test files]\n"}
{"Action":"skip","Package":"github.com/prooflane/prooflane/stages","Elapsed":0}
`

const failing = `{"Action":"run","Package":"example.com/p","Test":"TestBroken"}
{"Action":"output","Package":"example.com/p","Test":"TestBroken","Output":"    p_test.go:9: want 2, got 3\n"}
{"Action":"fail","Package":"example.com/p","Test":"TestBroken","Elapsed":0}
{"Action":"output","Package":"example.com/p","Output":"FAIL\texample.com/p\t0.1s\n"}
{"Action":"fail","Package":"example.com/p","Elapsed":0.1}
{"ImportPath":"example.com/q","Action":"build-output","Output":"q.go:3:1: syntax error\n"}
{"ImportPath":"example.com/q","Action":"build-fail"}
`

func TestReportListsSkipsWithTheirReasons(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(sample), &out)
	if err != nil || failed {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	want := "ok  \tgithub.com/prooflane/prooflane/otel/analyze\t0.5s\n?   \tgithub.com/prooflane/prooflane/stages\t[no test files]\n\n1 tests skipped:\n" +
		"  otel/analyze TestHTMLRendersInChromium: chromium_test.go:27: no chromium on PATH (apt-get install chromium, or set PROOFLANE_CHROMIUM): HTML rendering not checked\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestReportShowsFailuresAndFails(t *testing.T) {
	var out strings.Builder
	failed, err := report(strings.NewReader(failing), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v; want failed", failed, err)
	}
	for _, want := range []string{"p_test.go:9: want 2, got 3", "FAIL\texample.com/p", "q.go:3:1: syntax error"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if failed, err := report(strings.NewReader(""), &out); !failed || err == nil {
		t.Error("no events read counts as success")
	}
}
