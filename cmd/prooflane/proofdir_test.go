package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot returns the contents of dir's files by name, nil when dir is
// missing.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// copyDir copies the regular files of dir into a fresh directory.
func copyDir(t testing.TB, dir string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.Mkdir(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// editManifest sets field to value in dir's manifest.
func editManifest(t testing.TB, dir, field string, value any) {
	t.Helper()
	path := filepath.Join(dir, manifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m[field] = value
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// verify trusts nothing in the directory: each of the issue's
// reproductions is refused with an error naming the field or file. Before,
// each of them passed or read what the manifest named.
func TestVerifyRefusesWhatTheDirectoryClaims(t *testing.T) {
	good, keysDir, _ := proveSmall(t, "chain")
	for _, c := range []struct {
		name   string
		mutate func(t *testing.T, dir string)
		stderr string // the error, after "prooflane verify: " and DIR/manifest.json
		stdout string // a FAIL line, after "FAIL "
	}{
		{
			name:   "circuit with a path",
			mutate: func(t *testing.T, dir string) { editManifest(t, dir, "circuit", "../../x") },
			stderr: `unknown circuit "../../x"; have [chain emulated mimc sha256]`,
		},
		{
			name: "a file outside the directory",
			mutate: func(t *testing.T, dir string) {
				editManifest(t, dir, "proofs", []string{"../../../../etc/passwd", "proof-1.bin", "proof-2.bin"})
			},
			stderr: `proofs[0] is "../../../../etc/passwd", want "proof-0.bin" (prove names them proof-0.bin to proof-2.bin, in order)`,
		},
		{
			name: "a duplicate entry",
			mutate: func(t *testing.T, dir string) {
				editManifest(t, dir, "public", []string{"public-0.bin", "public-0.bin", "public-2.bin"})
			},
			stderr: `public[1] is "public-0.bin", want "public-1.bin" (prove names them public-0.bin to public-2.bin, in order)`,
		},
		{
			name:   "a false partition count",
			mutate: func(t *testing.T, dir string) { editManifest(t, dir, "partitions", 5) },
			stderr: `partitions is 5, but 3 proofs and 3 public inputs are listed`,
		},
		{
			name:   "a false constraint count",
			mutate: func(t *testing.T, dir string) { editManifest(t, dir, "constraints", 999) },
			stderr: `constraints is 999, but circuit "chain" size 256 has 256 (the key cache's constraint system)`,
		},
		{
			name:   "a false seed",
			mutate: func(t *testing.T, dir string) { editManifest(t, dir, "seed", 7) },
			stdout: `proof-1.bin: DIR/public-1.bin: not the public inputs of circuit "chain" size 256 seed 7 partition 1`,
		},
		{
			name: "a manifest linked to /dev/zero",
			mutate: func(t *testing.T, dir string) {
				os.Remove(filepath.Join(dir, manifestFile))
				if err := os.Symlink("/dev/zero", filepath.Join(dir, manifestFile)); err != nil {
					t.Fatal(err)
				}
			},
			stderr: `: a symbolic link, not a regular file; verify reads no links or devices from a proof directory`,
		},
		{
			name: "a manifest over the cap",
			mutate: func(t *testing.T, dir string) {
				if err := os.Truncate(filepath.Join(dir, manifestFile), maxManifestFile+1); err != nil {
					t.Fatal(err)
				}
			},
			stderr: `: 16777217 bytes, more than the 16 MiB verify reads`,
		},
		{
			name: "a proof linked elsewhere",
			mutate: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "proof-2.bin")
				elsewhere := filepath.Join(t.TempDir(), "proof.bin")
				if err := os.Rename(p, elsewhere); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(elsewhere, p); err != nil {
					t.Fatal(err)
				}
			},
			stdout: `proof-2.bin: DIR/proof-2.bin: a symbolic link, not a regular file`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, good)
			c.mutate(t, dir)
			rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, dir)
			if rc != 1 {
				t.Errorf("exit %d, want 1:\n%s%s", rc, stdout, stderr)
			}
			if c.stderr != "" {
				want := "prooflane verify: " + filepath.Join(dir, manifestFile)
				if !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, c.stderr) || stdout != "" {
					t.Errorf("stdout %q, stderr %q; want %q ... %q", stdout, stderr, want, c.stderr)
				}
			}
			if c.stdout != "" {
				want := "FAIL " + strings.ReplaceAll(c.stdout, "DIR", dir)
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
	// The intact directory verifies.
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, good); rc != 0 {
		t.Errorf("intact: exit %d\n%s%s", rc, stdout, stderr)
	}
}

// With no cached key for the manifest's circuit and size, verify does not
// fall back to the directory's own vk.bin (a directory could bring its own
// setup): it says so, and uses that key only when it is named with --vk,
// saying whose it is.
func TestVerifyUsesTheDirectorysKeyOnlyWhenNamed(t *testing.T) {
	out, _, _ := proveSmall(t, "chain")
	empty := t.TempDir()
	rc, stdout, stderr := prooflane(t, "verify", "--keys", empty, out)
	want := `prooflane verify: no verifying key for circuit "chain" size 256 in the key cache ` + empty +
		`: give --keys the cache the proofs were made with, or --vk FILE (the directory's own key only if you trust it: --vk ` + filepath.Join(out, "vk.bin") + ")\n"
	if rc != 1 || stderr != want || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", rc, stdout, stderr, want)
	}
	rc, stdout, stderr = prooflane(t, "verify", "--keys", empty, "--vk", filepath.Join(out, "vk.bin"), out)
	if rc != 0 || !strings.Contains(stdout, "with "+filepath.Join(out, "vk.bin")+" (the directory's own key, named with --vk)") {
		t.Errorf("--vk DIR/vk.bin: exit %d\n%s%s", rc, stdout, stderr)
	}
}

