package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("verify", command{summary: "verify every proof in a directory written by prove", run: runVerify})
}

func runVerify(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("verify", "DIR", stderr)
	keysDir := fs.String("keys", family.DefaultKeyDir(), "key cache directory holding the verifying key")
	var curve curveFlag
	fs.Var(&curve, "curve", "the curve the proofs must be of ("+curveNames()+"; default: the manifest's)")
	vkPath := fs.String("vk", "", "verifying key file (default: the key cache's for the manifest's circuit and size; DIR's own vk.bin is used only when named here, as --vk DIR/vk.bin)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "want exactly one proof directory, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	m, fp, err := readManifest(dir)
	if err != nil {
		return err
	}
	if flagGiven(fs, "curve") && curve.id != m.curve() {
		return fmt.Errorf("%s holds %s proofs (%s), not %s ones (--curve %s)", dir, family.CurveName(m.curve()), filepath.Join(dir, manifestFile), family.CurveName(curve.id), family.CurveName(curve.id))
	}
	layout := fp.Layout()
	if *vkPath != "" && layout.VK == "" {
		return usageErrorf(fs, "--vk is for proof directories with a verifying key file (%s); %s holds %s proofs, checked against the key cache (--keys)", strings.Join(vkFamilies(), ", "), dir, fp.Name())
	}
	dirVK := ""
	if layout.VK != "" {
		dirVK = filepath.Join(dir, layout.VK)
	}
	c, err := newProofCheck(context.Background(), fp, m, *keysDir, *vkPath)
	if errors.Is(err, family.ErrNotCached) && dirVK != "" {
		return fmt.Errorf("%w (the directory's own key only if you trust it: --vk %s)", err, dirVK)
	}
	if err != nil && !errors.Is(err, family.ErrNotCached) {
		return fmt.Errorf("%s: %w", filepath.Join(dir, manifestFile), err)
	}
	if err != nil {
		return err
	}
	failed := verifyAll(c, fp, dir, m, verifyingWith(m, c, *vkPath, dir), stdout)
	if failed > 0 {
		fmt.Fprintf(stderr, "prooflane verify: %d of %d proofs in %s do not verify\n", failed, m.Partitions, dir)
		if name := family.KeyName(m.system(), c.vk.Bytes()); *vkPath == "" && m.Key != "" && m.Key != name {
			fmt.Fprintf(stderr, "prooflane verify: the proofs were made with another key: %s names key %s, %s is key %s\n",
				filepath.Join(dir, manifestFile), m.Key, c.vk.From(), name)
		}
		if *vkPath == "" && dirVK != "" && differentVK(c.vk.Bytes(), dirVK) {
			fmt.Fprintf(stderr, "prooflane verify: note: %s is not the verifying key the prover wrote to %s: the keys were set up again since, or proved with another --keys directory; if you trust the directory, check against the prover's key with --vk %s\n",
				c.vk.From(), dirVK, dirVK)
		}
		return errSilent
	}
	fmt.Fprintf(stdout, "all %d proofs verify\n", m.Partitions)
	return nil
}

// verifyingWith is verify's first line: how many proofs of what, checked
// with which key.
func verifyingWith(m manifest, c proofCheck, vkPath, dir string) string {
	from := c.vk.From()
	if vkPath != "" {
		absDir, err1 := filepath.Abs(dir)
		absPath, err2 := filepath.Abs(vkPath)
		if rel, rerr := filepath.Rel(absDir, absPath); err1 == nil && err2 == nil && rerr == nil && filepath.IsLocal(rel) {
			from += " (the directory's own key, named with --vk)"
		}
	}
	if family.IsCompiled(m.Circuit) {
		return fmt.Sprintf("verifying %d %s proofs of constraint system %s (%d constraints) with %s\n", m.Partitions, m.familyName(), m.Circuit, m.Constraints, from)
	}
	return fmt.Sprintf("verifying %d proofs of %s (size %d, seed %d) with %s\n", m.Partitions, m.Circuit, m.Size, m.Seed, from)
}

// verifyAll checks each partition's files with c, printing an ok or FAIL
// line for each after the first line, and returns how many failed.
func verifyAll(c proofCheck, fp family.Prover, dir string, m manifest, first string, stdout io.Writer) int {
	fmt.Fprint(stdout, first)
	failed := 0
	for i := range m.Partitions {
		err := verifyPartition(c, fp.Layout(), dir, m, i)
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %v\n", m.Proofs[i], err)
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", m.Proofs[i])
	}
	return failed
}

// verifyPartition reads partition i's files (regular files under the size
// cap) and checks them with c.
func verifyPartition(c proofCheck, layout family.Layout, dir string, m manifest, i int) error {
	f := family.Files{ProofName: filepath.Join(dir, m.Proofs[i])}
	var err error
	if f.Proof, err = readRegular(f.ProofName, maxProofFile); err != nil {
		return err
	}
	if layout.Public {
		f.PublicName = filepath.Join(dir, m.Public[i])
		if f.Public, err = readRegular(f.PublicName, maxProofFile); err != nil {
			return err
		}
	}
	return c.verify(i, f)
}

// differentVK reports whether the key file at path is a regular file
// whose bytes differ from vk (false when it cannot be read: a missing
// copy is no evidence that the keys were set up again).
func differentVK(vk []byte, path string) bool {
	got, err := readRegular(path, maxProofFile)
	if err != nil {
		return false
	}
	return !bytes.Equal(got, vk)
}
