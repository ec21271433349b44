package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/circuits"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

func init() {
	register("verify", command{summary: "verify every proof in a directory written by prove", run: runVerify})
}

func runVerify(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("verify", "DIR", stderr)
	keysDir := fs.String("keys", keys.DefaultDir(), "key cache directory holding the verifying key")
	vkPath := fs.String("vk", "", "verifying key file (default: the key cache's for the manifest's circuit and size; DIR's own vk.bin is used only when named here, as --vk DIR/vk.bin)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "want exactly one proof directory, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	if m.Family != "" {
		if *vkPath != "" {
			return usageErrorf(fs, "--vk is for groth16 proof directories; %s holds %s proofs, checked against the key cache (--keys)", dir, m.Family)
		}
		return verifyFamily(*keysDir, dir, m, stdout, stderr)
	}
	cache := keys.Cache{Dir: *keysDir}
	vk, from, err := verifyingKey(*vkPath, cache, m, dir)
	if err != nil {
		return err
	}
	if *vkPath == "" {
		// The key's own constraint system says how many constraints
		// the manifest should claim.
		r1cs, err := cache.LoadR1CS(m.Circuit, m.Size)
		if err != nil {
			return err
		}
		if n := r1cs.GetNbConstraints(); n != m.Constraints {
			return fmt.Errorf("%s: constraints is %d, but circuit %q size %d has %d (the key cache's constraint system)",
				filepath.Join(dir, manifestFile), m.Constraints, m.Circuit, m.Size, n)
		}
	}
	inst, err := circuits.New(m.Circuit, m.Size)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, manifestFile), err)
	}
	fmt.Fprintf(stdout, "verifying %d proofs of %s (size %d, seed %d) with %s\n", m.Partitions, m.Circuit, m.Size, m.Seed, from)
	failed := 0
	for i := range m.Partitions {
		if err := verifyPartition(vk, inst, dir, m, i); err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %v\n", m.Proofs[i], err)
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", m.Proofs[i])
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "prooflane verify: %d of %d proofs in %s do not verify\n", failed, m.Partitions, dir)
		if *vkPath == "" && differentVK(vk, filepath.Join(dir, vkFile)) {
			fmt.Fprintf(stderr, "prooflane verify: note: %s is not the verifying key the prover wrote to %s: the keys were set up again since, or proved with another --keys directory; if you trust the directory, check against the prover's key with --vk %s\n",
				from, filepath.Join(dir, vkFile), filepath.Join(dir, vkFile))
		}
		return errSilent
	}
	fmt.Fprintf(stdout, "all %d proofs verify\n", m.Partitions)
	return nil
}

// verifyFamily verifies a family.Prover's directory (readManifest checked
// that the family is one) against the key cache's key.
func verifyFamily(keysDir, dir string, m manifest, stdout, stderr io.Writer) error {
	f, _ := builtin.Families().Lookup(m.Family)
	fp := f.(family.Prover)
	v, err := fp.Verifier(context.Background(), family.VerifyRequest{
		KeyRequest: family.KeyRequest{Dir: keysDir, Size: m.Size},
		Manifest:   filepath.Join(dir, manifestFile), Key: m.Key, Constraints: m.Constraints, Partitions: m.Partitions, Seed: m.Seed,
	})
	if errors.Is(err, family.ErrNotCached) {
		return fmt.Errorf("%s proofs in %s: %w (give --keys the cache the proofs were made with)", m.Family, dir, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "verifying %d %s proofs (size %d, seed %d) with %s\n", m.Partitions, m.Family, m.Size, m.Seed, v.From())
	failed := 0
	for i := range m.Partitions {
		path := filepath.Join(dir, m.Proofs[i])
		data, err := readRegular(path, maxProofFile)
		if err == nil {
			err = v.Verify(i, family.Files{Proof: data})
		}
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %v\n", m.Proofs[i], err)
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", m.Proofs[i])
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "prooflane verify: %d of %d proofs in %s do not verify\n", failed, m.Partitions, dir)
		return errSilent
	}
	fmt.Fprintf(stdout, "all %d proofs verify\n", m.Partitions)
	return nil
}

// verifyingKey picks the key: --vk, else the cache's for the manifest's
// circuit and size. The directory's own copy is never a fall-back: a
// directory that brings its own key proves only that it agrees with
// itself.
func verifyingKey(path string, cache keys.Cache, m manifest, dir string) (*g16.VerifyingKey, string, error) {
	if path != "" {
		vk, err := keys.ReadVK(path)
		absDir, err1 := filepath.Abs(dir)
		absPath, err2 := filepath.Abs(path)
		if rel, rerr := filepath.Rel(absDir, absPath); err1 == nil && err2 == nil && rerr == nil && filepath.IsLocal(rel) {
			return vk, path + " (the directory's own key, named with --vk)", err
		}
		return vk, path, err
	}
	vk, err := cache.LoadVK(m.Circuit, m.Size)
	if errors.Is(err, keys.ErrNotCached) {
		return nil, "", fmt.Errorf("no verifying key for circuit %q size %d in the key cache %s: give --keys the cache the proofs were made with, or --vk FILE (the directory's own key only if you trust it: --vk %s)",
			m.Circuit, m.Size, cache.Dir, filepath.Join(dir, vkFile))
	}
	if err != nil {
		return nil, "", err
	}
	_, _, p := cache.Paths(m.Circuit, m.Size)
	return vk, p, nil
}

