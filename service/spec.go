package service

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/prooflane/prooflane/proving"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/workloads"
)

// Limits of a request, checked before anything is allocated or queued.
const (
	// MaxRequestBytes bounds an encoded request (a pipeline's YAML is at
	// most 1 MiB of it).
	MaxRequestBytes = 2 << 20
	// MaxPartitions bounds a job's partitions (proofs).
	MaxPartitions = 1024
	// MaxSizeLog2 bounds any size before a family's own bound: 2^28.
	MaxSizeLog2 = 28
	// MaxIdempotencyKey bounds an idempotency key's length.
	MaxIdempotencyKey = 256
	// MaxListJobs bounds List's jobs.
	MaxListJobs = 1000
)

// Spec is a validated job: what a worker runs.
type Spec struct {
	Pipeline     string `json:"pipeline,omitempty"`
	PipelineYAML string `json:"pipeline_yaml,omitempty"`
	Family       string `json:"family"`
	Circuit      string `json:"circuit,omitempty"`
	Size         int    `json:"size"`
	Partitions   int    `json:"partitions"`
	Seed         uint64 `json:"seed"`
	// JobID names the job in the engine's errors and events.
	JobID string `json:"-"`
	// Priority is the job's priority in the engine's lock queues
	// (LanePriority of its lane).
	Priority int `json:"-"`
}

// LanePriority is the runtime job priority of a lane: added to every
// stage's priority (pipelines use small ones), it puts a higher lane's
// partitions ahead of every waiting partition of a lower lane on each
// worker pool and lock.
func LanePriority(p pb.Priority) int { return int(p) * 1000 }

// Lanes, highest first: a worker takes from the first lane with work.
var Lanes = []pb.Priority{pb.Priority_PRIORITY_CRITICAL, pb.Priority_PRIORITY_HIGH, pb.Priority_PRIORITY_NORMAL, pb.Priority_PRIORITY_LOW}

// LaneName is a priority's lane: "critical", "high", "normal", "low".
func LaneName(p pb.Priority) string {
	return strings.ToLower(strings.TrimPrefix(p.String(), "PRIORITY_"))
}

// ParsePriority reads a lane name (any case) as a priority.
func ParsePriority(s string) (pb.Priority, error) {
	v, ok := pb.Priority_value["PRIORITY_"+strings.ToUpper(s)]
	if !ok || v == 0 {
		return 0, fmt.Errorf("priority %q: want critical, high, normal or low", s)
	}
	return pb.Priority(v), nil
}

// checkSpec validates a submitted spec: its pipeline parses and makes the
// proofs of one family, the circuit and sizes are in bounds. The error
// names the field.
func checkSpec(in *pb.JobSpec) (Spec, error) {
	if in == nil {
		return Spec{}, fmt.Errorf("spec: missing")
	}
	s := Spec{Pipeline: in.Pipeline, PipelineYAML: in.PipelineYaml, Circuit: in.Circuit, Seed: in.Seed}
	switch {
	case s.Pipeline == "" && s.PipelineYAML == "":
		return Spec{}, fmt.Errorf("spec: pipeline or pipeline_yaml is required")
	case s.Pipeline != "" && s.PipelineYAML != "":
		return Spec{}, fmt.Errorf("spec: pipeline %q and pipeline_yaml both set: want one", s.Pipeline)
	case in.Partitions > MaxPartitions:
		return Spec{}, fmt.Errorf("spec: partitions %d: above the limit of %d", in.Partitions, MaxPartitions)
	}
	if s.Pipeline != "" && (strings.ContainsAny(s.Pipeline, "/\\") || strings.HasSuffix(s.Pipeline, ".yaml")) {
		return Spec{}, fmt.Errorf("spec: pipeline %q: want an embedded pipeline's name (a file's content goes in pipeline_yaml)", s.Pipeline)
	}
	p, err := parsePipeline(s)
	if err != nil {
		return Spec{}, fmt.Errorf("spec: %w", err)
	}
	pp, err := proving.Resolve(p, builtin.Families())
	if err != nil {
		return Spec{}, fmt.Errorf("spec: %w", err)
	}
	s.Family = pp.Family.Name()
	s.Partitions = int(in.Partitions)
	if s.Partitions == 0 {
		s.Partitions = p.Partitions
	}
	if s.Partitions < 1 || s.Partitions > MaxPartitions {
		return Spec{}, fmt.Errorf("spec: pipeline %q: %d partitions, want 1 to %d", p.Name, s.Partitions, MaxPartitions)
	}
	if in.Size > 1<<MaxSizeLog2 {
		return Spec{}, fmt.Errorf("spec: size %d: above the limit of 2^%d", in.Size, MaxSizeLog2)
	}
	// The default circuit is named, so that "" and its name are one key
	// (and one idempotent spec).
	if s.Circuit == "" {
		s.Circuit = workloads.Default
	}
	if _, err := workloads.System(s.Circuit, int(in.Size)); err != nil {
		return Spec{}, fmt.Errorf("spec: %w", err)
	}
	if max := pp.Family.MaxSize(); int(in.Size) > max {
		return Spec{}, fmt.Errorf("spec: size %d: above the %s family's limit of %d", in.Size, pp.Family.Name(), max)
	}
	s.Size = int(in.Size)
	return s, nil
}

// hash is the spec's identity for idempotency keys.
func (s Spec) hash() string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (s Spec) proto() *pb.JobSpec {
	return &pb.JobSpec{Pipeline: s.Pipeline, PipelineYaml: s.PipelineYAML, Circuit: s.Circuit, Size: uint64(s.Size), Partitions: uint32(s.Partitions), Seed: s.Seed}
}
