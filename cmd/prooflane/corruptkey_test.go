package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	plonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
)

// corruptKey rewrites the key of family fam (groth16 or plonk) for chain
// at size in keysDir with content that is wrong but well formed, under a
// valid checksum trailer (the cache's own Save): Groth16's A bases each
// moved by the generator, PLONK's second canonical SRS point. The key
// loads as before; no proof made with it verifies.
func corruptKey(t *testing.T, fam, keysDir string, size int) {
	t.Helper()
	_, _, g1, _ := curve.Generators()
	switch fam {
	case "groth16":
		c := keys.Cache{Dir: keysDir}
		s, err := c.Load(t.Context(), "chain", size)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.PK.G1.A {
			s.PK.G1.A[i].Add(&s.PK.G1.A[i], &g1)
		}
		if err := c.Save(s); err != nil {
			t.Fatal(err)
		}
	case "plonk":
		c := plonk.Cache{Dir: keysDir}
		k, _, err := c.Load(t.Context(), "chain", size)
		if err != nil {
			t.Fatal(err)
		}
		k.PK.Kzg.G1[1].Add(&k.PK.Kzg.G1[1], &g1)
		if err := c.Save(k, size); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("corruptKey: family %q", fam)
	}
}

// noProofsWritten fails t when out exists or a proof file is left beside
// it (in the failed run's directory).
func noProofsWritten(t *testing.T, out string) {
	t.Helper()
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists after a refused run (%v)", out, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*", "proof-*.bin"))
	if len(left) > 0 {
		t.Errorf("proofs written after a refused run: %v", left)
	}
}

// A proving key whose content is wrong under a valid checksum makes
// proofs that do not verify: prove exits 1 naming the partition and writes
// nothing in --out, and bench exits 1, in both families, whether the final stage checks the
// proof (its verify option, the default) or prove does (verify: false).
func TestProveWritesNothingWhenAProofDoesNotVerify(t *testing.T) {
	for _, c := range []struct{ fam, size, final string }{
		{"groth16", "256", "groth16.epilogue"},
		{"plonk", "100", "plonk.batch_open"},
	} {
		t.Run(c.fam, func(t *testing.T) {
			keysDir := t.TempDir()
			if rc, _, stderr := prooflane(t, "setup", "--pipeline", c.fam, "--size", c.size, "--keys", keysDir); rc != 0 {
				t.Fatalf("setup: exit %d: %s", rc, stderr)
			}
			n, _ := parseSize(c.size)
			corruptKey(t, c.fam, keysDir, n)
			src, err := os.ReadFile(filepath.Join("../../pipelines", c.fam+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			unchecked := writeFile(t, t.TempDir(), c.fam+"-unchecked.yaml",
				strings.Replace(string(src), "type: "+c.final+"\n", "type: "+c.final+"\n    config: {verify: false}\n", 1))
			for _, run := range []struct{ pipeline, want string }{
				{c.fam, "proof does not verify"},
				{unchecked, "the proof is not written"},
			} {
				out := filepath.Join(t.TempDir(), "out")
				rc, stdout, stderr := prooflane(t, "prove", "--pipeline", run.pipeline, "--size", c.size, "--partitions", "2",
					"--keys", keysDir, "--out", out, "--progress", "off")
				if rc != exitFailure || !strings.Contains(stderr, "partition ") || !strings.Contains(stderr, run.want) {
					t.Errorf("prove --pipeline %s with a corrupt key: exit %d, stdout %q, stderr %q; want exit 1 and %q", run.pipeline, rc, stdout, stderr, run.want)
				}
				noProofsWritten(t, out)
				rc, _, stderr = prooflane(t, "bench", "--size", c.size, "--partitions", "2", "--jobs", "1", "--inflight", "1",
					"--keys", keysDir, run.pipeline)
				if rc != exitFailure || !strings.Contains(stderr, "partition ") || strings.Contains(stderr, "every one verified") {
					t.Errorf("bench %s with a corrupt key: exit %d, stderr %q; want exit 1 naming the partition", run.pipeline, rc, stderr)
				}
			}
		})
	}
}
