package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc"
	g16 "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"

	"github.com/prooflane/prooflane/stages/groth16"
	"github.com/prooflane/prooflane/stages/groth16/keys"
)

func init() {
	register("verify", command{summary: "verify every proof in a directory written by prove", run: runVerify})
}

func runVerify(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("verify", "DIR", stderr)
	keysDir := fs.String("keys", keys.DefaultDir(), "key cache directory holding the verifying key")
	vkPath := fs.String("vk", "", "verifying key file (default: the key cache's for the manifest's circuit and size, else DIR's copy)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "want exactly one proof directory, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	mb, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return fmt.Errorf("%s: not a directory written by prooflane prove: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, manifestFile), err)
	}
	if len(m.Proofs) == 0 || len(m.Proofs) != len(m.Public) {
		return fmt.Errorf("%s: lists %d proofs and %d public inputs", filepath.Join(dir, manifestFile), len(m.Proofs), len(m.Public))
	}
	vk, from, err := verifyingKey(*vkPath, keys.Cache{Dir: *keysDir}, m, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "verifying %d proofs of %s (size %d) with %s\n", len(m.Proofs), m.Circuit, m.Size, from)
	failed := 0
	for i := range m.Proofs {
		pf, pubf := filepath.Join(dir, m.Proofs[i]), filepath.Join(dir, m.Public[i])
		if err := verifyFile(vk, pf, pubf); err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %v\n", m.Proofs[i], err)
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", m.Proofs[i])
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "prooflane verify: %d of %d proofs in %s do not verify\n", failed, len(m.Proofs), dir)
		if m.VK != "" && *vkPath == "" && differentVK(vk, filepath.Join(dir, m.VK)) {
			fmt.Fprintf(stderr, "prooflane verify: note: %s is not the verifying key the prover wrote to %s: the keys were set up again since, or proved with another --keys directory; to check against the prover's key, pass --vk %s\n",
				from, filepath.Join(dir, m.VK), filepath.Join(dir, m.VK))
		}
		return errSilent
	}
	fmt.Fprintf(stdout, "all %d proofs verify\n", len(m.Proofs))
	return nil
}

// verifyingKey picks the key: --vk, else the cache's for the manifest's
// circuit and size, else the copy prove left in dir.
func verifyingKey(path string, cache keys.Cache, m manifest, dir string) (*g16.VerifyingKey, string, error) {
	if path != "" {
		vk, err := keys.ReadVK(path)
		return vk, path, err
	}
	vk, err := cache.LoadVK(m.Circuit, m.Size)
	if err == nil {
		_, _, p := cache.Paths(m.Circuit, m.Size)
		return vk, p, nil
	}
	if !errors.Is(err, keys.ErrNotCached) || m.VK == "" {
		return nil, "", err
	}
	p := filepath.Join(dir, m.VK)
	vk, err = keys.ReadVK(p)
	if err != nil {
		return nil, "", err
	}
	return vk, p + " (no cached key: the copy written by prove)", nil
}

// differentVK reports whether the key file at path exists and serializes
// to other bytes than vk (false when it cannot be read: a missing copy is
// no evidence that the keys were set up again).
func differentVK(vk *g16.VerifyingKey, path string) bool {
	want, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var got bytes.Buffer
	if _, err := vk.WriteTo(&got); err != nil {
		return false
	}
	return !bytes.Equal(got.Bytes(), want)
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

// maxProofFile bounds what verify reads of a proof or public input file:
// both are a few hundred bytes for any circuit prove makes (the public
// inputs take 32 bytes each).
const maxProofFile = 64 << 20

// readChecked reads the file at path whole, checks the lengths its
// encoding declares against its size, and only then decodes it. gnark's
// decoders allocate whatever a length prefix says before reading the
// elements: a corrupt file claiming 2^32 elements would kill the process
// with an out-of-memory error that no recover can catch.
func readChecked(path string, check func([]byte) error, read func(io.Reader) (int64, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProofFile+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
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
