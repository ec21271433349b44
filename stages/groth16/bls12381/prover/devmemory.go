package prover

import (
	"fmt"
	"strconv"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/internal/units"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

// DeviceMemory estimates a device's memory for a job of req's key
// (keys.EstimateDevice) on a backend of memory model m under the Groth16
// layouts' params: the proving key's bases, resident once (or with
// bases=host the chunks their MSMs hold: gpu_workers G1 and g2_workers G2
// MSMs at once), the G2 bases only with g2_on=device; and the partitions
// resident at once, at most perDevice and at most the `resident`
// parameter (the capacity of groth16.yaml's gpu.{gpu}.mem, which every
// Groth16 pipeline here bounds its resident partitions with) when it has
// one.
func (Family) DeviceMemory(m device.MemoryModel, req family.KeyRequest, params map[string]string, perDevice int) (uint64, string, string) {
	plan := keys.DevicePlan{
		Resident:    max(perDevice, 1),
		G2OnDevice:  params["g2_on"] != "cpu",
		BasesOnHost: params["bases"] == "host",
		G1Streams:   positive(params["gpu_workers"], 2),
		G2Streams:   positive(params["g2_workers"], 2),
	}
	lower := "a smaller --size, or fewer partitions at once"
	if r := positive(params["resident"], 0); r > 0 {
		plan.Resident = min(plan.Resident, r)
		lower = fmt.Sprintf("fewer partitions resident on a device (resident is %d: --set resident=%d) or a smaller --size", r, max(r-1, 1))
	}
	e := keys.EstimateDevice(m, req.System.Size, plan)
	bases := "the proving key's bases " + units.Bytes(e.Bases)
	if e.OnHost {
		bases = "the chunks of the proving key's bases kept on the host " + units.Bytes(e.Bases)
	}
	parts := fmt.Sprintf("%s, %d resident partition(s) %s", bases, e.Resident, units.Bytes(e.Partitions))
	if e.Base > 0 {
		parts += ", context " + units.Bytes(e.Base)
	}
	if e.G2Scratch > 0 {
		parts += ", G2 MSMs' batch-affine scratch " + units.Bytes(e.G2Scratch)
	}
	if e.WideWindows > 0 {
		parts += ", the wider MSM windows' scratch " + units.Bytes(e.WideWindows)
	}
	return e.Total(), parts, lower
}

// HostBases is the param that keeps the proving key's bases in host
// memory in every Groth16 layout (family.HostBaser).
func (Family) HostBases() map[string]string { return map[string]string{"bases": "host"} }

// OneJob turns the precomputed tables off for prove (family.OneJober)
// below 64 partitions: a table takes as long to build as 75-120 of its
// vector's MSMs save (G1 2^20: 0.12 s against 1.6 ms an MSM; 2^24: 1.7 s
// against 14 ms), and a job runs one MSM of each vector a partition.
// Chain at 2^24, 4 partitions on the H200: 17.9 s with tables: auto,
// 11.3 s without (docs/scale.md).
func (Family) OneJob(partitions int) (map[string]string, string) {
	if partitions >= oneJobTablesMin {
		return nil, ""
	}
	return map[string]string{"tables": "off"}, fmt.Sprintf("a vector's precomputed table pays back after about 100 of its MSMs, and a job of %d partitions runs %d; bench and serve keep them (--set tables=auto builds them here)", partitions, partitions)
}

// oneJobTablesMin is the fewest partitions of one job that keep the
// tables (OneJob).
const oneJobTablesMin = 64

// positive reads v as a positive integer, def when it is not one.
func positive(v string, def int) int {
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return n
	}
	return def
}
