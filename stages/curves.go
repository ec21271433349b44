package stages

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc"
)

// Curved is implemented by the job payload of a family whose stages serve
// several curves: the curve of the job's key, which picks the stage that
// runs it (ByCurve).
type Curved interface {
	Curve() ecc.ID
}

// CurveFactories are one curve's factories of a stage family.
type CurveFactories struct {
	Curve     ecc.ID
	Factories []Factory
}

// ByCurve merges the factories of one stage family on several curves into
// one factory a type, so that one pipeline (groth16.synthesize, ...)
// proves a job of any of them: each curve's factories must declare the
// same types, in the same order, with the same inputs, output, device
// flags and config type (the curve-independent declaration, each curve's
// New). The merged New builds every curve's stage on the one config; its
// stage runs the stage of its job's curve (the payload's Curved), and
// starts and shuts down every curve's stage.
func ByCurve(curves ...CurveFactories) ([]Factory, error) {
	if len(curves) == 0 {
		return nil, errors.New("stages by curve: no curve")
	}
	first := curves[0].Factories
	out := make([]Factory, len(first))
	for i, f := range first {
		news := make([]func(Config) (Stage, error), len(curves))
		ids := make([]ecc.ID, len(curves))
		for k, c := range curves {
			if len(c.Factories) != len(first) {
				return nil, fmt.Errorf("stages by curve: %s has %d stage types, %s %d", c.Curve, len(c.Factories), curves[0].Curve, len(first))
			}
			g := c.Factories[i]
			if err := sameDeclaration(f, g); err != nil {
				return nil, fmt.Errorf("stages by curve: %s's %q differs from %s's: %w", c.Curve, g.Type, curves[0].Curve, err)
			}
			if slices.Contains(ids[:k], c.Curve) {
				return nil, fmt.Errorf("stages by curve: %s given twice", c.Curve)
			}
			news[k], ids[k] = g.New, c.Curve
		}
		merged := f
		merged.New = func(cfg Config) (Stage, error) {
			s := &curveStage{typ: f.Type, byCurve: make(map[ecc.ID]Stage, len(ids))}
			for k, id := range ids {
				st, err := news[k](cfg)
				if err != nil {
					return nil, err
				}
				s.byCurve[id], s.order = st, append(s.order, id)
			}
			return s, nil
		}
		out[i] = merged
	}
	return out, nil
}

// sameDeclaration checks that two curves' factories of one type declare
// the same stage.
func sameDeclaration(f, g Factory) error {
	switch {
	case f.Type != g.Type:
		return fmt.Errorf("type %q", f.Type)
	case !slices.Equal(f.Inputs, g.Inputs) || f.Output != g.Output:
		return errors.New("inputs or output")
	case f.Device != g.Device || f.Busy != g.Busy:
		return errors.New("device or busy")
	case (f.NewConfig == nil) != (g.NewConfig == nil):
		return errors.New("config")
	case f.NewConfig != nil && fmt.Sprintf("%T", f.NewConfig()) != fmt.Sprintf("%T", g.NewConfig()):
		return fmt.Errorf("config %T and %T", f.NewConfig(), g.NewConfig())
	}
	return nil
}

// curveStage is a stage type's stage of every curve.
type curveStage struct {
	typ     string
	byCurve map[ecc.ID]Stage
	order   []ecc.ID
}

func (s *curveStage) Run(ctx context.Context, in *Input) (any, error) {
	c, ok := in.Job.(Curved)
	if !ok {
		return nil, fmt.Errorf("stage %q: job payload is %T, which names no curve", in.Stage, in.Job)
	}
	st, ok := s.byCurve[c.Curve()]
	if !ok {
		return nil, fmt.Errorf("stage %q: %s: no %s stage of that curve", in.Stage, c.Curve(), s.typ)
	}
	return st.Run(ctx, in)
}

// Start starts every curve's stage; when one fails, those started are
// shut down.
func (s *curveStage) Start(ctx context.Context, host Host) error {
	for i, id := range s.order {
		st, ok := s.byCurve[id].(Starter)
		if !ok {
			continue
		}
		if err := st.Start(ctx, host); err != nil {
			s.shutdown(ctx, s.order[:i])
			return err
		}
	}
	return nil
}

// Shutdown shuts every curve's stage down.
func (s *curveStage) Shutdown(ctx context.Context) error {
	return s.shutdown(ctx, s.order)
}

func (s *curveStage) shutdown(ctx context.Context, ids []ecc.ID) error {
	var errs []error
	for _, id := range ids {
		if st, ok := s.byCurve[id].(Stopper); ok {
			errs = append(errs, st.Shutdown(ctx))
		}
	}
	return errors.Join(errs...)
}
