package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prooflane/prooflane/otel/analyze"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// spanComputeLayout turns a Groth16 pipeline into the edit: the
// device's compute lock held as a span from vram_stage to epilogue instead
// of by gpu_compute alone.
func spanComputeLayout(t *testing.T, src, gpuComputeLock string) string {
	t.Helper()
	if !strings.Contains(src, gpuComputeLock) || !strings.Contains(src, "\nspans:\n") {
		t.Fatalf("pipeline no longer has %q and a spans section: update the test", gpuComputeLock)
	}
	src = strings.Replace(src, gpuComputeLock, "", 1)
	return strings.Replace(src, "\nspans:\n", "\nspans:\n  - {lock: \"gpu.{gpu}.compute\", from: vram_stage, to: epilogue}\n", 1)
}

// computeFirst declares gpu.{gpu}.compute before gpu.{gpu}.mem, so a
// partition queues for the compute lock before it takes a unit of mem.
func computeFirst(t *testing.T, src string) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	mem, compute := -1, -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "  gpu.{gpu}.mem:"):
			mem = i
		case strings.HasPrefix(l, "  gpu.{gpu}.compute:"):
			compute = i
		}
	}
	if mem < 0 || compute != mem+1 {
		t.Fatal("pipeline no longer declares gpu.{gpu}.mem just before gpu.{gpu}.compute: update the test")
	}
	lines[mem], lines[compute] = lines[compute], lines[mem]
	return strings.Join(lines, "\n")
}

// memHoldersFromStages computes gpu.0.mem's mean holders (hold time over
// the time anyone held it) and acquisitions from the stage and lock-wait
// spans alone: a partition holds it from the start of its vram_stage run to
// the end of its gpu_compute run (the span in the pipeline), and, since
// vram_stage takes its locks one after the other in lock order, also while
// it queues at vram_stage for a resource named in after (those declared
// after gpu.{gpu}.mem). It reads no lock_hold span and uses no code of
// package lockstats.
func memHoldersFromStages(t *testing.T, trace string, after ...string) (mean float64, holds int) {
	t.Helper()
	spans, err := tracefile.Read(trace)
	if err != nil {
		t.Fatal(err)
	}
	type iv struct{ from, to, wait time.Time }
	parts := map[string]*iv{}
	for _, s := range spans {
		kind := s.Str("prooflane.kind")
		if kind != "stage" && kind != "lock_wait" {
			continue
		}
		key := s.TraceID + "/" + s.Str("prooflane.job") + "/" + s.Str("prooflane.partition")
		p := parts[key]
		if p == nil {
			p = &iv{}
			parts[key] = p
		}
		if kind == "lock_wait" {
			if s.Str("prooflane.stage") == "vram_stage" && slices.Contains(after, s.Str("prooflane.resource")) {
				if p.wait.IsZero() || s.Start.Before(p.wait) {
					p.wait = s.Start
				}
			}
			continue
		}
		switch s.Str("prooflane.stage") {
		case "vram_stage":
			if p.from.IsZero() || s.Start.Before(p.from) {
				p.from = s.Start
			}
		case "gpu_compute":
			if s.End.After(p.to) {
				p.to = s.End
			}
		}
	}
	var ivs []iv
	var sum time.Duration
	for k, p := range parts {
		if p.from.IsZero() || p.to.IsZero() {
			t.Fatalf("partition %s has no vram_stage or gpu_compute run", k)
		}
		if !p.wait.IsZero() && p.wait.Before(p.from) {
			p.from = p.wait
		}
		ivs = append(ivs, *p)
		sum += p.to.Sub(p.from)
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].from.Before(ivs[j].from) })
	var union time.Duration
	cur := ivs[0]
	for _, x := range ivs[1:] {
		if x.from.After(cur.to) {
			union += cur.to.Sub(cur.from)
			cur = x
		} else if x.to.After(cur.to) {
			cur.to = x.to
		}
	}
	union += cur.to.Sub(cur.from)
	return float64(sum) / float64(union), len(ivs)
}