// differentVK reports whether the key file at path is a regular file
// whose bytes differ from vk's serialization (false when it cannot be
// read: a missing copy is no evidence that the keys were set up again).
func differentVK(vk *g16.VerifyingKey, path string) bool {
	want, err := readRegular(path, maxProofFile)
	if err != nil {
		return false
	}
	var got bytes.Buffer
	if _, err := vk.WriteTo(&got); err != nil {
		return false
	}
	return !bytes.Equal(got.Bytes(), want)
}

// verifyPartition checks partition i: its proof verifies with vk against
// its public inputs, and those are the ones the manifest's circuit, size
// and seed give the partition.
func verifyPartition(vk *g16.VerifyingKey, inst circuits.Instance, dir string, m manifest, i int) error {
	pubPath := filepath.Join(dir, m.Public[i])
	if err := verifyFile(vk, filepath.Join(dir, m.Proofs[i]), pubPath); err != nil {
		return err
	}
	w, err := circuits.Witness(inst.Assignment(circuits.PartitionSeed(m.Seed, i)))
	if err != nil {
		return err
	}
	pub, err := w.Public()
	if err != nil {
		return err
	}
	want, err := pub.MarshalBinary()
	if err != nil {
		return err
	}
	data, err := readRegular(pubPath, maxProofFile)
	if err != nil {
		return err
	}
	if !bytes.Equal(data, want) {
		return fmt.Errorf("%s: not the public inputs of circuit %q size %d seed %d partition %d", pubPath, m.Circuit, m.Size, m.Seed, i)
	}
	return nil
}

func verifyFile(vk *g16.VerifyingKey, proofPath, publicPath string) error {
	var proof g16.Proof
	if err := readChecked(proofPath, checkProofLengths, proof.ReadFrom); err != nil {
		return err
	}
	pub, err := witness.New(ecc.BLS12_381.ScalarField())
	if err != nil {
		return err
	}
	if err := readChecked(publicPath, checkPublicLengths, pub.ReadFrom); err != nil {
		return err
	}
	return groth16.VerifyProof(vk, &proof, pub)
}

// readChecked reads the file at path whole (readRegular), checks the lengths its
// encoding declares against its size, and only then decodes it. gnark's
// decoders allocate whatever a length prefix says before reading the
// elements: a corrupt file claiming 2^32 elements would kill the process
// with an out-of-memory error that no recover can catch.
func readChecked(path string, check func([]byte) error, read func(io.Reader) (int64, error)) error {
	data, err := readRegular(path, maxProofFile)
	if err != nil {
		return err
	}
	if err := decodeChecked(data, check, read); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// decodeChecked is readChecked on the file's bytes.
func decodeChecked(data []byte, check func([]byte) error, read func(io.Reader) (int64, error)) error {
	if len(data) > maxProofFile {
		return fmt.Errorf("corrupt: larger than %d MiB", maxProofFile>>20)
	}
	if err := check(data); err != nil {
		return fmt.Errorf("corrupt: %w", err)
	}
	r := bytes.NewReader(data)
	if _, err := read(r); err != nil {
		return err
	}
	if r.Len() != 0 {
		return fmt.Errorf("corrupt: %d trailing bytes", r.Len())
	}
	return nil
}

// checkPublicLengths checks a public witness in gnark's binary form: the
// public and secret counts (4 bytes each), the vector's length (4 bytes),
// then 32 bytes per element.
func checkPublicLengths(b []byte) error {
	if len(b) < 12 {
		return fmt.Errorf("%d bytes, shorter than a witness header (12)", len(b))
	}
	n := uint64(binary.BigEndian.Uint32(b[8:12]))
	if want := 12 + 32*n; uint64(len(b)) != want {
		return fmt.Errorf("declares %d public inputs (%d bytes), has %d bytes", n, want, len(b))
	}
	return nil
}

// checkProofLengths checks the commitment count of a gnark proof (Ar, Bs,
// Krs, then a 4-byte count of G1 commitments, then their proof of
// knowledge) against the bytes left for them.
func checkProofLengths(b []byte) error {
	g1, g2 := 48, 96 // compressed points, as Proof.WriteTo writes them
	if len(b) > 0 && b[0]&0x80 == 0 {
		g1, g2 = 96, 192 // uncompressed (WriteRawTo)
	}
	at := 2*g1 + g2
	if len(b) < at+4 {
		return fmt.Errorf("%d bytes, shorter than a proof (%d)", len(b), at+4+g1)
	}
	n := uint64(binary.BigEndian.Uint32(b[at : at+4]))
	if left := uint64(len(b) - at - 4); n*uint64(g1) > left {
		return fmt.Errorf("declares %d commitments, %d bytes left for them", n, left)
	}
	return nil
}
