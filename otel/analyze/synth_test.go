package analyze

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// t0 is the synthetic traces' origin; ms(x) is x milliseconds after it.
var t0 = time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)

func at(msec float64) time.Time { return t0.Add(time.Duration(msec * float64(time.Millisecond))) }

// builder makes traces in the runtime's shape: job → partition →
// {lock_wait, stage}.
type builder struct {
	spans []tracefile.Span
	n     int
}

func (b *builder) add(parent *tracefile.Span, name string, from, to float64, attrs map[string]any) *tracefile.Span {
	b.n++
	s := tracefile.Span{
		TraceID: "t1", SpanID: fmt.Sprintf("%016x", b.n), Name: name,
		Start: at(from), End: at(to), Status: tracefile.StatusOK, Attrs: attrs,
		Resource: map[string]any{"service.name": "prooflane"},
	}
	if parent != nil {
		s.ParentID, s.TraceID = parent.SpanID, parent.TraceID
	}
	b.spans = append(b.spans, s)
	return &b.spans[len(b.spans)-1]
}

func (b *builder) job(id string, from, to float64, parts int) *tracefile.Span {
	b.n++
	s := b.add(nil, "job test", from, to, map[string]any{
		string(pl.KeyKind): pl.KindJob, string(pl.KeyJob): id, string(pl.KeyPartitions): int64(parts)})
	s.TraceID = "trace-" + id
	return s
}

func (b *builder) partition(job *tracefile.Span, i int, from, to float64) *tracefile.Span {
	return b.add(job, "partition "+strconv.Itoa(i), from, to, map[string]any{
		string(pl.KeyKind): pl.KindPartition, string(pl.KeyJob): job.Attrs[string(pl.KeyJob)], string(pl.KeyPartition): int64(i)})
}

func (b *builder) stage(p *tracefile.Span, name, typ string, dev int, from, to, waitMS float64, locks ...string) *tracefile.Span {
	l := make([]any, len(locks))
	for i, x := range locks {
		l[i] = x
	}
	return b.add(p, name, from, to, map[string]any{
		string(pl.KeyKind): pl.KindStage, string(pl.KeyJob): p.Attrs[string(pl.KeyJob)],
		string(pl.KeyPartition): p.Attrs[string(pl.KeyPartition)], string(pl.KeyStage): name,
		string(pl.KeyStageType): typ, string(pl.KeyDevice): int64(dev), string(pl.KeyWorker): int64(0),
		string(pl.KeyAttempt): int64(1), string(pl.KeyLocks): l, string(pl.KeyWaitMS): waitMS,
		string(pl.KeyHoldMS): to - from})
}

func (b *builder) wait(p *tracefile.Span, stage, resource string, from, to float64) *tracefile.Span {
	return b.add(p, "wait "+resource, from, to, map[string]any{
		string(pl.KeyKind): pl.KindLockWait, string(pl.KeyJob): p.Attrs[string(pl.KeyJob)],
		string(pl.KeyPartition): p.Attrs[string(pl.KeyPartition)], string(pl.KeyStage): stage,
		string(pl.KeyResource): resource, string(pl.KeyWeight): int64(1), string(pl.KeyWaitMS): to - from})
}

// smallTrace is one job of two partitions on one device (times in ms):
//
//	p0: synthesize [0,20] cpu; gpu_compute [20,50] gpu.0.compute; epilogue [50,60]
//	p1: synthesize [0,30] cpu; waits gpu.0.compute [30,50]; gpu_compute [50,80]; epilogue [80,100]
//
// By hand: device 0 busy [20,80] = 60 of 100 ms; idle gaps [0,20] and
// [80,100]; gpu.0.compute held 60 ms, 1 wait of 20 ms in 2 holds.
func smallTrace() []tracefile.Span {
	b := &builder{spans: make([]tracefile.Span, 0, 64)} // no reallocation: the builder hands out pointers
	j := b.job("j1", 0, 100, 2)
	p0 := b.partition(j, 0, 0, 60)
	b.stage(p0, "synthesize", "groth16.synthesize", -1, 0, 20, 0, "cpu")
	b.stage(p0, "gpu_compute", "groth16.gpu_compute", 0, 20, 50, 0, "gpu.0.compute")
	b.stage(p0, "epilogue", "groth16.epilogue", 0, 50, 60, 0)
	p1 := b.partition(j, 1, 0, 100)
	b.stage(p1, "synthesize", "groth16.synthesize", -1, 0, 30, 0, "cpu")
	b.wait(p1, "gpu_compute", "gpu.0.compute", 30, 50)
	b.stage(p1, "gpu_compute", "groth16.gpu_compute", 0, 50, 80, 20, "gpu.0.compute")
	b.stage(p1, "epilogue", "groth16.epilogue", 0, 80, 100, 0)
	return b.spans
}

// writeJSONL writes spans in prooflane's format, going through the
// documented line layout rather than the exporter.
func writeJSONL(t testing.TB, spans []tracefile.Span) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, s := range spans {
		if err := enc.Encode(map[string]any{
			"trace_id": s.TraceID, "span_id": s.SpanID, "parent_span_id": s.ParentID, "name": s.Name,
			"start": s.Start.Format(time.RFC3339Nano), "end": s.End.Format(time.RFC3339Nano),
			"duration_ms": float64(s.Duration()) / 1e6, "status": s.Status, "status_message": s.StatusMessage,
			"attributes": s.Attrs, "events": []any{}, "resource": s.Resource,
		}); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// writeJaeger writes spans as Jaeger's v1 JSON, with array attributes as
// JSON strings the way Jaeger stores them.
func writeJaeger(t testing.TB, spans []tracefile.Span) string {
	t.Helper()
	type kv struct {
		Key   string `json:"key"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	var js []map[string]any
	for _, s := range spans {
		var tags []kv
		for k, v := range s.Attrs {
			switch x := v.(type) {
			case string:
				tags = append(tags, kv{k, "string", x})
			case int64:
				tags = append(tags, kv{k, "int64", x})
			case float64:
				tags = append(tags, kv{k, "float64", x})
			case bool:
				tags = append(tags, kv{k, "bool", x})
			case []any:
				b, _ := json.Marshal(x)
				tags = append(tags, kv{k, "string", string(b)})
			}
		}
		if s.Status == tracefile.StatusError {
			tags = append(tags, kv{"otel.status_code", "string", "ERROR"}, kv{"error", "bool", true},
				kv{"otel.status_description", "string", s.StatusMessage})
		}
		refs := []any{}
		if s.ParentID != "" {
			refs = append(refs, map[string]any{"refType": "CHILD_OF", "traceID": s.TraceID, "spanID": s.ParentID})
		}
		js = append(js, map[string]any{
			"traceID": s.TraceID, "spanID": s.SpanID, "operationName": s.Name, "references": refs,
			"startTime": s.Start.UnixMicro(), "duration": s.End.Sub(s.Start).Microseconds(),
			"tags": tags, "logs": []any{}, "processID": "p1",
		})
	}
	doc := map[string]any{"data": []any{map[string]any{
		"traceID": "t1", "spans": js, "processes": map[string]any{"p1": map[string]any{"serviceName": "prooflane", "tags": []any{}}},
	}}}
	path := filepath.Join(t.TempDir(), "jaeger.json")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
