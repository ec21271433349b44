package tracegen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/otel/lockstats"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

func TestWriteIsDeterministicAndReadsBack(t *testing.T) {
	cfg := Config{Spans: 3000, Devices: 3, Seed: 7}
	var a, b bytes.Buffer
	truth, err := Write(&a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&b, cfg); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("one config wrote two different traces")
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := tracefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Spans) != truth.Spans || truth.Spans < cfg.Spans || truth.Jobs*10 != truth.Partitions {
		t.Fatalf("read %d spans; truth says %d spans, %d jobs, %d partitions", len(tr.Spans), truth.Spans, truth.Jobs, truth.Partitions)
	}
	if lines := strings.Count(a.String(), "\n"); lines != (truth.Spans+511)/512 {
		t.Errorf("%d lines for %d spans; want batches of 512", lines, truth.Spans)
	}
	kinds := map[string]int{}
	var holds []lockstats.Hold
	for i := range tr.Spans {
		s := &tr.Spans[i]
		kinds[s.Str(string(pl.KeyKind))]++
		if s.Str(string(pl.KeyKind)) == pl.KindLockHold {
			holds = append(holds, lockstats.Hold{Resource: s.Str(string(pl.KeyResource)), Weight: s.IntOr(string(pl.KeyWeight), 1),
				Capacity: s.IntOr(string(pl.KeyCapacity), 0), Granted: s.Start, Released: s.End})
		}
	}
	for _, k := range []string{pl.KindJob, pl.KindPartition, pl.KindStage, pl.KindLockWait, pl.KindLockHold, pl.KindKernel} {
		if kinds[k] == 0 {
			t.Errorf("no %s span: %v", k, kinds)
		}
	}
	// The schedule keeps every resource within its capacity: weighted
	// holders at one instant never exceed it.
	by := map[string][]lockstats.Hold{}
	for _, h := range holds {
		by[h.Resource] = append(by[h.Resource], h)
	}
	for name, hs := range by {
		if got, capacity := maxUnits(hs), hs[0].Capacity; got > capacity || capacity != truth.Resources[name].Capacity {
			t.Errorf("%s: %d units held at once, capacity %d (truth %d)", name, got, capacity, truth.Resources[name].Capacity)
		}
	}
	if len(truth.Busy) != 3 {
		t.Errorf("busy devices %v, want 3", truth.Busy)
	}
}

// maxUnits is the most units held at one instant, a release counting
// before a grant at the same instant.
func maxUnits(hs []lockstats.Hold) int64 {
	var most int64
	for _, h := range hs {
		var n int64
		for _, o := range hs {
			if !o.Granted.After(h.Granted) && o.Released.After(h.Granted) {
				n += o.Weight
			}
		}
		most = max(most, n)
	}
	return most
}

func TestConfigOutOfRangeIsRefused(t *testing.T) {
	for _, cfg := range []Config{{}, {Spans: MaxSpans + 1}, {Spans: 10, Devices: MaxDevices + 1}, {Spans: 10, Partitions: -1}, {Spans: 10, Inflight: -2}} {
		if _, err := Write(&bytes.Buffer{}, cfg); err == nil || !strings.HasPrefix(err.Error(), "tracegen: ") {
			t.Errorf("%+v: err %v", cfg, err)
		}
	}
}
