package prover

import (
	"fmt"
	"strconv"

	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

// DeviceMemory estimates a device's memory for a job of req's key
// (keys.EstimateDevice): the proving key's bases, resident once, and the
// partitions resident at once, at most perDevice and at most the
// pipeline's `resident` parameter (the capacity of groth16.yaml's
// gpu.{gpu}.mem, which every Groth16 pipeline here bounds its resident
// partitions with) when it has one.
func (Family) DeviceMemory(req family.KeyRequest, params map[string]string, perDevice int) (uint64, string, string) {
	resident := max(perDevice, 1)
	lower := "a smaller --size, or fewer partitions at once"
	if v, ok := params["resident"]; ok {
		if r, err := strconv.Atoi(v); err == nil && r > 0 {
			resident = min(resident, r)
			lower = fmt.Sprintf("fewer partitions resident on a device (resident is %d: --set resident=%d) or a smaller --size", r, max(r-1, 1))
		}
	}
	e := keys.EstimateDevice(req.Size, resident)
	parts := fmt.Sprintf("the proving key's bases %s, %d resident partition(s) %s, context %s",
		keys.HumanBytes(e.Bases), e.Resident, keys.HumanBytes(e.Partitions), keys.HumanBytes(e.Base))
	return e.Total(), parts, lower
}
