package service

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

// fuzzCircuit is the added circuit the fuzzed requests may name.
var fuzzCircuit = &Circuit{ID: "circuit-0123456789abcdef", Family: "groth16", Pipeline: "groth16", Constraints: 4,
	Inputs: family.Inputs{Public: 1, Secret: 2}, Field: "52435875175126190479447740508185965837690552500527637822603658699938581184513"}

// FuzzSubmitRequestDecoding feeds arbitrary bytes through what a Submit
// does before it touches the queue: the binary and JSON decoding of the
// request, then its validation. Nothing may panic, and a request that
// passes must be within the limits.
func FuzzSubmitRequestDecoding(f *testing.F) {
	for _, r := range []*pb.SubmitRequest{
		{Spec: testSpec(1)},
		{Spec: &pb.JobSpec{PipelineYaml: "pipeline: x\nstages:\n  s: {type: groth16.synthesize}\n", Circuit: "mimc", Size: 8}, Priority: 4, IdempotencyKey: "k"},
		{Spec: &pb.JobSpec{Pipeline: "plonk", Size: 16, Partitions: 2}},
		{Spec: &pb.JobSpec{CircuitId: fuzzCircuit.ID, Witnesses: []*pb.Witness{{Source: &pb.Witness_Data{Data: []byte{0, 0, 0, 1}}},
			{Source: &pb.Witness_Upload{Upload: strings.Repeat("0a", 32)}}}}},
	} {
		b, _ := proto.Marshal(r)
		f.Add(b)
		j, _ := protojson.Marshal(r)
		f.Add(j)
	}
	now := time.UnixMilli(1_700_000_000_000)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, decode := range []func([]byte, proto.Message) error{
			proto.Unmarshal,
			func(b []byte, m proto.Message) error { return protojson.Unmarshal(b, m) },
		} {
			var req pb.SubmitRequest
			if decode(data, &req) != nil {
				continue
			}
			var c *Circuit
			if req.GetSpec().GetCircuitId() == fuzzCircuit.ID {
				c = fuzzCircuit
			}
			spec, prio, err := checkSubmit(&req, now, c)
			if err != nil {
				continue
			}
			if spec.Partitions < 1 || spec.Partitions > MaxPartitions || spec.Size < 1 || spec.Family == "" ||
				prio < pb.Priority_PRIORITY_LOW || prio > pb.Priority_PRIORITY_CRITICAL {
				t.Fatalf("accepted out of bounds: %+v priority %v", spec, prio)
			}
			if spec.CircuitID != "" && (c == nil || spec.Family != c.Family || spec.Partitions != len(req.Spec.Witnesses)) {
				t.Fatalf("accepted a job of another circuit or family: %+v", spec)
			}
		}
	})
}
