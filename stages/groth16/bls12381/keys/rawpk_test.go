package keys

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
)

// readProvingKey reads what gnark's UnsafeReadFrom reads, across batch
// boundaries, infinity flags included.
func TestProvingKeyIsReadAsGnarkReadsIt(t *testing.T) {
	defer func(b int) { readBatch = b }(readBatch)
	for _, c := range []struct {
		circuit string
		size    int
		batch   int
	}{{"chain", 64, 7}, {"mimc", 3, 1}, {"sha256", 1, readBatch}} {
		sys, _, err := Compile(c.circuit, c.size)
		if err != nil {
			t.Fatal(err)
		}
		pk, _, _, err := NewKeys(context.Background(), sys, fixedSecrets(t, 4), nil)
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		if _, err := pk.WriteRawTo(&file); err != nil {
			t.Fatal(err)
		}
		var want, got g16.ProvingKey
		if _, err := want.UnsafeReadFrom(bytes.NewReader(file.Bytes())); err != nil {
			t.Fatal(err)
		}
		readBatch = c.batch
		n, err := readProvingKey(bytes.NewReader(file.Bytes()), &got)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(file.Len()) || !reflect.DeepEqual(&got, &want) {
			t.Errorf("%s: read %d of %d bytes; the key differs from gnark's reading (equal: %v)", c.circuit, n, file.Len(), reflect.DeepEqual(&got, &want))
		}
		if want.NbInfinityA == 0 {
			t.Logf("%s: no infinity flags in A", c.circuit)
		}
	}
}

// A compressed point where the raw encoding has an uncompressed one is
// an error, not a misaligned read.
func TestAProvingKeyWithACompressedPointIsRefused(t *testing.T) {
	sys, _, err := Compile("chain", 64)
	if err != nil {
		t.Fatal(err)
	}
	pk, _, _, err := NewKeys(context.Background(), sys, fixedSecrets(t, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := pk.WriteTo(&file); err != nil { // compressed
		t.Fatal(err)
	}
	var got g16.ProvingKey
	_, err = readProvingKey(bytes.NewReader(file.Bytes()), &got)
	if err == nil || !strings.Contains(err.Error(), "read g1.a") {
		t.Errorf("error %v, want g1.a refused", err)
	}
}

// writeProvingKey writes WriteRawTo's bytes, across batch boundaries,
// infinity flags included, and counts them.
func TestProvingKeyIsWrittenAsGnarkWritesIt(t *testing.T) {
	defer func(b int) { writeBatch = b }(writeBatch)
	for _, c := range []struct {
		circuit string
		size    int
		batch   int
	}{{"chain", 64, 7}, {"mimc", 3, 1}, {"sha256", 1, writeBatch}, {"chain", 300, 1 << 16}} {
		sys, _, err := Compile(c.circuit, c.size)
		if err != nil {
			t.Fatal(err)
		}
		pk, _, _, err := NewKeys(context.Background(), sys, fixedSecrets(t, 4), nil)
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if _, err := pk.WriteRawTo(&want); err != nil {
			t.Fatal(err)
		}
		writeBatch = c.batch
		n, err := writeProvingKey(&got, pk)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s %d, batches of %d: the bytes differ from WriteRawTo's (%d against %d)", c.circuit, c.size, c.batch, got.Len(), want.Len())
		}
		if n != int64(want.Len()) {
			t.Errorf("%s %d: wrote %d bytes, said %d", c.circuit, c.size, want.Len(), n)
		}
	}
}
