package keys

import (
	"context"
	"errors"
	"runtime"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cdev "github.com/prooflane/prooflane/device/bls12381"
)

// cancellingBases is the host's generator multiplication that cancels the
// setup when it is asked for its nth batch of bases: a cancel arriving
// mid-way through the bases.
type cancellingBases struct {
	cdev.FixedBase
	n, calls int
	cancel   context.CancelFunc
}

func (c *cancellingBases) MulGeneratorG1(ctx context.Context, dst []curve.G1Affine, scalars []fr.Element) error {
	if c.calls++; c.calls == c.n {
		c.cancel()
	}
	return c.FixedBase.MulGeneratorG1(ctx, dst, scalars)
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A setup cancelled while it makes its bases returns ctx's error, and
// what it made is garbage: the live heap after it is about what it was
// before (with a generous margin), far below what the finished key holds.
func TestNewKeysCancelledMidwayReturnsAndFreesItsMemory(t *testing.T) {
	sys, _, err := Compile("chain", 1<<13)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := RandomSecrets(0)
	if err != nil {
		t.Fatal(err)
	}
	before := heapAfterGC()
	pk, vk, _, err := NewKeys(context.Background(), sys, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := heapAfterGC() - before
	runtime.KeepAlive(pk)
	runtime.KeepAlive(vk)
	pk, vk = nil, nil

	before = heapAfterGC()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bases := &cancellingBases{FixedBase: hostFixedBase(), n: 3, cancel: cancel} // alpha/beta/delta, A, then Z
	pk, vk, _, err = NewKeys(ctx, sys, sec, bases)
	if !errors.Is(err, context.Canceled) || pk != nil || vk != nil {
		t.Fatalf("cancelled at the Z bases: %v (keys %v, %v), want context.Canceled and no keys", err, pk != nil, vk != nil)
	}
	if left := int64(heapAfterGC()) - int64(before); left > int64(whole)/4 {
		t.Errorf("a cancelled setup left %d bytes live, the whole key holds %d", left, whole)
	}
	if whole < 1<<20 {
		t.Errorf("the whole key holds %d bytes: too little for the comparison to mean anything", whole)
	}
}

// A setup cancelled before it starts makes nothing.
func TestNewKeysCancelledBeforeTheQAPMakesNothing(t *testing.T) {
	sys, _, err := Compile("chain", 1<<8)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := RandomSecrets(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, ph, err := NewKeys(ctx, sys, sec, nil); !errors.Is(err, context.Canceled) || ph.QAP != 0 {
		t.Errorf("cancelled before: %v, phases %+v", err, ph)
	}
}
