package ccsfile

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// A file whose version, lengths, counts or compressed streams do not
// match its bytes is refused before gnark decodes anything, saying
// what. The file is plain/R1CS's.
func TestCheckLayoutRefuses(t *testing.T) {
	file := testCircuitNamed(t, "plain/R1CS").file
	u64 := func(at int) uint64 { return binary.LittleEndian.Uint64(file[at:]) }
	levels := FileHeader + SystemHeader
	instructions := levels + int(u64(FileHeader))
	calldata := instructions + int(u64(FileHeader+8))
	coeffs := calldata + int(u64(FileHeader+16)) + int(u64(FileHeader+24))
	set := func(at int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[at:], v); return b }
	}
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"headers cut short", func(b []byte) []byte { return b[:FileHeader+8] }, "40 bytes, shorter than the headers (64)"},
		{"another minor version", set(16, 13), "written by gnark 0.13.0; prooflane reads the files of gnark 0.14 (write it with gnark v0.14.x)"},
		{"another major version", set(8, 1), "written by gnark 1.14.0; prooflane reads the files of gnark 0.14 (write it with gnark v0.14.x)"},
		{"a total length past the file", set(0, u64(0)+1), "declares 1408 bytes of constraint system, the file has 1407 after the header"},
		{"a section past the file", set(FileHeader+24, 1<<40), "declares sections of more bytes than the file holds (1375 left after the header)"},
		{"a coefficient count past the table", set(coeffs, u64(coeffs)+1), "coefficient table: declares 13 coefficients, 384 bytes hold them"},
		{"a calldata count past its bytes", set(calldata, 1<<40), "calldata: declares 1099511627776 values in 210 bytes"},
		{"a stream past its section", set(instructions, 1<<40), "instructions: a stream declares 1099511627776 words, 164 bytes hold them"},
		{"more levels than instructions", set(levels, 1000), "levels: declares 1000 levels of 17 instructions in 80 bytes"},
		{"a level's stream cut short", set(levels+8, 0), "levels: level 0 is empty"},
		{"a compressed block's length zero", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[instructions+8+4:], 0)
			return b
		}, "instructions: a compressed block of 0 words, 8 left"},
	} {
		b := c.edit(bytes.Clone(file))
		if err := CheckLayout(bytes.NewReader(b), int64(len(b))); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\n\twant %s", c.name, err, c.want)
		}
	}
}
