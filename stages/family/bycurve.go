package family

import (
	"context"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages"
)

// ByCurve is one proof family on several curves as one Prover: each call
// goes to the prover of its curve (a request's System.Curve, a constraint
// system's field, the curve argument; ecc.UNKNOWN is DefaultCurve), and a
// curve none of them serves is an error naming it. Name, ProofType,
// MaxSize, Layout and the curve-independent capabilities (HostBases,
// OneJob) are DefaultCurve's prover's. It implements every optional
// capability, giving what its curve's prover gives (no estimate, no
// params, or an error when that prover lacks it).
type ByCurve struct {
	provers map[ecc.ID]Prover
	def     Prover
}

// NewByCurve is the family of provers, one a curve, DefaultCurve's among
// them, all of one family (the same Name).
func NewByCurve(provers map[ecc.ID]Prover) (*ByCurve, error) {
	def, ok := provers[DefaultCurve]
	if !ok {
		return nil, fmt.Errorf("family by curve: no %s prover", CurveName(DefaultCurve))
	}
	for c, p := range provers {
		if p.Name() != def.Name() {
			return nil, fmt.Errorf("family by curve: %s's prover is family %q, %s's %q", CurveName(c), p.Name(), CurveName(DefaultCurve), def.Name())
		}
	}
	return &ByCurve{provers: provers, def: def}, nil
}

// MustByCurve is NewByCurve that panics on an error (a programming one).
func MustByCurve(provers map[ecc.ID]Prover) *ByCurve {
	b, err := NewByCurve(provers)
	if err != nil {
		panic(err)
	}
	return b
}

// Curve is c's prover, or an error naming the family and the curve.
func (b *ByCurve) Curve(c ecc.ID) (Prover, error) {
	p, ok := b.provers[CurveOf(c)]
	if !ok {
		return nil, fmt.Errorf("%s: curve %s is not served", b.def.Name(), CurveName(c))
	}
	return p, nil
}

func (b *ByCurve) Name() string               { return b.def.Name() }
func (b *ByCurve) ProofType() stages.DataType { return b.def.ProofType() }
func (b *ByCurve) MaxSize() int               { return b.def.MaxSize() }
func (b *ByCurve) Layout() Layout             { return b.def.Layout() }

func (b *ByCurve) Compile(c ecc.ID, name string, circuit frontend.Circuit) (constraint.ConstraintSystem, error) {
	p, err := b.Curve(c)
	if err != nil {
		return nil, err
	}
	return p.Compile(c, name, circuit)
}

func (b *ByCurve) ReadSystem(ctx context.Context, c ecc.ID, path string) (constraint.ConstraintSystem, error) {
	p, err := b.Curve(c)
	if err != nil {
		return nil, err
	}
	return p.ReadSystem(ctx, c, path)
}

// Inputs are the counts of the prover of ccs's curve; zero for a curve
// not served.
func (b *ByCurve) Inputs(ccs constraint.ConstraintSystem) Inputs {
	p, err := b.Curve(SystemCurve(ccs))
	if err != nil {
		return Inputs{}
	}
	return p.Inputs(ccs)
}

func (b *ByCurve) Setup(ctx context.Context, req KeyRequest, log io.Writer) (Key, error) {
	p, err := b.Curve(req.System.Curve)
	if err != nil {
		return nil, err
	}
	return p.Setup(ctx, req, log)
}

func (b *ByCurve) Load(ctx context.Context, req KeyRequest) (Key, error) {
	p, err := b.Curve(req.System.Curve)
	if err != nil {
		return nil, err
	}
	return p.Load(ctx, req)
}

// ReadKeys reads the keys with the prover of sys's curve; when they do
// not read and the verifying key file is another served curve's, the
// error says so, naming both curves.
func (b *ByCurve) ReadKeys(ctx context.Context, sys System, pkFile, vkFile string) (Key, error) {
	p, err := b.Curve(sys.Curve)
	if err != nil {
		return nil, err
	}
	k, err := p.ReadKeys(ctx, sys, pkFile, vkFile)
	if err != nil {
		return nil, b.otherCurve(ctx, sys.Curve, vkFile, err)
	}
	return k, nil
}

