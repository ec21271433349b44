package runtime

import (
	"context"
	"testing"
)

func TestSmoke(t *testing.T) {
	p := mustParse(t, `
pipeline: smoke
params: {partitions: 3}
resources:
  cpu: {capacity: 2}
  gpu.{gpu}.compute: {}
stages:
  a: {type: sim.sleep, locks: [cpu], config: {duration: 5ms}}
  b: {type: sim.device, needs: [a], locks: ["gpu.{gpu}.compute"], config: {duration: 5ms}}
  c: {type: test.source, needs: [b]}
  d: {type: test.sink, needs: [c]}
spans:
  - {lock: cpu, from: b, to: c}
`)
	_ = p
}

func TestSmokeRun(t *testing.T) {
	p := mustParse(t, `
pipeline: smoke
params: {partitions: 3}
resources:
  gpu.{gpu}.compute: {}
  cpu: {capacity: 2}
stages:
  a: {type: sim.sleep, locks: [cpu], config: {duration: 5ms}}
  b: {type: sim.device, needs: [a], locks: ["gpu.{gpu}.compute"], config: {duration: 5ms}}
  c: {type: test.source, needs: [b]}
  d: {type: test.sink, needs: [c]}
spans:
  - {lock: "gpu.{gpu}.compute", from: c, to: d}
`)
	e := mustEngine(t, p, Options{Devices: 2})
	res, err := e.Run(context.Background(), Job{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range res.Partitions {
		t.Logf("%+v", pr)
	}
	for _, st := range e.Stats() {
		if st.InUse != 0 {
			t.Errorf("%s in use %d", st.Name, st.InUse)
		}
	}
}
