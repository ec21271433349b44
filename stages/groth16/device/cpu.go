package device

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// NewCPU returns the CPU backend presenting devices emulated devices (1
// when devices <= 0). Device memory is host memory owned by the backend;
// every computation is gnark-crypto's, with the calls gnark's own prover
// makes, so a proof built on it is bit-for-bit what gnark would compute for
// the same r and s.
func NewCPU(devices int) (Backend, error) {
	if devices <= 0 {
		devices = 1
	}
	b := &cpuBackend{}
	for i := 0; i < devices; i++ {
		b.devs = append(b.devs, &cpuDevice{
			index: i,
			g1:    map[string]*cpuG1{},
			g2:    map[string]*cpuG2{},
		})
	}
	return b, nil
}

type cpuBackend struct {
	devs []*cpuDevice
}

func (b *cpuBackend) Name() string { return "cpu" }

func (b *cpuBackend) Devices() []Info {
	out := make([]Info, len(b.devs))
	for i, d := range b.devs {
		out[i] = d.Info()
	}
	return out
}

func (b *cpuBackend) Device(i int) (Device, error) {
	if i < 0 || i >= len(b.devs) {
		return nil, fmt.Errorf("cpu backend: device %d: %w (have %d)", i, ErrNoDevice, len(b.devs))
	}
	return b.devs[i], nil
}

func (b *cpuBackend) Close() error {
	for _, d := range b.devs {
		d.mu.Lock()
		d.g1 = map[string]*cpuG1{}
		d.g2 = map[string]*cpuG2{}
		d.mu.Unlock()
	}
	return nil
}

type cpuDevice struct {
	index int
	mu    sync.Mutex
	g1    map[string]*cpuG1
	g2    map[string]*cpuG2
}

func (d *cpuDevice) Info() Info {
	return Info{Index: d.index, Name: fmt.Sprintf("cpu (emulated device %d)", d.index)}
}

func (d *cpuDevice) WantsCanonical() bool { return false }

// LoadG1 keeps a reference to points: the proving key's slices are already
// host memory, and copying them would only double the footprint.
func (d *cpuDevice) LoadG1(key string, points []curve.G1Affine) (G1Bases, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.g1[key]; ok {
		return b, nil
	}
	b := &cpuG1{points: points}
	d.g1[key] = b
	return b, nil
}

func (d *cpuDevice) LoadG2(key string, points []curve.G2Affine) (G2Bases, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.g2[key]; ok {
		return b, nil
	}
	b := &cpuG2{points: points}
	d.g2[key] = b
	return b, nil
}

func (d *cpuDevice) NewStream() (Stream, error) {
	return &cpuStream{dev: d}, nil
}

type cpuG1 struct{ points []curve.G1Affine }

func (b *cpuG1) Len() int { return len(b.points) }

type cpuG2 struct{ points []curve.G2Affine }

func (b *cpuG2) Len() int { return len(b.points) }

type cpuVector struct {
	data  []fr.Element
	freed bool
}

func (v *cpuVector) Len() int { return len(v.data) }

type cpuStream struct {
	dev    *cpuDevice
	closed bool
}

func (s *cpuStream) Alloc(n int) (Vector, error) {
	if n < 0 {
		return nil, fmt.Errorf("cpu device %d: alloc of %d scalars", s.dev.index, n)
	}
	return &cpuVector{data: make([]fr.Element, n)}, nil
}

func (s *cpuStream) vector(v Vector) (*cpuVector, error) {
	cv, ok := v.(*cpuVector)
	if !ok || cv == nil {
		return nil, fmt.Errorf("cpu device %d: vector %T does not belong to the cpu backend", s.dev.index, v)
	}
	if cv.freed {
		return nil, fmt.Errorf("cpu device %d: vector used after Free", s.dev.index)
	}
	return cv, nil
}

func (s *cpuStream) Upload(dst Vector, src []fr.Element, form Form) error {
	d, err := s.vector(dst)
	if err != nil {
		return err
	}
	if len(src) > len(d.data) {
		return fmt.Errorf("cpu device %d: upload of %d scalars into a vector of %d", s.dev.index, len(src), len(d.data))
	}
	copy(d.data, src)
	clear(d.data[len(src):])
	if form == FormCanonical {
		parallelize(len(src), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d.data[i].Mul(&d.data[i], &rSquare)
			}
		})
	}
	return nil
}

func (s *cpuStream) Download(dst []fr.Element, v Vector) error {
	cv, err := s.vector(v)
	if err != nil {
		return err
	}
	copy(dst, cv.data)
	return nil
}

