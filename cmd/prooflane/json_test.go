package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// decodeStrict decodes a command's --json output into v, refusing fields
// the documented schema (the Go type) does not have and trailing data.
func decodeStrict(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %T: %v\n%s", v, err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON document:\n%s", out)
	}
}

func TestValidateJSONListsEveryFileAndProblem(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "pipeline: x\nstages:\n  a: {type: sim.slep, lokcs: []}\n")
	rc, out, stderr := prooflane(t, "validate", "--json", "sim-groth16", bad)
	if rc != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1 and nothing on stderr", rc, stderr)
	}
	var got validateOutput
	decodeStrict(t, out, &got)
	if got.Invalid != 1 || len(got.Files) != 2 {
		t.Fatalf("%+v", got)
	}
	ok, b := got.Files[0], got.Files[1]
	if !ok.OK || ok.File != "embedded:sim-groth16.yaml" || ok.Pipeline != "sim-groth16" || ok.Stages != 6 || ok.Spans != 1 {
		t.Errorf("valid file: %+v", ok)
	}
	want := []validateProblem{
		{File: bad, Line: 3, Column: 13, Message: `stage "a": unknown stage type "sim.slep" (did you mean "sim.sleep"?)`},
		{File: bad, Line: 3, Column: 23, Message: `stage "a": field "lokcs" not recognised (did you mean "locks"?)`},
	}
	if b.OK || b.File != bad || len(b.Problems) != 2 || b.Problems[0] != want[0] || b.Problems[1] != want[1] {
		t.Errorf("invalid file: %+v\nwant problems %+v", b, want)
	}
}

func TestSimulateJSONHasRecordedAndPredictedFigures(t *testing.T) {
	trace := recordTrace(t, simPipeline, 1)
	newPipeline := writeFile(t, t.TempDir(), "dual.yaml", dualWorker)
	var stdout, stderr bytes.Buffer
	if rc := mainRC([]string{"simulate", "--json", "--from", trace, "--pipeline", newPipeline, "--speed", "5", "--set", "partitions=3"}, &stdout, &stderr); rc != 0 {
		t.Fatalf("rc %d: %s", rc, stderr.String())
	}
	var got simulateOutput
	decodeStrict(t, stdout.String(), &got)
	if got.Pipeline != "sim-dual" || got.PipelineFile != newPipeline || got.Trace != trace || got.Jobs != 1 || got.Partitions != 3 || got.Speed != 5 {
		t.Errorf("header: %+v", got)
	}
	for name, f := range map[string]runFigures{"recorded": got.Recorded, "predicted": got.Predicted} {
		if f.MakespanS <= 0 || f.ProofsPerMin <= 0 || f.DeviceBusyPct["0"] <= 0 || f.DeviceBusyPct["0"] > 100 {
			t.Errorf("%s: %+v", name, f)
		}
	}
	if len(got.Sources) != 3 || got.Warnings == nil {
		t.Errorf("sources %q, warnings %v (want [] rather than null)", got.Sources, got.Warnings)
	}
}

// docs/json.md documents every field the --json outputs have.
func TestJSONDocsNameEveryField(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, v := range []any{validateOutput{}, validateResult{}, validateAuto{}, validateProblem{}, simulateOutput{}, runFigures{}, benchOutput{}, benchRowJSON{}} {
		for _, key := range jsonKeys(v) {
			if !strings.Contains(doc, "`"+key+"`") {
				t.Errorf("docs/json.md does not document %T's `%s`", v, key)
			}
		}
	}
}

// jsonKeys lists the keys a struct marshals to, from its json tags.
func jsonKeys(v any) []string {
	var keys []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
