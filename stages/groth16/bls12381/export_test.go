package groth16

// UsePrepChunk makes prep_msm cut j's wires into chunks of n, so that a
// small key spans many chunks; call it before j's first prep_msm.
func UsePrepChunk(j *Job, n int) {
	j.plan.once.Do(func() { j.plan.p = newPrepPlan(j.PK, j.nbPublic, j.commit.removed, n) })
}

// CommitOnDeviceMin sets the fewest committed values whose commitment
// synthesize computes on the device, returning the value to restore.
func CommitOnDeviceMin(n int) int {
	old := commitOnDeviceMin
	commitOnDeviceMin = n
	return old
}
