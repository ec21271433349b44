package analyze

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// largeEnv names the size of the large-trace test; unset, it is skipped.
const largeEnv = "PROOFLANE_ANALYZE_LARGE"

// TestAnalyzeOfALargeTrace reads a generated trace of $PROOFLANE_ANALYZE_LARGE
// spans (1000000 for the figures in docs/observability.md) in a process of
// its own, checks the report against the schedule and the process's peak
// RSS against 1.5 GB, and logs the wall time and peak RSS:
//
//	PROOFLANE_ANALYZE_LARGE=1000000 go test -run TestAnalyzeOfALargeTrace -v -timeout 30m ./otel/analyze/
func TestAnalyzeOfALargeTrace(t *testing.T) {
	if path := os.Getenv(largeEnv + "_FILE"); path != "" {
		analyzeInChild(path)
		return
	}
	n, err := strconv.Atoi(os.Getenv(largeEnv))
	if err != nil {
		t.Skipf("set %s to a number of spans to run it", largeEnv)
	}
	start := time.Now()
	path, truth := generated(t, n)
	t.Logf("generated %d spans in %v", truth.Spans, time.Since(start).Round(time.Second))
	cmd := exec.Command(os.Args[0], "-test.run", "^TestAnalyzeOfALargeTrace$")
	cmd.Env = append(os.Environ(), largeEnv+"_FILE="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var wall time.Duration
	var rss int64
	var spans int
	if _, err := fmt.Sscanf(string(out), "analysed %d spans in %d ns, peak RSS %d KiB", &spans, &wall, &rss); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("analysed %d spans in %v, peak RSS %d MiB (%d bytes a span)", spans, wall.Round(time.Millisecond), rss>>10, rss<<10/int64(spans))
	if spans != truth.Spans || rss<<10 > 1500<<20 {
		t.Errorf("analysed %d of %d spans, peak RSS %d MiB; want every span in under 1500 MiB", spans, truth.Spans, rss>>10)
	}
	r, err := AnalyzeFile(path, Options{TimelineSpans: -1})
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstSchedule(t, r, truth)
}

// analyzeInChild analyses the file and prints the wall time and the
// process's peak RSS. The peak is the VmHWM of /proc/self/status, the
// high-water mark of this program's memory: getrusage's maxrss would count
// the parent's, whose memory the child shared until it started this
// program.
func analyzeInChild(path string) {
	start := time.Now()
	r, err := AnalyzeFile(path, Options{TimelineSpans: -1})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	wall := time.Since(start)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	var kib int64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	fmt.Printf("analysed %d spans in %d ns, peak RSS %d KiB\n", r.Spans, wall.Nanoseconds(), kib)
	os.Exit(0)
}
