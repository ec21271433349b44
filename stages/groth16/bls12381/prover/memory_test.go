package prover

import (
	"math/bits"
	"testing"

	"github.com/prooflane/prooflane/internal/units"
	"github.com/prooflane/prooflane/stages/family"
)

// measuredPeaks are peak RSS of prooflane setup and prove: the CPU
// backend's on a 2-core machine (GNU time's %M; docs/memory.md has the
// commands), the CUDA backend's on the H200 (docs/scale.md).
var measuredPeaks = []struct {
	circuit    string
	size       int
	partitions int // 0: a setup
	onDevice   bool
	hostG2     int // G2 MSMs on the host cores at once (g2_on: cpu)
	kib        uint64
}{
	{"chain", 1 << 16, 0, false, 0, 184080},
	{"chain", 1 << 16, 1, false, 0, 264620},
	{"chain", 1 << 16, 4, false, 0, 372484},
	{"chain", 1 << 18, 0, false, 0, 574632},
	{"chain", 1 << 18, 1, false, 0, 623860},
	{"chain", 1 << 18, 4, false, 0, 1491868},
	{"sha256", 1 << 16, 0, false, 0, 162916},
	{"sha256", 1 << 16, 1, false, 0, 189964},
	{"sha256", 1 << 16, 4, false, 0, 274536},
	{"sha256", 1 << 18, 0, false, 0, 505632},
	{"sha256", 1 << 18, 1, false, 0, 613596},
	{"sha256", 1 << 18, 4, false, 0, 959444},
	// H200: setup --backend cuda 17.2 GiB, prove of 4 partitions 21.9 GiB.
	{"sha256", 1 << 24, 0, true, 0, 172 * (1 << 20) / 10},
	{"sha256", 1 << 24, 4, true, 0, 219 * (1 << 20) / 10},
	// H200, the final build of 2026-12-01: setup --backend cuda of chain
	// 2^24 (the .r1cs encoded alongside the key), GNU time's %M.
	{"chain", 1 << 24, 0, true, 0, 27421564},
	// H200 (2026-12-01): chain 2^26, setup --backend cuda and a prove of
	// 4 partitions (docs/scale.md; the prove was 0.8% over the estimate
	// of then, which raised chain's keys cost on a device by 64 bytes).
	{"chain", 1 << 26, 0, true, 0, 109059524},
	{"chain", 1 << 26, 4, true, 0, 118530224},
	// H200 (2026-12-02, docs/scale.md): sha256 2^26 setup --backend cuda
	// (76.58 GiB, GNU time's %M), its prove of 4 partitions, the same with
	// g2_on=cpu (98.35 GiB: two G2 MSMs on the host cores), and chain
	// 2^26's prove.
	{"sha256", 1 << 26, 0, true, 0, 7658 * (1 << 20) / 100},
	{"sha256", 1 << 26, 4, true, 0, 96664168},
	{"sha256", 1 << 26, 4, true, 2, 9835 * (1 << 20) / 100},
	{"chain", 1 << 26, 4, true, 0, 117487816},
}

func TestHostEstimateCoversTheMeasuredPeaks(t *testing.T) {
	for _, m := range measuredPeaks {
		est := memEstimate(costsOf(m.circuit, m.onDevice), m.size, m.partitions, m.hostG2, m.partitions == 0)
		peak := m.kib << 10
		t.Logf("%s size 2^%d, %d partition(s), on a device %v, %d host G2 MSMs: measured %s, estimate %s (%.2fx)",
			m.circuit, bits.Len(uint(m.size))-1, m.partitions, m.onDevice, m.hostG2, units.Bytes(peak), units.Bytes(est), float64(est)/float64(peak))
		if est < peak || est > peak*3/2 {
			t.Errorf("%s size %d, %d partition(s), on a device %v: estimate %s for a measured peak of %s (want 1 to 1.5 times)",
				m.circuit, m.size, m.partitions, m.onDevice, units.Bytes(est), units.Bytes(peak))
		}
	}
}

func TestFourSha256PartitionsAt2To26FitTheH200Host(t *testing.T) {
	// The H200's host has 125.8 GiB; the earlier estimate (112 GiB at
	// 2^24) refused 2^26 before it started.
	const host = uint64(1258 * (1 << 30) / 10)
	req := family.KeyRequest{Dir: t.TempDir(), System: family.System{Name: "sha256", Size: 1 << 26}, OnDevice: true}
	est, _ := (Family{}).HostMemory(req, nil, 4)
	t.Logf("sha256 2^26, 4 partitions, CUDA: %s", units.Bytes(est))
	chain, _ := (Family{}).HostMemory(family.KeyRequest{Dir: req.Dir, System: family.System{Name: "chain", Size: 1 << 26}, OnDevice: true}, nil, 4)
	t.Logf("chain 2^26, 4 partitions, CUDA: %s", units.Bytes(chain))
	if est > host {
		t.Errorf("sha256 at 2^26, 4 partitions, CUDA: estimate %s, more than the H200 host's %s", units.Bytes(est), units.Bytes(host))
	}
}

func TestHostEstimateCountsTheCircuitAndTheBackend(t *testing.T) {
	const n = 1 << 20
	dir := t.TempDir()
	est := func(circuit string, onDevice bool) uint64 {
		e, _ := (Family{}).HostMemory(family.KeyRequest{Dir: dir, System: family.System{Name: circuit, Size: n}, OnDevice: onDevice}, nil, 4)
		return e
	}
	if est("sha256", false) >= est("chain", false) {
		t.Error("sha256's key and partitions are smaller than chain's: the estimate should be too")
	}
	if est("chain", true) >= est("chain", false) {
		t.Error("on a device of its own the partitions' vectors are not on the host: the estimate should be smaller")
	}
	if est("circuit-0123456789abcdef", false) < est("chain", false) {
		t.Error("a compiled system, not measured, is counted at the rough bound, above chain's")
	}
	if est("mimc", false) != est("chain", false) {
		t.Error("mimc is counted as chain")
	}
}
