package ccsfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// writeFile writes b to a file of a fresh directory, returning its path.
func writeFile(t testing.TB, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Constraint systems gnark compiles from circuits using the std
// gadgets, with either builder, pass the checks and decode to the system
// written (the same bytes when written again), which solves.
func TestCompiledSystemsPassAndDecodeToTheSameSystem(t *testing.T) {
	for _, tc := range testCircuits(t) {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "circuit.ccs", tc.file)
			sys, err := Read(t.Context(), path, tc.kind, int64(len(tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := sys.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), tc.file) {
				t.Errorf("read back, it writes %d bytes that differ from the %d it was read from", b.Len(), len(tc.file))
			}
			if _, err := sys.Solve(tc.validWitness(t)); err != nil {
				t.Errorf("solving the system read: %v", err)
			}
			t.Logf("%d constraints, %d instructions, %d bytes", sys.GetNbConstraints(), sys.GetNbInstructions(), len(tc.file))
		})
	}
}
