package service

import (
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// FuzzSubmitRequestDecoding feeds arbitrary bytes through what a Submit
// does before it touches the queue: the binary and JSON decoding of the
// request, then its validation. Nothing may panic, and a request that
// passes must be within the limits.
func FuzzSubmitRequestDecoding(f *testing.F) {
	for _, r := range []*pb.SubmitRequest{
		{Spec: testSpec(1)},
		{Spec: &pb.JobSpec{PipelineYaml: "pipeline: x\nstages:\n  s: {type: groth16.synthesize}\n", Circuit: "mimc", Size: 8}, Priority: 4, IdempotencyKey: "k"},
		{Spec: &pb.JobSpec{Pipeline: "plonk", Size: 16, Partitions: 2}},
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
			spec, prio, err := checkSubmit(&req, now, nil)
			if err != nil {
				continue
			}
			if spec.Partitions < 1 || spec.Partitions > MaxPartitions || spec.Size < 1 || spec.Family == "" ||
				prio < pb.Priority_PRIORITY_LOW || prio > pb.Priority_PRIORITY_CRITICAL {
				t.Fatalf("accepted out of bounds: %+v priority %v", spec, prio)
			}
		}
	})
}