// A symbolic link planted in an earlier run's directory is not written
// through: its target is untouched, and the new run's file is a regular
// file of its own.
func TestProveDoesNotWriteThroughALinkInOut(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	target := writeFile(t, t.TempDir(), "precious", "keep me")
	p := filepath.Join(out, "proof-0.bin")
	os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain",
		"--size", "2^8", "--partitions", "2", "--out", out, "--keys", keysDir, "--progress", "off")
	if rc != 0 {
		t.Fatalf("prove exited %d: %s%s", rc, stdout, stderr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep me" {
		t.Errorf("the link's target: %q, %v", b, err)
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		t.Errorf("%s: %v, %v; want the new run's regular file", p, st.Mode(), err)
	}
	// --out itself a link: refused, not followed.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	rc, _, stderr = prooflane(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--size", "2^8",
		"--out", link, "--keys", keysDir, "--progress", "off")
	if want := `--out "` + link + `": is a symbolic link`; rc != 1 || !strings.Contains(stderr, want) {
		t.Errorf("--out a link: exit %d, stderr %q, want %q", rc, stderr, want)
	}
}

// A --trace-file inside --out goes with the run (it would vanish with the
// old directory otherwise), and does not make the next run refuse --out.
func TestProveKeepsATraceFileNamedInsideOut(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	for range 2 {
		rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain",
			"--size", "2^8", "--partitions", "1", "--out", out, "--keys", keysDir, "--progress", "off",
			"--trace-file", filepath.Join(out, "mine.jsonl"))
		if rc != 0 {
			t.Fatalf("prove exited %d: %s%s", rc, stdout, stderr)
		}
		if got, want := dirNames(t, out), "manifest.json mine.jsonl proof-0.bin public-0.bin vk.bin"; got != want {
			t.Errorf("--out holds %s, want %s", got, want)
		}
	}
}

// Where the atomic exchange is not available, the swap is two renames; a
// prove killed between them leaves no --out and the previous run set
// aside whole, and the next prove into --out puts it back first.
func TestTheFallBackSwapAndACrashInItsWindowAreRecovered(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	run := func(body string) func(w io.Writer) (int64, error) {
		return func(w io.Writer) (int64, error) {
			n, err := io.WriteString(w, body)
			return int64(n), err
		}
	}
	var log strings.Builder
	o, err := openOut(out, "", &log)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.writeFile(manifestFile, run("first")); err != nil {
		t.Fatal(err)
	}
	if err := o.commit(); err != nil {
		t.Fatal(err)
	}
	o.close(&log)

	// The second run is killed between the two renames.
	o, err = openOut(out, "", &log)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.writeFile(manifestFile, run("second")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(o.final, o.old()); err != nil {
		t.Fatal(err)
	}
	o.unlock() // the kernel releases a killed process's lock
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("--out after the first rename: %v", err)
	}

	o, err = openOut(out, "", &log)
	if err != nil {
		t.Fatal(err)
	}
	want := "prooflane prove: put back " + out + ", which a prove killed while replacing it had set aside as " + filepath.Join(parent, ".out.old") + "\n"
	if log.String() != want {
		t.Errorf("said %q, want %q", log.String(), want)
	}
	if got := snapshot(t, out); got[manifestFile] != "first" || len(got) != 1 {
		t.Errorf("--out after the recovery: %v, want the first run", got)
	}
	// The fall-back swap itself, to its end.
	if err := o.writeFile(manifestFile, run("third")); err != nil {
		t.Fatal(err)
	}
	if err := o.swapByRenames(); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, out); got[manifestFile] != "third" {
		t.Errorf("--out after the swap: %v, want the third run", got)
	}
	o.done = true
	o.close(&log)
	// What the swap set aside goes at the next run's start.
	o, err = openOut(out, "", &log)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close(&log)
	if got := dirNames(t, parent); got != ".out.lock .out.new out" {
		t.Errorf("%s holds %s, want the lock, the new run's directory and out", parent, got)
	}
}
