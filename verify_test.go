package prooflane_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark/frontend"

	"github.com/prooflane/prooflane"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
	stagesplonk "github.com/prooflane/prooflane/stages/plonk/bls12381"
)

// cachedKey returns the name and size of the one key of a family in a
// library key cache, from its file (prefix "" for Groth16's .pk, "plonk-"
// for PLONK's).
func cachedKey(t *testing.T, dir, prefix string) (string, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, prefix+"circuit-*.pk"))
	if len(files) != 1 {
		t.Fatalf("key files in %s: %v, want one", dir, files)
	}
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(files[0]), prefix), ".pk")
	i := strings.LastIndex(base, "-")
	size, err := strconv.Atoi(base[i+1:])
	if err != nil {
		t.Fatalf("key file %s: %v", files[0], err)
	}
	return base[:i], size
}

// uncheckedPipeline writes the embedded pipeline name with its final
// stage's verify option off, and returns its path.
func uncheckedPipeline(t *testing.T, name, final string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("pipelines", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+"-unchecked.yaml")
	body := strings.Replace(string(src), "type: "+final+"\n", "type: "+final+"\n    config: {verify: false}\n", 1)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The library returns no proof that does not verify: with a key whose
// content is wrong (under a valid checksum) Prove and ProvePlonk fail,
// naming the assignment, whether the pipeline's final stage checks the
// proofs (the default) or the library does (verify: false).
func TestProveReturnsNoProofOfACorruptKey(t *testing.T) {
	ctx := context.Background()
	_, _, g1, _ := curve.Generators()
	assignments := []frontend.Circuit{&Cubic{X: 2, Y: 15}, &Cubic{X: 3, Y: 35}}
	for _, c := range []struct {
		name, pipeline, final string
		prove                 func(opts ...prooflane.Option) error
		corrupt               func(t *testing.T, dir string)
	}{
		{"groth16", "groth16", "groth16.epilogue",
			func(opts ...prooflane.Option) error {
				_, err := prooflane.Prove(ctx, &Cubic{}, assignments, opts...)
				return err
			},
			func(t *testing.T, dir string) {
				name, size := cachedKey(t, dir, "")
				cache := keys.Cache{Dir: dir}
				s, err := cache.Load(t.Context(), name, size)
				if err != nil {
					t.Fatal(err)
				}
				for i := range s.PK.G1.A {
					s.PK.G1.A[i].Add(&s.PK.G1.A[i], &g1)
				}
				if err := cache.Save(s); err != nil {
					t.Fatal(err)
				}
			}},
		{"plonk", "plonk", "plonk.batch_open",
			func(opts ...prooflane.Option) error {
				_, err := prooflane.ProvePlonk(ctx, &Cubic{}, assignments, opts...)
				return err
			},
			func(t *testing.T, dir string) {
				name, size := cachedKey(t, dir, "plonk-")
				spr, err := stagesplonk.CompileCircuit(name, &Cubic{})
				if err != nil {
					t.Fatal(err)
				}
				cache := stagesplonk.Cache{Dir: dir}
				k, err := cache.LoadOrSetupSystem(context.Background(), name, size, spr, nil)
				if err != nil {
					t.Fatal(err)
				}
				k.PK.Kzg.G1[1].Add(&k.PK.Kzg.G1[1], &g1)
				if err := cache.Save(k, size); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.prove(prooflane.WithKeyCache(dir), prooflane.SilenceGnark()); err != nil {
				t.Fatalf("with a sound key: %v", err)
			}
			c.corrupt(t, dir)
			for _, pipeline := range []string{c.pipeline, uncheckedPipeline(t, c.pipeline, c.final)} {
				err := c.prove(prooflane.WithKeyCache(dir), prooflane.WithPipeline(pipeline))
				if err == nil || !strings.Contains(err.Error(), "assignment ") || !strings.Contains(err.Error(), "does not verify") {
					t.Errorf("pipeline %s with a corrupt key: %v, want the assignment named and %q", pipeline, err, "does not verify")
				}
			}
		})
	}
}