// memFromReports returns gpu.0.mem's mean holders and holds from analyze
// --json and from the data the HTML report carries.
func memFromReports(t *testing.T, trace string) (jsonMean float64, jsonHolds int, htmlMean float64, htmlHolds int) {
	t.Helper()
	rc, out, stderr := prooflane(t, "analyze", "--json", trace)
	if rc != 0 {
		t.Fatalf("analyze --json exited %d: %s", rc, stderr)
	}
	jsonMean, jsonHolds = memOf(t, []byte(out))
	page := filepath.Join(t.TempDir(), "report.html")
	if rc, _, stderr := prooflane(t, "analyze", "-q", "--html", page, trace); rc != 0 {
		t.Fatalf("analyze --html exited %d: %s", rc, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="prooflane-report">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the HTML report carries no report data")
	}
	htmlMean, htmlHolds = memOf(t, m[1])
	return
}

func memOf(t *testing.T, data []byte) (float64, int) {
	t.Helper()
	var rep analyze.JSONReport
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // every field the output has is in the documented type
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("decoding the report: %v", err)
	}
	if rep.Schema != analyze.JSONSchema || rep.Jobs != 1 || rep.Partitions != 4 || len(rep.Stages) != 6 || rep.Critical == nil {
		t.Errorf("report: schema %q, %d jobs, %d partitions, %d stages, critical path %v", rep.Schema, rep.Jobs, rep.Partitions, len(rep.Stages), rep.Critical)
	}
	for _, r := range rep.Resources {
		if r.Resource == "gpu.0.mem" {
			return r.MeanHolders, r.Holds
		}
	}
	t.Fatalf("no gpu.0.mem in the report's resources")
	return 0, 0
}

// memFromRunTable reads gpu.0.mem's mean holders and holds from run's table.
func memFromRunTable(t *testing.T, out string) (float64, int) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[0] == "gpu.0.mem" {
			mean, err1 := strconv.ParseFloat(f[4], 64)
			holds, err2 := strconv.Atoi(f[2])
			if err1 != nil || err2 != nil {
				t.Fatalf("run's gpu.0.mem row %q", line)
			}
			return mean, holds
		}
	}
	t.Fatalf("no gpu.0.mem row in run's output:\n%s", out)
	return 0, 0
}

func near(a, b float64) bool { return math.Abs(a-b) <= 0.05 }

type layout struct {
	name, yaml string
	after      []string // resources vram_stage takes after gpu.0.mem
	lo, hi     float64  // where the span bounds' figure must fall
}

// layouts are the two layouts and a third: the original (mem held
// from vram_stage through gpu_compute, about 1.8 holders), the copy with
// the compute lock spanning vram_stage to epilogue, and that copy with the
// compute lock declared first. In the second, vram_stage takes a unit of
// mem and then queues for the compute span holding it (locks are taken in
// declaration order), so mem still has up to two holders, one of them
// waiting; only the third serialises mem to one holder.
func layouts(t *testing.T, orig, edited string, origLo float64) []layout {
	return []layout{
		{"original", orig, nil, origLo, 2},
		{"compute span", edited, []string{"gpu.0.compute"}, 1, 2},
		{"compute span declared first", computeFirst(t, edited), nil, 0.95, 1.05},
	}
}

// The two layouts on the sim pipeline (the locks of
// pipelines/groth16.yaml; synthesis shortened so partitions queue at the
// device): gpu.0.mem has about 1.8 mean holders in the original and 1.0
// once the compute lock spans vram_stage to epilogue, and run's table, analyze's
// report and the HTML report's data all say what the stage spans say.
func TestSpanLockChangesMeanHoldersInRunAnalyzeAndHTML(t *testing.T) {
	src, err := os.ReadFile("../../pipelines/sim-groth16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	orig := strings.Replace(string(src), "config: {duration: 200ms, jitter: 20ms}", "config: {duration: 20ms}", 1)
	if orig == string(src) {
		t.Fatal("sim-groth16.yaml's synthesize duration changed: update the test")
	}
	edited := spanComputeLayout(t, orig, "    locks:\n      - gpu.{gpu}.compute\n")
	dir := t.TempDir()
	for _, tc := range layouts(t, orig, edited, 1.5) {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.yaml)
			trace := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
			rc, out, stderr := prooflane(t, "run", "--set", "partitions=4", "--trace-file", trace, "--progress", "off", p)
			if rc != 0 {
				t.Fatalf("run exited %d: %s", rc, stderr)
			}
			want, parts := memHoldersFromStages(t, trace, tc.after...)
			if want < tc.lo || want > tc.hi || parts != 4 {
				t.Fatalf("stage spans give %.2f mean holders of gpu.0.mem over %d partitions, want %.2f to %.2f over 4", want, parts, tc.lo, tc.hi)
			}
			runMean, runHolds := memFromRunTable(t, out)
			t.Logf("%s: gpu.0.mem mean holders %.2f in run (span bounds %.2f)", tc.name, runMean, want)
			jsonMean, jsonHolds, htmlMean, htmlHolds := memFromReports(t, trace)
			for _, got := range []struct {
				where string
				mean  float64
				holds int
			}{{"run's table", runMean, runHolds}, {"analyze --json", jsonMean, jsonHolds}, {"the HTML report", htmlMean, htmlHolds}} {
				if !near(got.mean, want) || got.holds != 4 {
					t.Errorf("%s: gpu.0.mem %.2f mean holders, %d holds; the stage spans say %.2f and 4", got.where, got.mean, got.holds, want)
				}
			}
		})
	}
}

