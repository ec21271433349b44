package ccsfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"io/fs"

	"github.com/consensys/gnark/constraint"

	"github.com/prooflane/prooflane/internal/regfile"
)

// Kind is the kind of constraint system a file holds.
type Kind uint8

const (
	// R1CS is gnark's rank-1 constraint system (frontend/cs/r1cs), what
	// Groth16 proves.
	R1CS Kind = iota + 1
	// SparseR1CS is gnark's PLONK constraint system (frontend/cs/scs).
	SparseR1CS
)

func (k Kind) String() string {
	switch k {
	case R1CS:
		return "R1CS"
	case SparseR1CS:
		return "SparseR1CS"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// systemType is gnark's name of k in a system's header.
func (k Kind) systemType() constraint.SystemType {
	switch k {
	case R1CS:
		return constraint.SystemR1CS
	case SparseR1CS:
		return constraint.SystemSparseR1CS
	}
	return constraint.SystemUnknown
}

// Read reads the constraint system of kind that gnark's WriteTo wrote
// to the file at path, over curve's scalar field (BLS12-381 or BN254): a
// *cs.R1CS or a *cs.SparseR1CS of gnark's constraint/bls12-381 or
// constraint/bn254. A file of the other curve's system fails CheckSolvable's
// check of its scalar field, which names both. The
// file is opened only when it is a regular file and not a symbolic link
// (a FIFO, a device or a directory is refused at once, never waited
// on), and read whole into
// memory when it holds at most limit bytes (a larger one is refused
// before anything is allocated, wrapping regfile.ErrTooLarge); reading
// stops at the first chunk after ctx is done, with its cause. Then
// CheckLayout checks those bytes, gnark decodes them, and CheckSolvable
// checks the system: what Read returns, gnark's solver and provers use
// without a panic. The checks and the decoder see the same bytes, so a
// file changed while it is read cannot slip past them. Errors name the
// file and what is wrong.
func Read(ctx context.Context, path string, curve ecc.ID, kind Kind, limit int64) (constraint.ConstraintSystem, error) {
	f, err := fieldFor(curve)
	if err != nil {
		return nil, fmt.Errorf("constraint system %q: %w", path, err)
	}
	sys, err := read(ctx, path, f, kind, limit)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			return nil, fmt.Errorf("constraint system: %w", err)
		}
		return nil, fmt.Errorf("constraint system %q: %w", path, err)
	}
	return sys, nil
}

func read(ctx context.Context, path string, fd *field, kind Kind, limit int64) (constraint.ConstraintSystem, error) {
	if kind != R1CS && kind != SparseR1CS {
		return nil, fmt.Errorf("unknown kind %v", kind)
	}
	f, st, err := regfile.OpenNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, fmt.Errorf("%d bytes, %w of %d bytes", st.Size(), regfile.ErrTooLarge, limit)
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(regfile.Reader(ctx, f), b); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return parse(b, fd, kind)
}

// parse checks, decodes and checks the content b of a file.
func parse(b []byte, f *field, kind Kind) (constraint.ConstraintSystem, error) {
	if err := CheckLayout(bytes.NewReader(b), int64(len(b))); err != nil {
		return nil, err
	}
	sys, err := decode(b, f, kind)
	if err != nil {
		return nil, err
	}
	if err := CheckSolvable(sys, kind); err != nil {
		return nil, err
	}
	return sys, nil
}

// decode decodes b, which CheckLayout passed, into a system of kind,
// turning a panic of gnark's decoder in this goroutine into an error.
func decode(b []byte, f *field, kind Kind) (sys constraint.ConstraintSystem, err error) {
	defer func() {
		if p := recover(); p != nil {
			sys, err = nil, fmt.Errorf("gnark's decoder panicked: %v", p)
		}
	}()
	sys = f.newSystem(kind)
	n, err := sys.ReadFrom(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("gnark's decoder: %w", err)
	}
	if n != int64(len(b)) {
		return nil, fmt.Errorf("gnark's decoder read %d of its %d bytes", n, len(b))
	}
	return sys, nil
}