// VerifyingKey is the verifying key of the prover of req's curve; a file
// that does not read as one and is another served curve's key is refused
// naming both curves.
func (b *ByCurve) VerifyingKey(ctx context.Context, req KeyRequest, file string, constraints int) (VerifyingKey, error) {
	p, err := b.Curve(req.System.Curve)
	if err != nil {
		return nil, err
	}
	vk, err := p.VerifyingKey(ctx, req, file, constraints)
	if err != nil && file != "" {
		return nil, b.otherCurve(ctx, req.System.Curve, file, err)
	}
	return vk, err
}

// otherCurve is err, the failure to read vkFile as a key of curve want,
// or, when vkFile reads as a verifying key of another served curve, an
// error naming both curves.
func (b *ByCurve) otherCurve(ctx context.Context, want ecc.ID, vkFile string, err error) error {
	want = CurveOf(want)
	for c, p := range b.provers {
		if c == want || vkFile == "" {
			continue
		}
		if _, verr := p.VerifyingKey(ctx, KeyRequest{System: System{Curve: c}}, vkFile, 0); verr == nil {
			return fmt.Errorf("verifying key %q is a %s key, not %s: keys and proofs of one curve do not serve the other (--curve %s)", vkFile, CurveName(c), CurveName(want), CurveName(c))
		}
	}
	return err
}

// BaselineName is DefaultCurve's prover's.
func (b *ByCurve) BaselineName() string {
	if bl, ok := b.def.(Baseline); ok {
		return bl.BaselineName()
	}
	return ""
}

// ProveBaseline runs the baseline of job's curve (its payload's
// stages.Curved).
func (b *ByCurve) ProveBaseline(job Job, partition int) error {
	c := DefaultCurve
	if cj, ok := job.Payload().(stages.Curved); ok {
		c = cj.Curve()
	}
	p, err := b.Curve(c)
	if err != nil {
		return err
	}
	bl, ok := p.(Baseline)
	if !ok {
		return fmt.Errorf("%s on %s: no baseline prover", b.Name(), CurveName(c))
	}
	return bl.ProveBaseline(job, partition)
}

func (b *ByCurve) HostMemory(req KeyRequest, params map[string]string, inFlight int) (uint64, bool) {
	p, err := b.Curve(req.System.Curve)
	if err != nil {
		return 0, false
	}
	if m, ok := p.(MemoryEstimator); ok {
		return m.HostMemory(req, params, inFlight)
	}
	return 0, false
}

func (b *ByCurve) DeviceMemory(m device.MemoryModel, req KeyRequest, params map[string]string, perDevice int) (uint64, string, string) {
	p, err := b.Curve(req.System.Curve)
	if err != nil {
		return 0, "", ""
	}
	if d, ok := p.(DeviceMemoryEstimator); ok {
		return d.DeviceMemory(m, req, params, perDevice)
	}
	return 0, "", ""
}

func (b *ByCurve) HostBases() map[string]string {
	if h, ok := b.def.(HostBaser); ok {
		return h.HostBases()
	}
	return nil
}

// CommitmentHashes are DefaultCurve's prover's (the hash is the
// family's choice, not a curve's); none without CommitmentHashing.
func (b *ByCurve) CommitmentHashes() []CommitmentHash {
	if c, ok := b.def.(CommitmentHashing); ok {
		return c.CommitmentHashes()
	}
	return nil
}

func (b *ByCurve) OneJob(partitions int) (map[string]string, string) {
	if o, ok := b.def.(OneJober); ok {
		return o.OneJob(partitions)
	}
	return nil, ""
}

var (
	_ Prover                = (*ByCurve)(nil)
	_ Baseline              = (*ByCurve)(nil)
	_ MemoryEstimator       = (*ByCurve)(nil)
	_ DeviceMemoryEstimator = (*ByCurve)(nil)
	_ HostBaser             = (*ByCurve)(nil)
	_ OneJober              = (*ByCurve)(nil)
	_ CommitmentHashing     = (*ByCurve)(nil)
)
