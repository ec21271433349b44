package keys

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/pedersen"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
)

// readProvingKey reads a proving key that WriteRawTo wrote into pk: the
// values UnsafeReadFrom reads (no subgroup checks, the commitment keys'
// points included; the tests compare them), with the point vectors
// decoded on every core a batch at a time.
// gnark decodes one point after the other at 170-270 MB/s, so loading
// the 9 GiB key of chain at 2^24 took some 40 s on the H200's host.
// Every point must be uncompressed, as WriteRawTo writes them; memory on
// top of the key is one batch's bytes (readBatch points). The caller has
// checked the lengths the file declares against its size
// (checkPKLengths): the vectors are allocated as declared.
func readProvingKey(r io.Reader, pk *g16.ProvingKey) (int64, error) {
	cr := &countingReader{r: r}
	if _, err := pk.Domain.ReadFrom(cr); err != nil {
		return cr.n, fmt.Errorf("read domain: %w", err)
	}
	dec := curve.NewDecoder(cr, curve.NoSubgroupChecks())
	decode := func(what string, vs ...any) error {
		for _, v := range vs {
			if err := dec.Decode(v); err != nil {
				return fmt.Errorf("read %s: %w", what, err)
			}
		}
		return nil
	}
	if err := decode("g1 alpha, beta, delta", &pk.G1.Alpha, &pk.G1.Beta, &pk.G1.Delta); err != nil {
		return cr.n, err
	}
	for _, v := range []struct {
		what string
		dst  *[]curve.G1Affine
	}{{"g1.a", &pk.G1.A}, {"g1.b", &pk.G1.B}, {"g1.z", &pk.G1.Z}, {"g1.k", &pk.G1.K}} {
		var err error
		if *v.dst, err = readPoints[curve.G1Affine](cr, curve.SizeOfG1AffineUncompressed, v.what); err != nil {
			return cr.n, err
		}
	}
	if err := decode("g2 beta, delta", &pk.G2.Beta, &pk.G2.Delta); err != nil {
		return cr.n, err
	}
	var err error
	if pk.G2.B, err = readPoints[curve.G2Affine](cr, curve.SizeOfG2AffineUncompressed, "g2.b"); err != nil {
		return cr.n, err
	}
	var wires uint64
	if err := decode("the wire and infinity counts", &wires, &pk.NbInfinityA, &pk.NbInfinityB); err != nil {
		return cr.n, err
	}
	pk.InfinityA, pk.InfinityB = make([]bool, wires), make([]bool, wires)
	var commitments uint32
	if err := decode("the infinity flags and the commitment count", &pk.InfinityA, &pk.InfinityB, &commitments); err != nil {
		return cr.n, err
	}
	// The commitment keys (api.Commit), as pedersen.ProvingKey.WriteRawTo
	// writes them: the bases, then the bases times σ.
	if commitments > 0 {
		pk.CommitmentKeys = make([]pedersen.ProvingKey, commitments)
	}
	for i := range pk.CommitmentKeys {
		k := &pk.CommitmentKeys[i]
		var err error
		if k.Basis, err = readPoints[curve.G1Affine](cr, curve.SizeOfG1AffineUncompressed, fmt.Sprintf("commitment key %d's bases", i)); err != nil {
			return cr.n, err
		}
		if k.BasisExpSigma, err = readPoints[curve.G1Affine](cr, curve.SizeOfG1AffineUncompressed, fmt.Sprintf("commitment key %d's bases·σ", i)); err != nil {
			return cr.n, err
		}
		if len(k.Basis) != len(k.BasisExpSigma) {
			return cr.n, fmt.Errorf("commitment key %d: %d bases and %d bases·σ", i, len(k.Basis), len(k.BasisExpSigma))
		}
	}
	return cr.n, nil
}

// readBatch is the points a batch of readPoints: 96 MiB of G2 points.
var readBatch = 1 << 19

