package solidity_test

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark/backend/witness"
)

func name(commit bool) string { return fmt.Sprintf("commit=%v", commit) }

func marshal(t *testing.T, w witness.Witness) []byte {
	t.Helper()
	b, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
