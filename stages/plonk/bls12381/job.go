package plonk

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint/solver"

	"github.com/prooflane/prooflane/stages"
)

// Curve is the curve of the job's key (stages.Curved).
func (j *Job) Curve() ecc.ID { return Curve }

// Job is the payload of a PLONK job: one key and one full witness per
// partition. It is read-only once built and shared by every stage instance
// of the job.
type Job struct {
	Key *Key
	// Witnesses holds partition p's full witness at index p.
	Witnesses []witness.Witness
	// SolverOptions are passed to the solver (custom hints).
	SolverOptions []solver.Option
}

// NewJob checks the witnesses against the key and returns the job payload.
func NewJob(key *Key, witnesses []witness.Witness) (*Job, error) {
	if key == nil || key.SPR == nil || key.domain0 == nil {
		return nil, fmt.Errorf("plonk job: no key built by NewKey, UnsafeSetup or SetupSRS")
	}
	if len(witnesses) == 0 {
		return nil, fmt.Errorf("plonk job %q: no witness", key.Circuit)
	}
	nbPublic, nbSecret := len(key.SPR.Public), len(key.SPR.Secret)
	for p, w := range witnesses {
		if w == nil {
			return nil, fmt.Errorf("plonk job %q: partition %d has no witness", key.Circuit, p)
		}
		v, ok := w.Vector().(fr.Vector)
		if !ok {
			return nil, fmt.Errorf("plonk job %q: partition %d: witness of %T, want a bls12-381 fr.Vector", key.Circuit, p, w.Vector())
		}
		if len(v) != nbPublic+nbSecret {
			return nil, fmt.Errorf("plonk job %q: partition %d: witness of %d values, the circuit has %d public and %d secret", key.Circuit, p, len(v), nbPublic, nbSecret)
		}
	}
	return &Job{Key: key, Witnesses: witnesses}, nil
}

// SetSolverOptions sets the options passed to the solver (custom hints)
// before the job runs.
func (j *Job) SetSolverOptions(opts []solver.Option) { j.SolverOptions = opts }

// Partitions is the number of partitions the job holds a witness for.
func (j *Job) Partitions() int { return len(j.Witnesses) }

// Public returns partition p's public inputs.
func (j *Job) Public(p int) fr.Vector {
	v := j.Witnesses[p].Vector().(fr.Vector)
	return v[:len(j.Key.SPR.Public)]
}

// jobOf returns in's payload as a *Job and checks the partition.
func jobOf(in *stages.Input) (*Job, error) {
	j, err := stages.JobAs[*Job](in)
	if err != nil {
		return nil, err
	}
	if j == nil || j.Key == nil || j.Key.domain0 == nil {
		return nil, fmt.Errorf("stage %q partition %d: the job payload was not built by plonk.NewJob", in.Stage, in.Partition)
	}
	if in.Partition < 0 || in.Partition >= len(j.Witnesses) {
		return nil, fmt.Errorf("stage %q: partition %d out of the job's %d witnesses", in.Stage, in.Partition, len(j.Witnesses))
	}
	return j, nil
}
