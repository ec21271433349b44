package runtime

import (
	"context"
	"strings"
	"testing"
)

// threeWitnesses is a payload that holds three partitions' data.
type threeWitnesses struct{}

func (threeWitnesses) Partitions() int { return 3 }

// A job that leaves Partitions at 0 runs as many partitions as its payload
// holds, not the pipeline's default (10 here): the Groth16 job of one
// witness used to fail with "partition 1 out of the job's 1 witnesses".
func TestJobPartitionsDefaultToThePayloadsCount(t *testing.T) {
	p := mustParse(t, `
pipeline: p
params: {partitions: 10}
stages:
  a: {type: sim.sleep, config: {duration: 1ms}}
`)
	e := mustEngine(t, p, Options{})
	res, err := e.Run(context.Background(), Job{Payload: threeWitnesses{}})
	if err != nil || len(res.Partitions) != 3 {
		t.Fatalf("ran %v partitions, err %v; want the payload's 3", res, err)
	}
	res, err = e.Run(context.Background(), Job{Partitions: 2, Payload: threeWitnesses{}})
	if err != nil || len(res.Partitions) != 2 {
		t.Errorf("an explicit count below the payload's: %v, %v", res, err)
	}
	_, err = e.Run(context.Background(), Job{ID: "big", Partitions: 4, Payload: threeWitnesses{}})
	if err == nil || !strings.Contains(err.Error(), `job "big": 4 partitions asked for, but the payload holds 3`) {
		t.Errorf("more partitions than the payload holds: %v", err)
	}
	if res, err := e.Run(context.Background(), Job{}); err != nil || len(res.Partitions) != 10 {
		t.Errorf("no payload count: %v, %v; want the pipeline's 10", res, err)
	}
}
