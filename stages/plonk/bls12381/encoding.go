package plonk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/kzg"
	gplonk "github.com/consensys/gnark/backend/plonk/bls12-381"
)

// The lengths in gnark's encodings of a verifying key and a proof that
// depend on the number of BSB22 commitments, found by encoding values
// with none and with one, so that a reader checks a count against what
// it bounds before gnark's decoder allocates what the count says.

// vkLayout is the layout of an encoded verifying key (WriteTo and
// WriteRawTo write the same bytes): its length with no commitments, where
// the 4-byte count of commitment selectors Qcp sits, and the bytes each
// selector and each commitment row (CommitmentConstraintIndexes, the
// key's last field: a 4-byte count, then 8 bytes a row) add.
type vkLayout struct {
	empty, qcpAt, perQcp, perRow int64
}

var vkEncoding = sync.OnceValue(func() vkLayout {
	enc := func(vk *gplonk.VerifyingKey) []byte {
		var b bytes.Buffer
		if _, err := vk.WriteRawTo(&b); err != nil {
			panic("plonk: encoding a verifying key: " + err.Error()) // cannot happen: a bytes.Buffer does not fail
		}
		return b.Bytes()
	}
	none := enc(&gplonk.VerifyingKey{})
	qcp := enc(&gplonk.VerifyingKey{Qcp: make([]kzg.Digest, 1)})
	row := enc(&gplonk.VerifyingKey{CommitmentConstraintIndexes: make([]uint64, 1)})
	i := 0
	for i < len(none) && none[i] == qcp[i] {
		i++
	}
	return vkLayout{
		empty:  int64(len(none)),
		qcpAt:  int64(i - 3), // the count's last byte is the first to differ
		perQcp: int64(len(qcp) - len(none)),
		perRow: int64(len(row) - len(none)),
	}
})

// size is the length of a verifying key with qcp selectors and rows
// commitment rows.
func (l vkLayout) size(qcp, rows int64) int64 { return l.empty + qcp*l.perQcp + rows*l.perRow }

// rowsAt is where the count of commitment rows sits in a key with qcp
// selectors.
func (l vkLayout) rowsAt(qcp int64) int64 { return l.empty - 4 + qcp*l.perQcp }

// vkCounts reads an encoded verifying key's count of commitment
// selectors and of commitment rows from r, a key of size bytes or more
// (the rest of a proving key after it); the selectors must fit in size
// before the second count is read.
func vkCounts(r io.ReaderAt, size int64) (qcp, rows int64, err error) {
	l := vkEncoding()
	u32 := func(off int64, what string) (int64, error) {
		var b [4]byte
		if off+4 > size {
			return 0, fmt.Errorf("%d bytes: too short for the verifying key's %s", size, what)
		}
		if _, err := r.ReadAt(b[:], off); err != nil {
			return 0, err
		}
		return int64(binary.BigEndian.Uint32(b[:])), nil
	}
	if qcp, err = u32(l.qcpAt, "count of BSB22 commitments"); err != nil {
		return 0, 0, err
	}
	if l.size(qcp, 0) > size {
		return 0, 0, fmt.Errorf("the verifying key declares %d BSB22 commitments (api.Commit), more than its %d bytes hold", qcp, size)
	}
	if rows, err = u32(l.rowsAt(qcp), "count of BSB22 commitment rows"); err != nil {
		return 0, 0, err
	}
	return qcp, rows, nil
}

// proofSize is the length of an encoded proof (Proof.WriteTo) with
// commitments BSB22 commitments: each adds its commitment and the claimed
// value of its selector Qcp at ζ.
func proofSize(commitments int) int {
	p := proofEncoding()
	return p[0] + commitments*p[1]
}

var proofEncoding = sync.OnceValue(func() [2]int {
	enc := func(c int) int {
		var b bytes.Buffer
		p := gplonk.Proof{Bsb22Commitments: make([]kzg.Digest, c)}
		p.BatchedProof.ClaimedValues = make([]fr.Element, 6+c)
		if _, err := p.WriteTo(&b); err != nil {
			panic("plonk: encoding a proof: " + err.Error()) // cannot happen: a bytes.Buffer does not fail
		}
		return b.Len()
	}
	none := enc(0)
	return [2]int{none, enc(1) - none}
})
