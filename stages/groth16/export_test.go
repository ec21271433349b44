package groth16

// UsePrepChunk makes prep_msm cut j's wires into chunks of n, so that a
// small key spans many chunks; call it before j's first prep_msm.
func UsePrepChunk(j *Job, n int) { j.plan.once.Do(func() { j.plan.p = newPrepPlan(j.PK, n) }) }

// PooledVectors returns how many vector sets j's pool holds and how many
// it has handed out again.
func PooledVectors(j *Job) (free, reused int) {
	j.vectors.mu.Lock()
	defer j.vectors.mu.Unlock()
	return len(j.vectors.free), j.vectors.reused
}