// readPoints reads a vector of uncompressed points of size bytes each
// (a 4-byte big-endian count, then the points), decoding the points of a
// batch in parallel with gnark-crypto's decoder.
func readPoints[P any](r io.Reader, size int, what string) ([]P, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	n := int(binary.BigEndian.Uint32(l[:]))
	v := make([]P, n)
	buf := make([]byte, min(n, readBatch)*size)
	workers := runtime.NumCPU()
	for lo := 0; lo < n; lo += readBatch {
		m := min(readBatch, n-lo)
		if _, err := io.ReadFull(r, buf[:m*size]); err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
		per := (m + workers - 1) / workers
		errs := make([]error, (m+per-1)/per)
		var wg sync.WaitGroup
		for k := range errs {
			s, e := k*per, min((k+1)*per, m)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var pre [4]byte
				binary.BigEndian.PutUint32(pre[:], uint32(e-s))
				d := curve.NewDecoder(io.MultiReader(bytes.NewReader(pre[:]), bytes.NewReader(buf[s*size:e*size])), curve.NoSubgroupChecks())
				sub := v[lo+s : lo+e]
				if err := d.Decode(&sub); err != nil {
					errs[k] = err
				} else if d.BytesRead() != int64(4+(e-s)*size) || len(sub) != e-s {
					errs[k] = errors.New("a compressed point (prooflane writes them uncompressed)")
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
	}
	return v, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// writeProvingKey writes pk as WriteRawTo does, byte for byte, with the
// point vectors encoded on every core a batch at a time (gnark encodes
// one point after the other, some 740 MB/s a core: 12 s of chain's 9 GiB
// key at 2^24), the commitment keys' too.
func writeProvingKey(w io.Writer, pk *g16.ProvingKey) (int64, error) {
	n, err := pk.Domain.WriteTo(w)
	if err != nil {
		return n, err
	}
	enc := curve.NewEncoder(w, curve.RawEncoding())
	encode := func(vs ...any) error {
		for _, v := range vs {
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
		return nil
	}
	if err := encode(&pk.G1.Alpha, &pk.G1.Beta, &pk.G1.Delta); err != nil {
		return n + enc.BytesWritten(), err
	}
	// One batch's buffer for every vector: fresh pages for each would
	// cost more than the encoding saves.
	buf := make([]byte, writeBatch*curve.SizeOfG2AffineUncompressed)
	writeG1 := func(vs ...[]curve.G1Affine) error {
		for _, v := range vs {
			m, err := writePoints(w, buf, len(v), curve.SizeOfG1AffineUncompressed, func(from, to int, b []byte) {
				for i := from; i < to; i++ {
					r := v[i].RawBytes()
					copy(b[(i-from)*curve.SizeOfG1AffineUncompressed:], r[:])
				}
			})
			n += m
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := writeG1(pk.G1.A, pk.G1.B, pk.G1.Z, pk.G1.K); err != nil {
		return n + enc.BytesWritten(), err
	}
	if err := encode(&pk.G2.Beta, &pk.G2.Delta); err != nil {
		return n + enc.BytesWritten(), err
	}
	g2 := pk.G2.B
	m, err := writePoints(w, buf, len(g2), curve.SizeOfG2AffineUncompressed, func(from, to int, b []byte) {
		for i := from; i < to; i++ {
			r := g2[i].RawBytes()
			copy(b[(i-from)*curve.SizeOfG2AffineUncompressed:], r[:])
		}
	})
	n += m
	if err != nil {
		return n + enc.BytesWritten(), err
	}
	err = encode(uint64(len(pk.InfinityA)), pk.NbInfinityA, pk.NbInfinityB, pk.InfinityA, pk.InfinityB, uint32(len(pk.CommitmentKeys)))
	for i := 0; err == nil && i < len(pk.CommitmentKeys); i++ {
		err = writeG1(pk.CommitmentKeys[i].Basis, pk.CommitmentKeys[i].BasisExpSigma)
	}
	return n + enc.BytesWritten(), err
}

// writeBatch is the points writePoints encodes before writing them: 12
// MiB of G2 points.
var writeBatch = 1 << 16

// writePoints writes a vector of n points as gnark's raw encoder does (a
// 4-byte big-endian count, then each point's size raw bytes), the points
// of a batch encoded in parallel by fill (points from to to into b) into
// buf, which holds writeBatch points.
func writePoints(w io.Writer, buf []byte, n, size int, fill func(from, to int, b []byte)) (int64, error) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(n))
	k, err := w.Write(l[:])
	written := int64(k)
	if err != nil {
		return written, err
	}
	workers := runtime.NumCPU()
	for lo := 0; lo < n; lo += writeBatch {
		m := min(writeBatch, n-lo)
		per := (m + workers - 1) / workers
		var wg sync.WaitGroup
		for s := 0; s < m; s += per {
			e := min(s+per, m)
			wg.Add(1)
			go func() {
				defer wg.Done()
				fill(lo+s, lo+e, buf[s*size:e*size])
			}()
		}
		wg.Wait()
		k, err := w.Write(buf[:m*size])
		written += int64(k)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}
