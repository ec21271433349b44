package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzVerifyDirectory runs verify on a proof directory whose manifest is
// the fuzzer's and one of whose proof or public input files has one byte
// changed (xor, at an offset): whatever they hold, verify exits 0 or 1
// without a panic, and it accepts only the prover's own statement: the
// manifest's circuit, size, seed, partitions and constraints, and the
// files' points and public inputs as written.
//
//	go test -run '^$' -fuzz FuzzVerifyDirectory -fuzztime 10m ./cmd/prooflane/
func FuzzVerifyDirectory(f *testing.F) {
	good, keysDir, _ := proveSmall(f, "chain")
	orig := snapshot(f, good)
	names := []string{"proof-0.bin", "proof-1.bin", "proof-2.bin", "public-0.bin", "public-1.bin", "public-2.bin"}
	m := []byte(orig[manifestFile])
	f.Add(m, uint8(0), uint16(0), byte(0))
	f.Add(m, uint8(1), uint16(600), byte(0x5a))
	f.Add(m, uint8(4), uint16(11), byte(0xff))
	for _, edit := range []struct{ from, to string }{
		{`"circuit": "chain"`, `"circuit": "../../x"`},
		{`"proof-0.bin"`, `"../../../../etc/passwd"`},
		{`"public-1.bin"`, `"public-0.bin"`},
		{`"partitions": 3`, `"partitions": 2`},
		{`"seed": 1`, `"seed": 7`},
		{`"constraints": 256`, `"constraints": 999`},
		{`"size": 256`, `"size": 1073741824`},
	} {
		f.Add([]byte(strings.Replace(string(m), edit.from, edit.to, 1)), uint8(0), uint16(0), byte(0))
	}
	f.Fuzz(func(t *testing.T, manifestData []byte, file uint8, at uint16, xor byte) {
		dir := t.TempDir()
		target := names[int(file)%len(names)]
		for name, body := range orig {
			b := []byte(body)
			if name == manifestFile {
				b = manifestData
			} else if name == target && len(b) > 0 {
				b[int(at)%len(b)] ^= xor
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, dir)
		if rc != 0 && rc != 1 {
			t.Fatalf("exit %d\n%s%s", rc, stdout, stderr)
		}
		if rc != 0 {
			return
		}
		var got manifest
		if err := json.Unmarshal(manifestData, &got); err != nil {
			t.Fatalf("verify accepted a manifest that is not JSON: %v", err)
		}
		if got.Circuit != "chain" || got.Size != 256 || got.Seed != 1 || got.Partitions != 3 || got.Constraints != 256 {
			t.Fatalf("verify accepted a false statement: %+v\n%s", got, stdout)
		}
		// Ar, Bs and Krs (2 G1 and 1 G2, compressed), and every byte of
		// a public input file, are what verify checks; the rest of a
		// proof file is a commitment count and an unused proof of
		// knowledge (no commitments).
		if xor != 0 && (strings.HasPrefix(target, "public-") || int(at)%len(orig[target]) < 2*48+96) {
			t.Fatalf("verify accepted %s with byte %d changed", target, int(at)%len(orig[target]))
		}
	})
}