// ComputeH is gnark's computeH (backend/groth16/bls12-381/prove.go) on
// vectors already padded to the domain's cardinality.
func (s *cpuStream) ComputeH(ctx context.Context, va, vb, vc Vector, domain *fft.Domain) error {
	var vs [3]*cpuVector
	for i, v := range []Vector{va, vb, vc} {
		cv, err := s.vector(v)
		if err != nil {
			return err
		}
		if uint64(cv.Len()) != domain.Cardinality {
			return fmt.Errorf("cpu device %d: compute h: vector of %d scalars, domain of %d", s.dev.index, cv.Len(), domain.Cardinality)
		}
		vs[i] = cv
	}
	a, b, c := vs[0].data, vs[1].data, vs[2].data
	if err := ctx.Err(); err != nil {
		return err
	}
	domain.FFTInverse(a, fft.DIF)
	domain.FFTInverse(b, fft.DIF)
	domain.FFTInverse(c, fft.DIF)

	domain.FFT(a, fft.DIT, fft.OnCoset())
	domain.FFT(b, fft.DIT, fft.OnCoset())
	domain.FFT(c, fft.DIT, fft.OnCoset())

	var den, one fr.Element
	one.SetOne()
	den.Exp(domain.FrMultiplicativeGen, new(big.Int).SetUint64(domain.Cardinality))
	den.Sub(&den, &one).Inverse(&den)
	parallelize(len(a), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &den)
		}
	})
	domain.FFTInverse(a, fft.DIF, fft.OnCoset())
	return ctx.Err()
}

func (s *cpuStream) MSMG1(ctx context.Context, bases G1Bases, scalars Vector, n int) (curve.G1Jac, error) {
	var res curve.G1Jac
	b, ok := bases.(*cpuG1)
	if !ok {
		return res, fmt.Errorf("cpu device %d: g1 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	v, err := s.vector(scalars)
	if err != nil {
		return res, err
	}
	if n > len(b.points) || n > len(v.data) {
		return res, fmt.Errorf("cpu device %d: g1 msm of %d terms over %d bases and %d scalars", s.dev.index, n, len(b.points), len(v.data))
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if n == 0 {
		return res, nil
	}
	_, err = res.MultiExp(b.points[:n], v.data[:n], ecc.MultiExpConfig{NbTasks: runtime.NumCPU()})
	return res, err
}

func (s *cpuStream) MSMG2(ctx context.Context, bases G2Bases, scalars Vector, n int) (curve.G2Jac, error) {
	var res curve.G2Jac
	b, ok := bases.(*cpuG2)
	if !ok {
		return res, fmt.Errorf("cpu device %d: g2 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	v, err := s.vector(scalars)
	if err != nil {
		return res, err
	}
	if n > len(b.points) || n > len(v.data) {
		return res, fmt.Errorf("cpu device %d: g2 msm of %d terms over %d bases and %d scalars", s.dev.index, n, len(b.points), len(v.data))
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if n == 0 {
		return res, nil
	}
	_, err = res.MultiExp(b.points[:n], v.data[:n], ecc.MultiExpConfig{NbTasks: G2Tasks()})
	return res, err
}

func (s *cpuStream) SumG1(ctx context.Context, bases G1Bases, indices []int32) (curve.G1Jac, error) {
	b, ok := bases.(*cpuG1)
	if !ok {
		return curve.G1Jac{}, fmt.Errorf("cpu device %d: g1 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	if err := checkIndices(indices, len(b.points)); err != nil {
		return curve.G1Jac{}, fmt.Errorf("cpu device %d: sum g1: %w", s.dev.index, err)
	}
	return SumG1Affine(b.points, indices), ctx.Err()
}

func (s *cpuStream) SumG2(ctx context.Context, bases G2Bases, indices []int32) (curve.G2Jac, error) {
	b, ok := bases.(*cpuG2)
	if !ok {
		return curve.G2Jac{}, fmt.Errorf("cpu device %d: g2 bases %T do not belong to the cpu backend", s.dev.index, bases)
	}
	if err := checkIndices(indices, len(b.points)); err != nil {
		return curve.G2Jac{}, fmt.Errorf("cpu device %d: sum g2: %w", s.dev.index, err)
	}
	return SumG2Affine(b.points, indices), ctx.Err()
}

func (s *cpuStream) Free(v Vector) {
	if cv, ok := v.(*cpuVector); ok && cv != nil {
		cv.data, cv.freed = nil, true
	}
}

func (s *cpuStream) Sync() error { return nil }

func (s *cpuStream) Close() error {
	s.closed = true
	return nil
}

func checkIndices(indices []int32, n int) error {
	for _, i := range indices {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("index %d out of %d bases", i, n)
		}
	}
	return nil
}

// rSquare holds R² mod r in its limbs: multiplying a canonical element by
// it (Montgomery multiplication) yields the element's Montgomery form.
var rSquare = func() fr.Element {
	var e fr.Element
	r := new(big.Int).Lsh(big.NewInt(1), 256)
	r.Mod(r, fr.Modulus())
	e.SetBigInt(r)
	return e
}()

// G2Tasks is the task count gnark's prover gives its G2 MSM.
func G2Tasks() int {
	n := runtime.NumCPU()
	if n <= 16 {
		n *= 2
	}
	return n
}
