package prover

import (
	"os"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// Host memory estimate, per constraint of the circuit (its size), from
// peak RSS measured with /usr/bin/time on the chain circuit (CPU backend,
// 2-core machine; docs/memory.md has the table and the command). It is a
// rough upper bound for circuits of about one wire per constraint; the
// scale work refines it.
const (
	memBase          = 64 << 20 // the process, gnark and the runtime
	memSetupPerC     = 3 << 10  // setup: domain, key being built, R1CS
	memKeysPerC      = 2 << 10  // prove: R1CS and proving key in memory
	memPartitionPerC = 1280     // prove: one partition in flight (witness, a/b/c, H, MSM scalars)
	memCheckFromSize = 1 << 18  // below this, no estimate (nothing is refused)
)

// HostMemory estimates the peak host memory of proving req's key with
// inFlight partitions at once, including the setup when it has to run
// (req.Force, or no proving key cached); 0 below 2^18 constraints.
func (Family) HostMemory(req family.KeyRequest, inFlight int) (uint64, bool) {
	if req.Size < memCheckFromSize {
		return 0, false
	}
	circuit := req.Circuit
	if circuit == "" {
		circuit = DefaultCircuit
	}
	setup := req.Force
	if !setup {
		_, pk, _ := keys.Cache{Dir: req.Dir}.Paths(circuit, req.Size)
		_, err := os.Stat(pk)
		setup = err != nil
	}
	return memEstimate(req.Size, inFlight, setup), setup
}

// memEstimate returns the estimated peak host memory of proving size
// constraints with inFlight partitions at once, including the setup when
// it has to run.
func memEstimate(size, inFlight int, setup bool) uint64 {
	n := uint64(size)
	prove := memBase + n*memKeysPerC + n*memPartitionPerC*uint64(max(inFlight, 0))
	if setup {
		return max(prove, memBase+n*memSetupPerC)
	}
	return prove
}
