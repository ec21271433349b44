package keys

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
)

// BenchmarkProvingKeyLoad weighs what a load of the proving key costs with
// each check: the CRC-32C of the file's bytes, gnark's decoding without
// point checks (what Load does), and with them (on the curve and in the
// subgroup, ReadFrom). The key's bytes are in memory, as a file in the
// page cache would be.
//
//	go test -run '^$' -bench BenchmarkProvingKeyLoad -benchtime 5x ./stages/groth16/keys/
func BenchmarkProvingKeyLoad(b *testing.B) {
	for _, log2 := range []int{12, 14} {
		s, err := Setup("chain", 1<<log2)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := s.PK.WriteRawTo(&buf); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("2^%d/crc32c", log2), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				crc32.Checksum(data, castagnoli)
			}
		})
		b.Run(fmt.Sprintf("2^%d/decode-unchecked", log2), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var pk g16.ProvingKey
				if _, err := pk.UnsafeReadFrom(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("2^%d/decode-point-checks", log2), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var pk g16.ProvingKey
				if _, err := pk.ReadFrom(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
