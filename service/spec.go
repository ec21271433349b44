package service

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"strings"

	"github.com/prooflane/prooflane/proving"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
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
	// MaxInlineWitnessBytes bounds the witnesses a Submit carries in
	// itself, together; larger ones go first to UploadWitness.
	MaxInlineWitnessBytes = 1 << 20
	// MaxWitnessBytes bounds one witness (8M inputs of 32 bytes), inline
	// or uploaded.
	MaxWitnessBytes = 256 << 20
	// MaxJobWitnessBytes bounds a job's witnesses together.
	MaxJobWitnessBytes = 4 << 30
	// MaxCircuitBytes bounds an added circuit's constraint system file:
	// family.MaxSystemFile, about a 2^28 constraint circuit's.
	MaxCircuitBytes = family.MaxSystemFile
	// MaxKeyBytes bounds an added circuit's proving key file; MaxVKBytes
	// its verifying key file.
	MaxKeyBytes = 4 * family.MaxSystemFile
	MaxVKBytes  = 1 << 20
	// MaxCircuits bounds the circuits added and not removed.
	MaxCircuits = 1000
	// ChunkBytes is the size of the chunks the client streams a file in
	// (AddCircuit, UploadWitness).
	ChunkBytes = 512 << 10
)

// Spec is a validated job: what a worker runs.
type Spec struct {
	Pipeline     string `json:"pipeline,omitempty"`
	PipelineYAML string `json:"pipeline_yaml,omitempty"`
	Family       string `json:"family"`
	// Circuit and Size name the key: a built-in circuit and its size, or
	// an added circuit's id and constraint count.
	Circuit string `json:"circuit,omitempty"`
	Size    int    `json:"size"`
	// Curve is the key's curve (family.CurveName), none for the default
	// curve (BLS12-381): an added circuit's, or a built-in circuit's as
	// the job named it.
	Curve string `json:"curve,omitempty"`
	// CommitmentHash is the hash the proofs hash their commitments with
	// (family.CommitmentHash), none for the default (RFC9380).
	CommitmentHash string `json:"commitment_hash,omitempty"`
	Partitions     int    `json:"partitions"`
	Seed           uint64 `json:"seed"`
	// CircuitID is an added circuit's id (then Circuit too): the job
	// proves Witnesses, the names of the witnesses in the object store
	// (the hex SHA-256 of each), one partition each. Keys names the
	// circuit's own key files (their objects), "" when the workers set
	// up its keys.
	CircuitID string   `json:"circuit_id,omitempty"`
	Witnesses []string `json:"witnesses,omitempty"`
	Keys      string   `json:"keys,omitempty"`
	// Inputs is where a runner fetches an added circuit's files and the
	// job's witnesses: the worker's queue.
	Inputs JobInputs `json:"-"`
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
// proofs of one family, the circuit and sizes are in bounds; for an added
// circuit's job (c, the circuit in.CircuitId names; nil when none does),
// the pipeline is of the circuit's family and the witnesses (checked
// against the circuit by the caller) are within their bounds. The error
// names the field.
func checkSpec(in *pb.JobSpec, c *Circuit) (Spec, error) {
	if in == nil {
		return Spec{}, fmt.Errorf("spec: missing")
	}
	if in.CircuitId != "" || len(in.Witnesses) > 0 {
		return checkCircuitSpec(in, c)
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
	if err := checkPipelineName(s.Pipeline); err != nil {
		return Spec{}, fmt.Errorf("spec: %w (a file's content goes in pipeline_yaml)", err)
	}
	pp, err := specProving(s)
	if err != nil {
		return Spec{}, fmt.Errorf("spec: %w", err)
	}
	p := pp.Pipeline
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
	curve, err := family.ParseCurve(in.Curve)
	if err != nil {
		return Spec{}, fmt.Errorf("spec: curve: %w", err)
	}
	s.Curve = curveField(curve)
	if _, err := workloads.System(curve, s.Circuit, int(in.Size)); err != nil {
		return Spec{}, fmt.Errorf("spec: %w", err)
	}
	if max := pp.Family.MaxSize(); int(in.Size) > max {
		return Spec{}, fmt.Errorf("spec: size %d: above the %s family's limit of %d", in.Size, pp.Family.Name(), max)
	}
	s.Size = int(in.Size)
	if s.CommitmentHash, err = commitmentHashField(in.CommitmentHash, pp); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// commitmentHashField is a Spec's CommitmentHash of the submitted name h
// for a job of pp: none for the default, an error naming the field for
// a name that is no hash or a hash pp's family does not take.
func commitmentHashField(h string, pp *proving.Pipeline) (string, error) {
	ch, err := family.ParseCommitmentHash(h)
	if err != nil {
		return "", fmt.Errorf("spec: commitment_hash: %w", err)
	}
	if !family.TakesCommitmentHash(pp.Family, ch) {
		return "", fmt.Errorf("spec: commitment_hash %q: pipeline %q makes %s proofs, which hash their commitments with %s only",
			h, pp.Name, pp.Family.Name(), family.CommitmentHashesOf(pp.Family))
	}
	if ch == family.RFC9380 {
		return "", nil
	}
	return string(ch), nil
}

// checkCircuitSpec validates the spec of a job of added circuit c: the
// pipeline (the circuit's by default) of its family, the witnesses' count,
// their inline bytes and upload names within bounds, and none of a
// built-in circuit's fields.
func checkCircuitSpec(in *pb.JobSpec, c *Circuit) (Spec, error) {
	switch {
	case in.CircuitId == "":
		return Spec{}, fmt.Errorf("spec: witnesses: for an added circuit: give its circuit_id")
	case c == nil || c.ID != in.CircuitId:
		return Spec{}, fmt.Errorf("spec: circuit_id %q: %w", in.CircuitId, errNoCircuit)
	case in.Circuit != "" || in.Size != 0 || in.Seed != 0:
		return Spec{}, fmt.Errorf("spec: circuit, size and seed are a built-in circuit's: circuit %s proves its witnesses", c.ID)
	case in.Curve != "" && !strings.EqualFold(in.Curve, family.CurveName(c.curve())):
		return Spec{}, fmt.Errorf("spec: curve %q: circuit %s is a %s circuit", in.Curve, c.ID, family.CurveName(c.curve()))
	case in.Pipeline != "" && in.PipelineYaml != "":
		return Spec{}, fmt.Errorf("spec: pipeline %q and pipeline_yaml both set: want one", in.Pipeline)
	case len(in.Witnesses) == 0:
		return Spec{}, fmt.Errorf("spec: witnesses: none; a job of circuit %s proves one witness a partition", c.ID)
	case len(in.Witnesses) > MaxPartitions:
		return Spec{}, fmt.Errorf("spec: witnesses: %d, above the limit of %d (one a partition)", len(in.Witnesses), MaxPartitions)
	case in.Partitions != 0 && int(in.Partitions) != len(in.Witnesses):
		return Spec{}, fmt.Errorf("spec: partitions %d: a job of circuit %s has one a witness, %d", in.Partitions, c.ID, len(in.Witnesses))
	}
	s, pp, err := circuitKeySpec(c, in.Pipeline, in.PipelineYaml)
	if err != nil {
		return Spec{}, err
	}
	if s.CommitmentHash, err = commitmentHashField(in.CommitmentHash, pp); err != nil {
		return Spec{}, err
	}
	s.Partitions = len(in.Witnesses)
	inline := 0
	for i, w := range in.Witnesses {
		switch src := w.GetSource().(type) {
		case *pb.Witness_Data:
			if len(src.Data) > MaxWitnessBytes {
				return Spec{}, fmt.Errorf("spec: witnesses[%d]: %d bytes, above the limit of %d", i, len(src.Data), MaxWitnessBytes)
			}
			inline += len(src.Data)
		case *pb.Witness_Upload:
			if !validDigest(src.Upload) {
				return Spec{}, fmt.Errorf("spec: witnesses[%d]: upload %q: not an UploadWitness answer (64 hex digits)", i, src.Upload)
			}
		default:
			return Spec{}, fmt.Errorf("spec: witnesses[%d]: neither data nor upload", i)
		}
	}
	if inline > MaxInlineWitnessBytes {
		return Spec{}, fmt.Errorf("spec: witnesses: %d bytes inline, above the limit of %d: upload the larger ones (UploadWitness)", inline, MaxInlineWitnessBytes)
	}
	return s, nil
}

// circuitKeySpec is the spec of circuit c's key: with pipeline (an
// embedded one's name) or pipelineYAML, or else the circuit's own
// pipeline, which must make proofs of c's family; with the pipeline
// resolved.
func circuitKeySpec(c *Circuit, pipeline, pipelineYAML string) (Spec, *proving.Pipeline, error) {
	s := Spec{Pipeline: pipeline, PipelineYAML: pipelineYAML, Circuit: c.ID, Size: c.Constraints, Curve: c.Curve, Partitions: 1, CircuitID: c.ID, Keys: c.keys()}
	if s.Pipeline == "" && s.PipelineYAML == "" {
		s.Pipeline = c.Pipeline
	}
	if err := checkPipelineName(s.Pipeline); err != nil {
		return Spec{}, nil, fmt.Errorf("spec: %w (a file's content goes in pipeline_yaml)", err)
	}
	pp, err := specProving(s)
	if err != nil {
		return Spec{}, nil, fmt.Errorf("spec: %w", err)
	}
	if s.Family = pp.Family.Name(); s.Family != c.Family {
		return Spec{}, nil, fmt.Errorf("spec: pipeline %q makes %s proofs, but circuit %s is a %s circuit", pp.Name, s.Family, c.ID, c.Family)
	}
	return s, pp, nil
}

// checkPipelineName refuses a pipeline that names a file, not an embedded
// pipeline ("" is none).
func checkPipelineName(name string) error {
	if strings.ContainsAny(name, "/\\") || strings.HasSuffix(name, ".yaml") {
		return fmt.Errorf("pipeline %q: want an embedded pipeline's name", name)
	}
	return nil
}

// curve is the spec's curve.
func (s Spec) curve() ecc.ID {
	c, _ := family.ParseCurve(s.Curve)
	return c
}

// curveField is a Spec's (or Circuit's) Curve of c: none for the default
// curve, so that the specs and records of BLS12-381 are what they were.
func curveField(c ecc.ID) string {
	if family.CurveOf(c) == family.DefaultCurve {
		return ""
	}
	return family.CurveName(c)
}

// hash is the spec's identity for idempotency keys.
func (s Spec) hash() string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (s Spec) proto() *pb.JobSpec {
	out := &pb.JobSpec{Pipeline: s.Pipeline, PipelineYaml: s.PipelineYAML, Circuit: s.Circuit, Size: uint64(s.Size),
		Partitions: uint32(s.Partitions), Seed: s.Seed, CircuitId: s.CircuitID, Curve: s.Curve, CommitmentHash: s.CommitmentHash}
	for _, w := range s.Witnesses {
		out.Witnesses = append(out.Witnesses, &pb.Witness{Source: &pb.Witness_Upload{Upload: w}})
	}
	return out
}
