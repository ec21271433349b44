package plonk

// BatchOpenConfig is plonk.batch_open's options.
type BatchOpenConfig struct {
	// Verify checks every proof with gnark's PLONK verifier (what
	// plonk.Verify runs for BLS12-381) against the job's verifying key
	// and the partition's public inputs before returning it, and fails
	// the partition, naming it, when it does not verify (default true).
	// A proof that does not verify is otherwise found only by whoever
	// receives it: a proving key whose content is wrong under a valid
	// checksum, a device or stage bug. The cost is gnark's verifier per
	// proof (a few small MSMs and two pairings, growing with the domain
	// only through one exponentiation): 2.7 ms for chain at size 2^10 and
	// 3.9 ms at 2^16 on a 2-core AMD EPYC machine (BenchmarkVerify in
	// this package; docs/plonk.md), against a proof's hundreds of
	// milliseconds to seconds at those sizes; `verify: false` saves it
	// for benchmarks of the prover alone.
	Verify bool `yaml:"verify"`
}

// Validate accepts every value.
func (c *BatchOpenConfig) Validate() error { return nil }

// VerifiesOutput is Verify (stages.VerifyConfig).
func (c *BatchOpenConfig) VerifiesOutput() bool { return c.Verify }
