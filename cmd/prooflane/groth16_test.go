package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	devcuda "github.com/prooflane/prooflane/device/cuda"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/family"
)

func TestParseSizeAcceptsNumbersAndPowersOfTwo(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		err  bool
	}{
		{"4096", 4096, false},
		{"2^12", 4096, false},
		{" 2^0 ", 1, false},
		{"1000", 1000, false},
		{"3^4", 0, true},
		{"2^31", 0, true},
		{"2^28", 1 << 28, false},
		{"2^29", 0, true},
		{"268435457", 0, true},
		{"99999999999999999999", 0, true},
		{"-99999999999999999999", 0, true},
		{"0", 0, true},
		{"-5", 0, true},
		{"big", 0, true},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	// An exponent too large for an int is above the limit, not "not a number".
	if _, err := parseSize("2^99999999999999999999"); err == nil || !strings.Contains(err.Error(), "above 2^28, the limit on sizes") {
		t.Errorf("parseSize of a huge exponent: %v", err)
	}
	if _, err := parseSize("2^-99999999999999999999"); err == nil || !strings.Contains(err.Error(), "want a number") {
		t.Errorf("parseSize of a huge negative exponent: %v", err)
	}
}

// proveSmall proves a small job into a fresh directory with a fresh key
// cache and returns both.
func proveSmall(t testing.TB, circuit string) (out, keysDir string, stderr string) {
	t.Helper()
	out, keysDir = filepath.Join(t.TempDir(), "out"), t.TempDir()
	rc, stdout, stderr := prooflane(t, "prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", circuit,
		"--size", "2^8", "--partitions", "3", "--out", out, "--keys", keysDir, "--progress", "off")
	if rc != 0 {
		t.Fatalf("prove exited %d: %s%s", rc, stdout, stderr)
	}
	summary := regexp.MustCompile(`^3 proofs of ` + circuit + ` \(size 256, \d+ constraints\) with pipeline "groth16" in [0-9.]+s: [0-9.]+ proofs/min; written to .*\n$`)
	if !summary.MatchString(stdout) {
		t.Errorf("prove printed %q, want one summary line", stdout)
	}
	return out, keysDir, stderr
}

func TestProveCreatesKeysOnFirstUseAndVerifyAcceptsEveryProof(t *testing.T) {
	out, keysDir, stderr := proveSmall(t, "sha256")
	if !strings.Contains(stderr, `no keys cached for circuit "sha256" size 256`) {
		t.Errorf("prove did not say it ran the setup: %q", stderr)
	}
	for _, f := range []string{"proof-0.bin", "proof-2.bin", "public-1.bin", "manifest.json", "vk.bin", "trace.jsonl"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range []string{"sha256-256.r1cs", "sha256-256.pk", "sha256-256.vk"} {
		if _, err := os.Stat(filepath.Join(keysDir, f)); err != nil {
			t.Errorf("key cache: %v", err)
		}
	}
	rc, stdout, errOut := prooflane(t, "verify", "--keys", keysDir, out)
	if rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
		t.Fatalf("verify exited %d: %s%s", rc, stdout, errOut)
	}
	// A second prove reuses the keys silently.
	rc, _, errOut = prooflane(t, "prove", "--pipeline", "../../pipelines/groth16-dual-worker.yaml", "--circuit", "sha256",
		"--size", "256", "--partitions", "2", "--out", out, "--keys", keysDir, "--progress", "off")
	if rc != 0 || strings.Contains(errOut, "no keys cached") {
		t.Errorf("second prove exited %d, stderr %q", rc, errOut)
	}
}