// The same check on real Groth16 proofs (CPU backend, 2^12, 4 partitions)
// of pipelines/groth16.yaml and its edited copy; prove verifies nothing
// here, so the proofs are checked with verify.
func TestSpanLockChangesMeanHoldersOnRealGroth16Runs(t *testing.T) {
	if testing.Short() {
		t.Skip("two real 2^12 proving runs and a key setup")
	}
	src, err := os.ReadFile("../../pipelines/groth16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := spanComputeLayout(t, string(src), "    locks: [\"gpu.{gpu}.compute\"]\n")
	dir, keys := t.TempDir(), t.TempDir()
	for _, tc := range layouts(t, string(src), edited, 1.4) {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.yaml)
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			rc, stdout, stderr := prooflane(t, "prove", "--pipeline", p, "--circuit", "chain", "--size", "2^12", "--partitions", "4",
				"--keys", keys, "--out", out, "--progress", "off")
			if rc != 0 {
				t.Fatalf("prove exited %d: %s%s", rc, stdout, stderr)
			}
			if rc, stdout, stderr := prooflane(t, "verify", "--keys", keys, out); rc != 0 {
				t.Fatalf("verify exited %d: %s%s", rc, stdout, stderr)
			}
			trace := filepath.Join(out, "trace.jsonl")
			want, parts := memHoldersFromStages(t, trace, tc.after...)
			if want < tc.lo || want > tc.hi || parts != 4 {
				t.Fatalf("stage spans give %.2f mean holders of gpu.0.mem over %d partitions, want %.2f to %.2f over 4", want, parts, tc.lo, tc.hi)
			}
			jsonMean, jsonHolds, htmlMean, htmlHolds := memFromReports(t, trace)
			if !near(jsonMean, want) || jsonHolds != 4 || !near(htmlMean, want) || htmlHolds != 4 {
				t.Errorf("gpu.0.mem: analyze --json %.2f mean holders / %d holds, HTML %.2f / %d; the stage spans say %.2f and 4",
					jsonMean, jsonHolds, htmlMean, htmlHolds, want)
			}
			t.Logf("%s: gpu.0.mem mean holders %.2f (stage spans %.2f)", tc.name, jsonMean, want)
		})
	}
}

// The HTML report's subtitle shows the pipeline's sha256, which run and
// prove record as a resource attribute (it once read another key and
// showed nothing).
func TestHTMLReportShowsThePipelineHash(t *testing.T) {
	dir := t.TempDir()
	src := "pipeline: hashed\nstages:\n  a: {type: sim.sleep, config: {duration: 1ms}}\n"
	p := writeFile(t, dir, "hashed.yaml", src)
	trace := filepath.Join(dir, "t.jsonl")
	if rc, _, stderr := prooflane(t, "run", "--trace-file", trace, "--progress", "off", p); rc != 0 {
		t.Fatalf("run exited %d: %s", rc, stderr)
	}
	page := filepath.Join(dir, "r.html")
	if rc, _, stderr := prooflane(t, "analyze", "-q", "--html", page, trace); rc != 0 {
		t.Fatalf("analyze exited %d: %s", rc, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(src))
	if want := "prooflane.pipeline_sha256 " + hex.EncodeToString(sum[:]); !strings.Contains(string(b), want) {
		t.Errorf("the HTML report does not show %q", want)
	}
}

// A trace that cannot be written (a full disk) fails the command with an
// error naming the file; it used to exit 0 with a hint about a collector.
func TestRunFailsWhenItsTraceCannotBeWritten(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	p := writeFile(t, t.TempDir(), "tiny.yaml", "pipeline: tiny\nstages:\n  a: {type: sim.sleep, config: {duration: 1ms}}\n")
	rc, _, stderr := prooflane(t, "run", "--trace-file", "/dev/full", "--progress", "off", p)
	if rc != 1 || !strings.Contains(stderr, `prooflane run: trace file "/dev/full"`) || !strings.Contains(stderr, "no space left on device") ||
		strings.Contains(stderr, "collector") {
		t.Errorf("exit %d, stderr %q; want 1 and an error naming /dev/full", rc, stderr)
	}
}
