package groth16_test

import (
	"context"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"strings"
	"sync"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/prooflane/prooflane/device"
	cdev "github.com/prooflane/prooflane/device/bls12381"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/stagetest"
)

// One job over two emulated devices: its partitions are spread over both,
// every device-bound stage of a partition runs on that partition's device
// holding only that device's locks, the key's bases are resident on both,
// and no vector or base set of one device is ever used by a stream of the
// other (placed wraps every handle with the device it came from). Every
// proof verifies.
func TestPartitionsSpreadOverDevicesShareNothingAcrossThem(t *testing.T) {
	const partitions = 8
	set := setupKeys(t, "chain", 1<<8)
	be := &placed{Backend: cpuBackend(t, 2)}
	job, err := set.NewJob(partitions, 5)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Load("../../../pipelines/groth16.yaml", registry(t), map[string]string{"g2_on": "device"})
	if err != nil {
		t.Fatal(err)
	}
	rec := stagetest.NewRecorder()
	e, err := runtime.NewEngine(p, runtime.Options{Tracer: rec.TracerProvider(), Devices: 2, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "placed", Partitions: partitions, Payload: job})
	if err != nil {
		t.Fatal(err)
	}
	e.Close(context.Background())
	for i, proof := range proofs(t, res) {
		if err := job.Verify(i, proof); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
	}
	if v := be.violations(); len(v) > 0 {
		t.Errorf("handles crossed devices:\n%s", strings.Join(v, "\n"))
	}

	deviceOf := map[int]int{}
	perDevice := map[int]int{}
	for _, stage := range []string{"vram_stage", "gpu_compute", "b_g2_msm"} {
		for _, iv := range rec.Stage(stage) {
			if d, ok := deviceOf[iv.Partition]; ok && d != iv.Device {
				t.Errorf("partition %d: %s on device %d, an earlier stage on device %d", iv.Partition, stage, iv.Device, d)
			}
			deviceOf[iv.Partition] = iv.Device
			for _, l := range iv.Locks {
				if strings.HasPrefix(l, "gpu.") && !strings.HasPrefix(l, fmt.Sprintf("gpu.%d.", iv.Device)) {
					t.Errorf("partition %d: %s on device %d holds %s", iv.Partition, stage, iv.Device, l)
				}
			}
		}
	}
	for _, d := range deviceOf {
		perDevice[d]++
	}
	if len(deviceOf) != partitions || perDevice[0] == 0 || perDevice[1] == 0 {
		t.Errorf("partitions per device %v (of %d placed), want both devices used", perDevice, len(deviceOf))
	}
	computes := 0
	for _, iv := range rec.Intervals(pl.KindStage) {
		if iv.Stage == "gpu_compute" {
			computes++
			if want := fmt.Sprintf("gpu.%d.compute", iv.Device); !contains(iv.Locks, want) {
				t.Errorf("gpu_compute of partition %d on device %d without %s: %v", iv.Partition, iv.Device, want, iv.Locks)
			}
		}
	}
	if computes != partitions {
		t.Errorf("%d gpu_compute runs, want %d", computes, partitions)
	}
	for i := range 2 {
		d, err := cdev.Of(be.Backend, i)
		if err != nil {
			t.Fatal(err)
		}
		if d.Resident() == 0 {
			t.Errorf("device %d holds no bases", i)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// placed is a backend whose handles (vectors, bases) carry the device
// they came from; a stream that is handed one of another device records
// a violation and passes the call through.
type placed struct {
	device.Backend
	mu  sync.Mutex
	bad []string
}

func (b *placed) violate(format string, args ...any) {
	b.mu.Lock()
	b.bad = append(b.bad, fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

func (b *placed) violations() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bad
}

func (b *placed) Device(c ecc.ID, i int) (any, error) {
	d, err := cdev.Of(b.Backend, i)
	if err != nil {
		return nil, err
	}
	return &placedDevice{Device: d, b: b, index: i}, nil
}

type placedDevice struct {
	cdev.Device
	b     *placed
	index int
}

type (
	placedVector struct {
		device.Vector
		dev int
	}
	placedG1 struct {
		device.G1Bases
		dev int
	}
	placedG2 struct {
		device.G2Bases
		dev int
	}
)

func (d *placedDevice) LoadG1(key string, pts []curve.G1Affine) (device.G1Bases, error) {
	g, err := d.Device.LoadG1(key, pts)
	return placedG1{g, d.index}, err
}

func (d *placedDevice) LoadG2(key string, pts []curve.G2Affine) (device.G2Bases, error) {
	g, err := d.Device.LoadG2(key, pts)
	return placedG2{g, d.index}, err
}

func (d *placedDevice) NewStream() (cdev.Stream, error) {
	s, err := d.Device.NewStream()
	if err != nil {
		return nil, err
	}
	return &placedStream{Stream: s, d: d}, nil
}

// placedStream checks every handle it is given against its device and
// unwraps it for the stream beneath. It has no Unwrap: the stages find no
// fused operation through it and use the contract's, which it checks.
type placedStream struct {
	cdev.Stream
	d *placedDevice
}

func (s *placedStream) v(op string, v device.Vector) device.Vector {
	pv, ok := v.(placedVector)
	if !ok {
		s.d.b.violate("device %d: %s: a vector of no device (%T)", s.d.index, op, v)
		return v
	}
	if pv.dev != s.d.index {
		s.d.b.violate("device %d: %s: a vector of device %d", s.d.index, op, pv.dev)
	}
	return pv.Vector
}

func (s *placedStream) g1(op string, b device.G1Bases) device.G1Bases {
	pb, ok := b.(placedG1)
	if !ok || pb.dev != s.d.index {
		s.d.b.violate("device %d: %s: g1 bases %v of another device", s.d.index, op, b)
		if !ok {
			return b
		}
	}
	return pb.G1Bases
}

func (s *placedStream) g2(op string, b device.G2Bases) device.G2Bases {
	pb, ok := b.(placedG2)
	if !ok || pb.dev != s.d.index {
		s.d.b.violate("device %d: %s: g2 bases %v of another device", s.d.index, op, b)
		if !ok {
			return b
		}
	}
	return pb.G2Bases
}

func (s *placedStream) Alloc(n int) (device.Vector, error) {
	v, err := s.Stream.Alloc(n)
	if err != nil {
		return nil, err
	}
	return placedVector{v, s.d.index}, nil
}

func (s *placedStream) Free(v device.Vector) { s.Stream.Free(s.v("free", v)) }

func (s *placedStream) Upload(dst device.Vector, src []fr.Element, form device.Form) error {
	return s.Stream.Upload(s.v("upload", dst), src, form)
}

func (s *placedStream) Download(dst []fr.Element, v device.Vector) error {
	return s.Stream.Download(dst, s.v("download", v))
}

func (s *placedStream) FFT(ctx context.Context, v device.Vector, d *fft.Domain, dec fft.Decimation, coset bool) error {
	return s.Stream.FFT(ctx, s.v("fft", v), d, dec, coset)
}

func (s *placedStream) FFTInverse(ctx context.Context, v device.Vector, d *fft.Domain, dec fft.Decimation, coset bool) error {
	return s.Stream.FFTInverse(ctx, s.v("fft inverse", v), d, dec, coset)
}

func (s *placedStream) BitReverse(ctx context.Context, v device.Vector, n int) error {
	return s.Stream.BitReverse(ctx, s.v("bit reverse", v), n)
}

func (s *placedStream) Mul(ctx context.Context, dst, a, b device.Vector) error {
	return s.Stream.Mul(ctx, s.v("mul", dst), s.v("mul", a), s.v("mul", b))
}

func (s *placedStream) Add(ctx context.Context, dst, a, b device.Vector) error {
	return s.Stream.Add(ctx, s.v("add", dst), s.v("add", a), s.v("add", b))
}

func (s *placedStream) Sub(ctx context.Context, dst, a, b device.Vector) error {
	return s.Stream.Sub(ctx, s.v("sub", dst), s.v("sub", a), s.v("sub", b))
}

func (s *placedStream) Scale(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.Stream.Scale(ctx, s.v("scale", dst), s.v("scale", a), c)
}

func (s *placedStream) AddScalar(ctx context.Context, dst, a device.Vector, c fr.Element) error {
	return s.Stream.AddScalar(ctx, s.v("add scalar", dst), s.v("add scalar", a), c)
}

func (s *placedStream) MSMG1(ctx context.Context, b device.G1Bases, v device.Vector, n int) (curve.G1Jac, error) {
	return s.Stream.MSMG1(ctx, s.g1("msm g1", b), s.v("msm g1", v), n)
}

func (s *placedStream) MSMG2(ctx context.Context, b device.G2Bases, v device.Vector, n int) (curve.G2Jac, error) {
	return s.Stream.MSMG2(ctx, s.g2("msm g2", b), s.v("msm g2", v), n)
}

func (s *placedStream) SumG1(ctx context.Context, b device.G1Bases, idx []int32) (curve.G1Jac, error) {
	return s.Stream.SumG1(ctx, s.g1("sum g1", b), idx)
}

func (s *placedStream) SumG2(ctx context.Context, b device.G2Bases, idx []int32) (curve.G2Jac, error) {
	return s.Stream.SumG2(ctx, s.g2("sum g2", b), idx)
}