// gnark's decoders allocate what a file's length prefix says before
// reading: a corrupt public input or proof file must be a FAIL line naming
// the file, not a fatal out-of-memory error that kills verify.
func TestVerifySaysWhichFileIsCorruptInsteadOfRunningOutOfMemory(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	// A public witness declaring 2^32-1 inputs (128 GiB) in 44 bytes.
	pub, err := os.ReadFile(filepath.Join(out, "public-1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	copy(pub[8:12], []byte{0xff, 0xff, 0xff, 0xff})
	writeFile(t, out, "public-1.bin", string(pub))
	// A proof declaring 2^31 commitments.
	proof, err := os.ReadFile(filepath.Join(out, "proof-2.bin"))
	if err != nil {
		t.Fatal(err)
	}
	copy(proof[192:196], []byte{0x80, 0, 0, 0})
	writeFile(t, out, "proof-2.bin", string(proof))
	rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out)
	if rc != 1 {
		t.Fatalf("verify exited %d, want 1: %s%s", rc, stdout, stderr)
	}
	for _, want := range []string{
		"ok   proof-0.bin",
		"FAIL proof-1.bin: " + filepath.Join(out, "public-1.bin") + ": not the public inputs of circuit \"chain\" size 256 seed 1 partition 1",
		"FAIL proof-2.bin: read " + filepath.Join(out, "proof-2.bin") + ": corrupt: declares 2147483648 commitments",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "2 of 3 proofs") {
		t.Errorf("stderr %q", stderr)
	}
	// Without the prover's copy of the key there is nothing to say about
	// it: no note claiming the keys were set up again.
	if err := os.Remove(filepath.Join(out, "vk.bin")); err != nil {
		t.Fatal(err)
	}
	if rc, _, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || strings.Contains(stderr, "note:") {
		t.Errorf("verify without vk.bin: exit %d, stderr %q; want exit 1 and no note about another key", rc, stderr)
	}
}

func TestVerifyFailsOnATamperedProof(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	// Partition 1's proof in partition 0's place: a valid proof, of another statement.
	b, err := os.ReadFile(filepath.Join(out, "proof-1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "proof-0.bin"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out)
	if rc == 0 {
		t.Fatalf("verify accepted a tampered proof: %s", stdout)
	}
	if !strings.Contains(stdout, "FAIL proof-0.bin") || !strings.Contains(stdout, "ok   proof-1.bin") {
		t.Errorf("verify output %q does not single out proof-0.bin", stdout)
	}
	if !strings.Contains(stderr, "1 of 3 proofs") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestProveNamesMissingAndCorruptKeyFiles(t *testing.T) {
	_, keysDir, _ := proveSmall(t, "mimc")
	pk := filepath.Join(keysDir, "mimc-256.pk")
	b, err := os.ReadFile(pk)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "mimc", "--size", "256",
		"--partitions", "1", "--out", t.TempDir(), "--keys", keysDir, "--progress", "off"}

	if err := os.WriteFile(pk, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rc, _, stderr := prooflane(t, args...)
	if rc == 0 || !strings.Contains(stderr, `key file "`+pk+`" is corrupt`) {
		t.Errorf("truncated pk: exit %d, stderr %q", rc, stderr)
	}

	if err := os.Remove(pk); err != nil {
		t.Fatal(err)
	}
	rc, _, stderr = prooflane(t, args...)
	if rc == 0 || !strings.Contains(stderr, `key file "`+pk+`": not cached`) {
		t.Errorf("missing pk: exit %d, stderr %q", rc, stderr)
	}
}

func TestSetupCachesKeysOnce(t *testing.T) {
	keysDir := t.TempDir()
	rc, stdout, stderr := prooflane(t, "setup", "--circuit", "chain", "--size", "2^8", "--keys", keysDir)
	if rc != 0 || !strings.Contains(stdout, `circuit "chain" size 256: 256 constraints`) {
		t.Fatalf("setup exited %d: %s%s", rc, stdout, stderr)
	}
	rc, stdout, _ = prooflane(t, "setup", "--circuit", "chain", "--size", "256", "--keys", keysDir)
	if rc != 0 || !strings.Contains(stdout, "already cached") {
		t.Errorf("second setup exited %d: %s", rc, stdout)
	}
	rc, _, stderr = prooflane(t, "setup", "--circuit", "chian", "--keys", keysDir)
	if rc == 0 || !strings.Contains(stderr, `did you mean "chain"?`) {
		t.Errorf("misspelt circuit: exit %d, stderr %q", rc, stderr)
	}
}

// A setup after the proving key was cut short or removed, and setup
// --force over whole keys, make the keys for the cached .r1cs without
// compiling (the log says so); a .r1cs with a flipped byte is compiled
// again and replaced. Every time, prove's proofs verify (the epilogue's
// gnark verifier, then verify's).
func TestSetupReusesAWholeCompiledCircuitAndRecompilesACorruptOne(t *testing.T) {
	keysDir := t.TempDir()
	r1cs, pk := filepath.Join(keysDir, "chain-256.r1cs"), filepath.Join(keysDir, "chain-256.pk")
	setup := func(args ...string) string {
		t.Helper()
		rc, stdout, stderr := prooflane(t, append([]string{"setup", "--circuit", "chain", "--size", "2^8", "--keys", keysDir}, args...)...)
		if rc != 0 || !strings.Contains(stdout, `circuit "chain" size 256: 256 constraints, setup in `) {
			t.Fatalf("setup %v exited %d: %s%s", args, rc, stdout, stderr)
		}
		return stderr
	}
	proveAndVerify := func(what string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		if rc, stdout, stderr := prooflane(t, "prove", "--circuit", "chain", "--size", "2^8", "--partitions", "2",
			"--out", out, "--keys", keysDir, "--progress", "off"); rc != 0 {
			t.Fatalf("%s: prove exited %d: %s%s", what, rc, stdout, stderr)
		}
		if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 2 proofs verify") {
			t.Fatalf("%s: verify exited %d: %s%s", what, rc, stdout, stderr)
		}
	}
	skipped := "using the compiled circuit in " + r1cs + " (256 constraints); compile skipped\n"
	if stderr := setup(); strings.Contains(stderr, "compiled circuit") {
		t.Fatalf("the first setup said %q", stderr)
	}

	b, err := os.ReadFile(pk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pk, b[:len(b)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	if stderr := setup(); !strings.Contains(stderr, `key file "`+pk+`" is corrupt`) || !strings.Contains(stderr, skipped) {
		t.Errorf("setup after the proving key was cut short: stderr %q, want it named and %q", stderr, skipped)
	}
	proveAndVerify("pk cut short")

	if err := os.Remove(pk); err != nil {
		t.Fatal(err)
	}
	if stderr := setup(); !strings.Contains(stderr, skipped) {
		t.Errorf("setup after the proving key was removed: stderr %q, want %q", stderr, skipped)
	}
	if stderr := setup("--force"); !strings.Contains(stderr, skipped) {
		t.Errorf("setup --force: stderr %q, want %q", stderr, skipped)
	}
	proveAndVerify("--force")

	b, err = os.ReadFile(r1cs)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(r1cs, b, 0o644); err != nil {
		t.Fatal(err)
	}
	why := "not using the compiled circuit in " + r1cs + `, compiling it again: key file "` + r1cs + `" is corrupt: checksum mismatch`
	if stderr := setup(); !strings.Contains(stderr, why) || strings.Contains(stderr, "compile skipped") {
		t.Errorf("setup over a corrupt r1cs: stderr %q, want %q", stderr, why)
	}
	proveAndVerify("r1cs replaced")
}

func TestProveBackendCUDAWithoutSupportIsAClearErrorAndAutoFallsBack(t *testing.T) {
	if be, err := devcuda.New(devcuda.Options{}); err == nil {
		be.Close()
		t.Skip("a CUDA device is present")
	}
	keysDir := t.TempDir()
	args := func(backend string) []string {
		return []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain", "--size", "2^8",
			"--partitions", "1", "--out", t.TempDir(), "--keys", keysDir, "--progress", "off", "--backend", backend}
	}
	// cuda first, on the empty key cache: the error comes before a setup
	// that can take minutes at real sizes.
	if rc, _, stderr := prooflane(t, args("cuda")...); rc == 0 || !strings.Contains(stderr, "cuda backend") || strings.Contains(stderr, "running setup") {
		t.Errorf("--backend cuda: exit %d, stderr %q; want the cuda error before any setup", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, args("auto")...); rc != 0 || !strings.Contains(stderr, "using the cpu backend") {
		t.Errorf("--backend auto: exit %d, stderr %q", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, args("tpu")...); rc == 0 || !strings.Contains(stderr, `--backend "tpu"`) {
		t.Errorf("--backend tpu: exit %d, stderr %q", rc, stderr)
	}
	// bench: the same checks, and its own name in the fall-back message
	// (it used to fall back to the CPU for any unknown backend).
	bench := func(backend string) []string {
		return []string{"bench", "--circuit", "chain", "--size", "2^8", "--partitions", "1", "--jobs", "1", "--inflight", "1",
			"--keys", keysDir, "--backend", backend, "../../pipelines/groth16.yaml"}
	}
	if rc, _, stderr := prooflane(t, bench("tpu")...); rc != 1 || !strings.Contains(stderr, `prooflane bench: --backend "tpu": want cpu, cuda or auto`) {
		t.Errorf("bench --backend tpu: exit %d, stderr %q", rc, stderr)
	}
	if rc, _, stderr := prooflane(t, bench("auto")...); rc != 0 || !strings.Contains(stderr, "prooflane bench: cuda backend") || !strings.Contains(stderr, "using the cpu backend") {
		t.Errorf("bench --backend auto: exit %d, stderr %q", rc, stderr)
	}
}

func TestVerifyWithKeysSetUpAgainSaysWhichKeyTheProverUsed(t *testing.T) {
	out, _, _ := proveSmall(t, "chain")
	otherKeys := t.TempDir() // a second setup: same circuit and size, other randomness
	if rc, _, stderr := prooflane(t, "setup", "--circuit", "chain", "--size", "2^8", "--keys", otherKeys); rc != 0 {
		t.Fatalf("setup: %s", stderr)
	}
	rc, _, stderr := prooflane(t, "verify", "--keys", otherKeys, out)
	if rc == 0 {
		t.Fatal("proofs verified against another setup's key")
	}
	want := "is not the verifying key the prover wrote to " + filepath.Join(out, "vk.bin")
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "--vk "+filepath.Join(out, "vk.bin")) {
		t.Errorf("stderr lacks the hint %q:\n%s", want, stderr)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--vk", filepath.Join(out, "vk.bin"), out); rc != 0 {
		t.Errorf("with the prover's key: exit %d\n%s%s", rc, stdout, stderr)
	}
}

// A pipeline that makes no proof (sim stages here) is refused before the
// key setup and the job run, which at production sizes take minutes, not
// after them.
func TestProveAndBenchRefuseAPipelineThatMakesNoProofBeforeAnyWork(t *testing.T) {
	keysDir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	want := `pipeline "sim-groth16" makes no proof: its stage types (sim.device, sim.sleep) belong to no proof family (groth16, plonk); use a pipeline of a proof family, such as the embedded groth16, groth16-dual-worker, groth16-single-lock, groth16-two-lock, plonk, plonk-single-lock`
	for _, args := range [][]string{
		{"prove", "--pipeline", "../../pipelines/sim-groth16.yaml", "--size", "2^7", "--keys", keysDir, "--out", out},
		{"bench", "--size", "2^7", "--keys", keysDir, "../../pipelines/groth16.yaml", "../../pipelines/sim-groth16.yaml"},
	} {
		rc, stdout, stderr := prooflane(t, args...)
		if rc != 1 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q, want exit 1 and %q", args[0], rc, stderr, want)
		}
		if stdout != "" || strings.Contains(stderr, "setup") {
			t.Errorf("%s: did work before refusing: stdout %q, stderr %q", args[0], stdout, stderr)
		}
	}
	if files, _ := os.ReadDir(keysDir); len(files) != 0 {
		t.Errorf("key setup ran: %d files in the key cache", len(files))
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("prove created --out")
	}
}

// A bad --out or --progress is reported before the key setup (minutes at
// production sizes), not after it.
func TestProveChecksOutAndProgressBeforeTheKeySetup(t *testing.T) {
	keysDir := t.TempDir()
	notDir := writeFile(t, t.TempDir(), "file", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", filepath.Join(notDir, "out")}, "--out: mkdir " + notDir + ": not a directory"},
		{[]string{"--out", filepath.Join(t.TempDir(), "out"), "--progress", "maybe"}, `--progress "maybe": want auto, on or off`},
	} {
		args := append([]string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--size", "2^7", "--keys", keysDir}, c.args...)
		rc, _, stderr := prooflane(t, args...)
		if rc != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "setup") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q before any setup", c.args, rc, stderr, c.want)
		}
	}
	if files, _ := os.ReadDir(keysDir); len(files) != 0 {
		t.Errorf("the key setup ran: %d files in the cache", len(files))
	}
}

// A second prove into the same directory with fewer partitions replaces
// the first run as a whole: none of its extra proofs stay beside the new
// run, and verify checks all of it. A directory holding files prove did
// not write is refused before any work, not replaced.
func TestProveReplacesAnEarlierRunWholeAndRefusesADirectoryWithOtherFiles(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	args := []string{"prove", "--pipeline", "../../pipelines/groth16.yaml", "--circuit", "chain",
		"--size", "2^8", "--partitions", "1", "--out", out, "--keys", keysDir, "--progress", "off"}
	rc, stdout, stderr := prooflane(t, args...)
	if rc != 0 {
		t.Fatalf("prove exited %d: %s%s", rc, stdout, stderr)
	}
	if got, want := dirNames(t, out), "manifest.json proof-0.bin public-0.bin trace.jsonl vk.bin"; got != want {
		t.Errorf("--out holds %s, want %s", got, want)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 1 proofs verify") {
		t.Errorf("verify: exit %d\n%s%s", rc, stdout, stderr)
	}
	writeFile(t, out, "notes.txt", "mine")
	rc, stdout, stderr = prooflane(t, args...)
	want := `--out "` + out + `": holds files prove did not write (notes.txt): prove replaces --out as a whole, so give a new directory, or move them out`
	if rc != 1 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", rc, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Errorf("the user's file: %v", err)
	}
}

// dirNames lists the names in dir, sorted, space separated.
func dirNames(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// A proof directory written before manifests named their family and key
// (no "family", no "key") is groth16's and still verifies; one naming
// another family's layout is refused.
func TestOldGroth16ManifestsWithoutAFamilyVerify(t *testing.T) {
	out, keysDir, _ := proveSmall(t, "chain")
	path := filepath.Join(out, manifestFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`(?m)^  "(family|key)": "[^"]*",\n`).ReplaceAllString(string(orig), "")
	if old == string(orig) || strings.Contains(old, `"family"`) || strings.Contains(old, `"key"`) {
		t.Fatalf("manifest has no family and key lines to remove:\n%s", orig)
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, stdout, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 0 || !strings.Contains(stdout, "all 3 proofs verify") {
		t.Fatalf("verify of an old manifest: exit %d\n%s%s", rc, stdout, stderr)
	}
	other := strings.Replace(string(orig), `"family": "groth16"`, `"family": "plonk"`, 1)
	if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, _, stderr := prooflane(t, "verify", "--keys", keysDir, out); rc != 1 || !strings.Contains(stderr, "plonk-chain-256.pk") {
		t.Errorf("groth16 files under the plonk family: exit %d, %s", rc, stderr)
	}
}

// prove on a device turns Groth16's precomputed tables off for its one
// job (family.OneJober) and says so, unless the user set tables; not on
// the CPU backend, not for a job of 64 partitions or more, and not for
// PLONK, which has no such params.
func TestProveTurnsTheTablesOffForOneJob(t *testing.T) {
	p, fp := shippedProver(t, "groth16")
	set, note := oneJob(fp, p, map[string]string{"synth_workers": "2"}, true)
	if set["tables"] != "off" || set["synth_workers"] != "2" || !strings.Contains(note, "--set tables=off for one job") {
		t.Errorf("on a device: set %v, note %q", set, note)
	}
	for what, c := range map[string]struct {
		set      map[string]string
		onDevice bool
	}{
		"tables set by the user": {map[string]string{"tables": "auto"}, true},
		"the CPU backend":        {nil, false},
	} {
		if set, note := oneJob(fp, p, c.set, c.onDevice); note != "" || set["tables"] != c.set["tables"] {
			t.Errorf("%s: set %v, note %q", what, set, note)
		}
	}
	off, err := loadPipeline("groth16", set)
	if err != nil {
		t.Fatal(err)
	}
	if off.Params["tables"] != "off" {
		t.Errorf("groth16 with %v: tables %q", set, off.Params["tables"])
	}
	big, err := loadPipeline("groth16", map[string]string{"partitions": "64"})
	if err != nil {
		t.Fatal(err)
	}
	if set, note := oneJob(fp, big, nil, true); note != "" || set["tables"] != "" {
		t.Errorf("a job of 64 partitions, which pays its tables back: set %v, note %q", set, note)
	}
	pp, ppf := shippedProver(t, "plonk")
	if _, note := oneJob(ppf, pp, nil, true); note != "" {
		t.Errorf("plonk: %q", note)
	}
}

// shippedProver loads the shipped pipeline name and its family.
func shippedProver(t *testing.T, name string) (*runtime.Pipeline, family.Prover) {
	t.Helper()
	p, err := loadPipeline(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := proofFamily(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, pp.Family
}
