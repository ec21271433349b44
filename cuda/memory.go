package cuda

// What the kernels hold on a device besides the caller's vectors and
// bases, in plain Go outside the cuda build tag: the device memory model
// (package device/cuda) is made of these figures in every build.

// ContextBytes is what a device holds before any work: the CUDA context,
// the kernels and the stream-ordered pools' floor (from the H200 runs of
// docs/scale.md).
const ContextBytes = 768 << 20

// HostChunk is the points an MSM or sum over bases in host memory copies
// to the device at a time (MSMG1Host and the others): 2^22, 384 MiB of G1
// or 768 MiB of G2 points, plus the MSM's temporaries for that many.
const HostChunk = 1 << 22

// Field sizes on the device: Fp (G1's coordinates) and Fp2 (G2's).
const (
	fpBytes  = 48
	fp2Bytes = 96
)

// baSlots is the kernels' PL_BA_SLOTS (cuda/csrc/msm_affine.cuh): the
// slots a thread of the batch-affine passes takes.
const baSlots = 8

// AffineScratch is the scratch an MSM of n points with window c (over a
// precomputed table or not) takes for its batch-affine accumulation, for
// points over a field of fieldBytes (48: G1, 96: G2): the kernels'
// ba_scratch_bytes (cuda/csrc/msm_affine.cuh), which
// cuda/internal/hostcheck's TestBAScratchBytesG2 compares this with.
func AffineScratch(n, c int, table bool, fieldBytes int) uint64 {
	f := uint64(fieldBytes)
	windows := uint64((256 + c - 1) / c)
	nb := uint64(1) << (c - 1)
	if !table {
		nb *= windows
	}
	total := uint64(n) * windows
	slots := total/2 + nb + 1 // ba_points(total, nb, 1) + 1
	threads := (slots + baSlots) / baSlots
	return 5*nb*4 + (slots+total/4+nb+1)*2*f + slots*(f+4) + 2*(threads+threads/7+16)*f
}

// AffineScratch is the scratch an MSM of n points over G2 (g2) or G1
// takes for its batch-affine accumulation on a device opened with o: 0
// when o's accumulation does not take it for that group, else the
// larger of the plain window's and the table window's (Window,
// TableWindow) that is under the cap (AffineMax), 0 when neither is, as
// the kernels then sum with XYZZ additions.
func (o Options) AffineScratch(n int, g2 bool) uint64 {
	if !o.takesAffine(g2) {
		return 0
	}
	f := fpBytes
	if g2 {
		f = fp2Bytes
	}
	most := uint64(0)
	for _, w := range []struct {
		c     int
		table bool
	}{{o.Window(n), false}, {TableWindow(n), true}} {
		if need := AffineScratch(n, w.c, w.table, f); need <= o.affineCap() {
			most = max(most, need)
		}
	}
	return most
}
