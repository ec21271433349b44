package groth16

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages"
)

// vramStage puts a partition's vectors on its device.
type vramStage struct {
	cfg VRAMConfig
	dev backendRef
}

func isOOM(err error) bool { return errors.Is(err, device.ErrOutOfMemory) }

func (s *vramStage) Run(ctx context.Context, in *stages.Input) (_ any, err error) {
	j, err := job(in)
	if err != nil {
		return nil, err
	}
	mi, err := stages.Get[*MSMInputs](in, TypeMSMInputs)
	if err != nil {
		return nil, err
	}
	idx, dev, err := s.dev.device(in)
	if err != nil {
		return nil, err
	}
	// Only the partition's own vectors are worth retrying: bases that do
	// not fit will not fit on the next attempt either.
	retryOOM := false
	defer func() {
		if err != nil {
			err = fmt.Errorf("partition %d device %d: %w", in.Partition, idx, err)
			if retryOOM && isOOM(err) {
				err = stages.Retryable(err)
			}
		}
	}()
	bases, notes, err := j.bases(dev, s.cfg.Bases, s.cfg.Tables)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		trace.SpanFromContext(ctx).AddEvent(n)
	}
	if s.cfg.Bases == BasesHost {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("groth16.bases", BasesHost))
	}
	retryOOM = true
	st, err := dev.NewStream()
	if err != nil {
		return nil, fmt.Errorf("new stream: %w", err)
	}
	buf := newDeviceBuffers(idx, st, bases)
	buf.OnesA, buf.OnesB, buf.OnesK = mi.OnesA, mi.OnesB, mi.OnesK
	buf.Commitments = mi.Solution.Commitments
	err = buf.upload(ctx, mi, int(j.PK.Domain.Cardinality))
	if err == nil {
		return buf, nil
	}
	if isOOM(err) && s.cfg.OnOOM == OnOOMUploadInCompute && ctx.Err() == nil {
		buf.Deferred, buf.host = true, mi
		trace.SpanFromContext(ctx).AddEvent("upload deferred to gpu_compute (on_oom: upload_in_compute)",
			trace.WithAttributes(attribute.String("error", err.Error())))
		return buf, nil
	}
	buf.free()
	return nil, err
}

// upload allocates the partition's vectors on the buffers' stream and
// copies mi's host vectors in. On error it frees the vectors it allocated
// and leaves the stream open.
func (buf *DeviceBuffers) upload(ctx context.Context, mi *MSMInputs, n int) (err error) {
	defer func() {
		if err != nil {
			buf.dropVectors()
		}
	}()
	st := buf.Stream
	sol := mi.Solution
	uploads := []struct {
		dst  *device.Vector
		name string
		len  int
		src  []fr.Element
		form device.Form
	}{
		{&buf.ABC[0], "a", n, sol.A, device.FormMontgomery},
		{&buf.ABC[1], "b", n, sol.B, device.FormMontgomery},
		{&buf.ABC[2], "c", n, sol.C, device.FormMontgomery},
		{&buf.WA, "wA", len(mi.A), mi.A, mi.Form},
		{&buf.WB, "wB", len(mi.B), mi.B, mi.Form},
		{&buf.WK, "wK", len(mi.K), mi.K, mi.Form},
	}
	if len(mi.PoK) > 0 {
		uploads = append(uploads, struct {
			dst  *device.Vector
			name string
			len  int
			src  []fr.Element
			form device.Form
		}{&buf.WP, "wPoK", len(mi.PoK), mi.PoK, mi.Form})
	}
	for _, u := range uploads {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(u.src) > u.len {
			return fmt.Errorf("vector %s: %d scalars for %d slots", u.name, len(u.src), u.len)
		}
		v, err := st.Alloc(u.len)
		if err != nil {
			return fmt.Errorf("alloc %s (%d scalars): %w", u.name, u.len, err)
		}
		*u.dst = v
		buf.res.hold(v)
		if err := st.Upload(v, u.src, u.form); err != nil {
			return fmt.Errorf("upload %s: %w", u.name, err)
		}
	}
	if err := st.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}
