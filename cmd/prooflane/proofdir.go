package main

// The proof directory: what prove writes and verify reads.
//
// prove writes a run into a temporary directory beside --out (.NAME.new
// in the same parent, so a rename is atomic), syncs every file and the
// directory, and then swaps it into place: on Linux with one
// renameat2(RENAME_EXCHANGE), so --out always holds one complete run,
// the new one or the previous one, and the previous one (now .NAME.new)
// is removed. Where the exchange is not available (other systems, some
// file systems) the previous run is renamed aside to .NAME.old and the
// new one renamed into place: a crash between those two renames leaves
// no --out and a complete .NAME.old, which the next prove into --out puts
// back before it starts. A lock on .NAME.lock (flock) refuses a second
// prove into the same --out while one runs; the recovery above runs under
// it. Files are created fresh in the new directory (never through a
// symbolic link an earlier --out held: those vanish with it), and an
// existing --out that holds anything prove did not write is refused, not
// replaced. A run that fails leaves what it wrote (its trace) in
// NAME.failed.
//
// verify trusts nothing in the directory: the manifest and each file are
// read only when they are regular files (not symbolic links) below a size
// cap, and the manifest's fields are checked before any is used.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/internal/regfile"
	pl "github.com/prooflane/prooflane/otel"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/workloads"
)

// manifest describes a directory of proofs written by prove.
type manifest struct {
	// Family is the proof family; a manifest without one is groth16's
	// (prove wrote none before the field existed). Key names the key the
	// proofs were made with.
	Family string `json:"family,omitempty"`
	Key    string `json:"key,omitempty"`
	// Curve is the keys' and proofs' curve (family.CurveName); none is
	// the default curve, BLS12-381.
	Curve string `json:"curve,omitempty"`
	// CommitmentHash is the hash the proofs' commitments were hashed
	// with (family.CommitmentHash); none is the default, RFC 9380's.
	CommitmentHash string  `json:"commitment_hash,omitempty"`
	Circuit        string  `json:"circuit"`
	Size           int     `json:"size"`
	Constraints    int     `json:"constraints"`
	Partitions     int     `json:"partitions"`
	Seed           uint64  `json:"seed"`
	Pipeline       string  `json:"pipeline"`
	PipelineFile   string  `json:"pipeline_file"`
	PipelineSHA256 string  `json:"pipeline_sha256"`
	Backend        string  `json:"backend"`
	Devices        int     `json:"devices"`
	Seconds        float64 `json:"seconds"`
	// VK is the verifying key copied next to the proofs, relative to the
	// directory: the family's Layout.VK. verify never uses it unless it is named
	// with --vk.
	VK     string   `json:"vk"`
	Proofs []string `json:"proofs"`
	Public []string `json:"public"`
	// Job is the service job the proofs came from, for a directory
	// written by await (whose Backend names the worker).
	Job string `json:"job,omitempty"`
	// CCS and Witnesses are the user's constraint system and witness
	// files a run of their own circuit proved (Circuit is then the
	// system's name, family.CompiledSystem, and Seed 0).
	CCS       string   `json:"ccs,omitempty"`
	Witnesses []string `json:"witnesses,omitempty"`
}

const (
	manifestFile = "manifest.json"
)

func proofFile(p int) string  { return fmt.Sprintf("proof-%d.bin", p) }
func publicFile(p int) string { return fmt.Sprintf("public-%d.bin", p) }

// isVKFile reports whether name is a registered family's verifying key
// file (Layout.VK).
func isVKFile(name string) bool {
	for _, fp := range provers() {
		if vk := fp.Layout().VK; vk != "" && vk == name {
			return true
		}
	}
	return false
}

// vkFamilies names the registered families whose proof directories hold a
// verifying key file.
func vkFamilies() []string {
	var names []string
	for _, fp := range provers() {
		if fp.Layout().VK != "" {
			names = append(names, fp.Name())
		}
	}
	return names
}

// runFile matches the names prove gives proof and public-input files.
var runFile = regexp.MustCompile(`^(?:proof|public)-(0|[1-9][0-9]*)\.bin$`)

// Bounds on what verify reads from a directory.
const (
	// maxManifestFile: a manifest lists two short names a partition.
	maxManifestFile = 16 << 20
	// maxProofFile: proof and public input files are a few hundred bytes
	// for any circuit prove makes (32 bytes a public input).
	maxProofFile = 64 << 20
)

// readManifest reads and checks dir's manifest and returns it with its
// proof family: a registered one (no family field: groth16, as prove
// wrote before the field existed), the circuit one of the family's (its
// name for a family without circuits), the size within its bounds, and
// the files proof-0.bin (and public-0.bin, when the family writes public
// inputs) up to partitions-1, in order, one each. It does not check the
// manifest against a key: the family's verifier does.
func readManifest(dir string) (manifest, family.Prover, error) {
	path := filepath.Join(dir, manifestFile)
	data, err := readRegular(path, maxManifestFile)
	if errors.Is(err, os.ErrNotExist) {
		return manifest{}, nil, fmt.Errorf("%s: not a directory written by prooflane prove: %w", dir, err)
	}
	if err != nil {
		return manifest{}, nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return manifest{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	fp, err := m.check()
	if err != nil {
		return manifest{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, fp, nil
}

// legacyFamily is the family of a manifest without a family field.
const legacyFamily = "groth16"

// check checks the manifest's fields on their own and returns its family.
func (m manifest) check() (family.Prover, error) {
	name := m.Family
	if name == "" {
		name = legacyFamily
	}
	f, ok := shipped.families().Lookup(name)
	fp, isProver := f.(family.Prover)
	if !ok || !isProver {
		return nil, fmt.Errorf("family %q is not one verify reads (%s)", m.Family, strings.Join(shipped.families().Names(), ", "))
	}
	if _, err := family.ParseCurve(m.Curve); err != nil {
		return nil, fmt.Errorf("curve: %w", err)
	}
	if h, err := family.ParseCommitmentHash(m.CommitmentHash); err != nil || !family.TakesCommitmentHash(fp, h) {
		return nil, fmt.Errorf("commitment_hash %q: not one the %s family's proofs take", m.CommitmentHash, fp.Name())
	}
	if err := m.checkCircuit(fp); err != nil {
		return nil, err
	}
	if m.Partitions < 1 {
		return nil, fmt.Errorf("partitions %d: want at least 1", m.Partitions)
	}
	if err := m.checkFiles(fp.Layout()); err != nil {
		return nil, err
	}
	if m.Constraints < 1 {
		return nil, fmt.Errorf("constraints %d: want at least 1", m.Constraints)
	}
	return fp, nil
}

// checkCircuit checks the circuit and size: a shipped circuit's at a
// size it takes, or a compiled system's name (family.CompiledSystem) with
// its constraint count as its size; within fp's maximum either way.
func (m manifest) checkCircuit(fp family.Prover) error {
	if family.IsCompiled(m.Circuit) {
		if m.Size != m.Constraints {
			return fmt.Errorf("size %d: a compiled constraint system's size is its constraint count, %d", m.Size, m.Constraints)
		}
	} else if _, err := workloads.System(m.curve(), m.Circuit, m.Size); err != nil {
		return err
	}
	if m.Size > fp.MaxSize() {
		return fmt.Errorf("size %d: above the %s family's limit of %d", m.Size, fp.Name(), fp.MaxSize())
	}
	return nil
}

// familyName is the manifest's family (groth16 when it names none).
func (m manifest) familyName() string {
	if m.Family == "" {
		return legacyFamily
	}
	return m.Family
}

// system is the constraint system the manifest's key is for.
func (m manifest) system() family.System {
	return family.System{Name: m.Circuit, Size: m.Size, Curve: m.curve()}
}

// curve is the manifest's curve (check refuses one not of family.Curves).
func (m manifest) curve() ecc.ID {
	c, _ := family.ParseCurve(m.Curve)
	return c
}

// hashField is the manifest's CommitmentHash of h: none for the default,
// so that a manifest is what it was before the field.
func hashField(h family.CommitmentHash) string {
	if h == family.RFC9380 {
		return ""
	}
	return string(h)
}

// curveField is the manifest's Curve of c: none for the default curve,
// so that a BLS12-381 run's manifest is what it was before the field.
func curveField(c ecc.ID) string {
	if family.CurveOf(c) == family.DefaultCurve {
		return ""
	}
	return family.CurveName(c)
}

// proofCheck checks the partitions of a proof directory (or an awaited
// job) of manifest m: each proof with the family's verifying key against
// its public inputs, and, for a run of a shipped circuit, those public
// inputs against the ones the manifest's seed gives the partition.
type proofCheck struct {
	vk family.VerifyingKey
	m  manifest
}

// newProofCheck is m's check with fp's verifying key: vkFile's when it is
// named, else the key cache's (keysDir) for m's system, whose constraint
// system must have m's constraint count.
func newProofCheck(ctx context.Context, fp family.Prover, m manifest, keysDir, vkFile string) (proofCheck, error) {
	constraints := m.Constraints
	if vkFile != "" {
		constraints = 0
	}
	vk, err := fp.VerifyingKey(ctx, family.KeyRequest{Dir: keysDir, System: m.system()}, vkFile, constraints)
	if err != nil {
		return proofCheck{}, err
	}
	if vk, err = family.VerifyingKeyWithHash(vk, family.CommitmentHash(m.CommitmentHash)); err != nil {
		return proofCheck{}, err
	}
	return proofCheck{vk: vk, m: m}, nil
}

// verify checks partition p's files.
func (c proofCheck) verify(p int, f family.Files) error {
	if p < 0 || p >= c.m.Partitions {
		return fmt.Errorf("partition %d of %d", p, c.m.Partitions)
	}
	if !family.IsCompiled(c.m.Circuit) {
		if err := workloads.CheckPublic(c.m.curve(), c.m.Circuit, c.m.Size, c.m.Seed, p, f.Public); err != nil {
			if f.PublicName != "" {
				return fmt.Errorf("%s: %w", f.PublicName, err)
			}
			return err
		}
	}
	return c.vk.Verify(f)
}

// checkFiles checks the listed files against the family's layout: the
// names prove gives them, in order, and vk only the layout's.
func (m manifest) checkFiles(layout family.Layout) error {
	nPublic := 0
	if layout.Public {
		nPublic = m.Partitions
	}
	if len(m.Proofs) != m.Partitions || len(m.Public) != nPublic {
		return fmt.Errorf("partitions is %d, but %d proofs and %d public inputs are listed (want %d and %d)", m.Partitions, len(m.Proofs), len(m.Public), m.Partitions, nPublic)
	}
	for i := range m.Partitions {
		if m.Proofs[i] != proofFile(i) {
			return fmt.Errorf("proofs[%d] is %q, want %q (prove names them proof-0.bin to proof-%d.bin, in order)", i, m.Proofs[i], proofFile(i), m.Partitions-1)
		}
		if layout.Public && m.Public[i] != publicFile(i) {
			return fmt.Errorf("public[%d] is %q, want %q (prove names them public-0.bin to public-%d.bin, in order)", i, m.Public[i], publicFile(i), m.Partitions-1)
		}
	}
	if m.VK != "" && m.VK != layout.VK {
		return fmt.Errorf("vk is %q, want %q", m.VK, layout.VK)
	}
	return nil
}

// readRegular reads the file at path when it is a regular file (a
// symbolic link is not followed, a FIFO is not waited on) of at most
// limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	f, st, err := regfile.OpenNoFollow(path)
	var pe *fs.PathError
	if errors.Is(err, regfile.ErrNotRegular) && errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w; verify reads no links or devices from a proof directory", path, pe.Err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d MiB verify reads", path, st.Size(), limit>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than the %d MiB verify reads", path, limit>>20)
	}
	return data, nil
}

// outDir is a run of prove being written: files go into a temporary
// directory beside --out, which commit swaps into place.
type outDir struct {
	final, tmp string
	unlock     func()
	done       bool
}

// openOut prepares --out for a run: it refuses a symbolic link, a file, or
// a directory holding files prove did not write (trace, when not empty, is
// the name of the trace file in it); takes the lock; recovers from a prove
// killed mid-swap; and creates the empty temporary directory.
func openOut(out, trace string, stderr io.Writer) (*outDir, error) {
	final := filepath.Clean(out)
	parent, base := filepath.Dir(final), filepath.Base(final)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return nil, fmt.Errorf("--out %q: want a directory's name (prove replaces the directory as a whole)", out)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	lock := filepath.Join(parent, "."+base+".lock")
	unlock, err := lockOut(lock)
	if err != nil {
		return nil, fmt.Errorf("--out %q: %w", out, err)
	}
	o := &outDir{final: final, tmp: filepath.Join(parent, "."+base+".new"), unlock: unlock}
	if err := o.recover(stderr); err != nil {
		unlock()
		return nil, fmt.Errorf("--out %q: %w", out, err)
	}
	if err := checkReplaceable(final, trace); err != nil {
		unlock()
		return nil, fmt.Errorf("--out %q: %w", out, err)
	}
	if err := os.Mkdir(o.tmp, 0o755); err != nil {
		unlock()
		return nil, fmt.Errorf("--out: %w", err)
	}
	return o, nil
}

// old is where the fall-back swap puts the previous run.
func (o *outDir) old() string {
	return filepath.Join(filepath.Dir(o.final), "."+filepath.Base(o.final)+".old")
}

// failed is where a failed run's files are left.
func (o *outDir) failed() string { return o.final + ".failed" }

// recover removes what a killed prove left: its temporary directory (a
// partial run, or the previous run after a swap it did not clean up), and
// the previous run set aside by a fall-back swap, which is put back when
// the crash came before the new run was in place.
func (o *outDir) recover(stderr io.Writer) error {
	if err := os.RemoveAll(o.tmp); err != nil {
		return err
	}
	if _, err := os.Lstat(o.old()); err != nil {
		return nil
	}
	if _, err := os.Lstat(o.final); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(o.old(), o.final); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "prooflane prove: put back %s, which a prove killed while replacing it had set aside as %s\n", o.final, o.old())
		return durable.SyncDir(filepath.Dir(o.final))
	}
	return os.RemoveAll(o.old())
}

// checkReplaceable refuses to replace path unless it is missing, or a
// directory holding only names prove writes (with trace, the trace file's).
func checkReplaceable(path, trace string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return errors.New("is a symbolic link: give the directory itself (prove replaces --out as a whole, and does not follow links)")
	}
	if !st.IsDir() {
		return errors.New("exists and is not a directory")
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	var other []string
	for _, e := range entries {
		name := e.Name()
		ours := name == manifestFile || isVKFile(name) || name == pl.DefaultFile || name == trace || runFile.MatchString(name)
		if !ours || e.IsDir() {
			other = append(other, name)
		}
	}
	if len(other) > 0 {
		return fmt.Errorf("holds files prove did not write (%s): prove replaces --out as a whole, so give a new directory, or move them out", strings.Join(other, " "))
	}
	return nil
}

// path returns where the run's file name goes.
func (o *outDir) path(name string) string { return filepath.Join(o.tmp, name) }

// writeFile writes the run's file name with write and syncs it.
func (o *outDir) writeFile(name string, write func(io.Writer) (int64, error)) error {
	f, err := os.OpenFile(o.path(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = durable.Write(f, func(w io.Writer) error {
		_, err := write(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// writeRun writes a run into o: the verifying key file vk (when fp's
// layout has one), partition i's proof (and public inputs, when the layout
// has them) from parts[i], and the manifest m listing them all. The
// proofs were checked before: writeRun only writes.
func writeRun(o *outDir, fp family.Prover, m *manifest, vk []byte, parts []family.Files) error {
	layout := fp.Layout()
	if layout.VK != "" {
		if err := o.writeFile(layout.VK, writeBytes(vk)); err != nil {
			return err
		}
		m.VK = layout.VK
	}
	m.Proofs, m.Public = nil, nil
	for i, f := range parts {
		if err := o.writeFile(proofFile(i), writeBytes(f.Proof)); err != nil {
			return err
		}
		m.Proofs = append(m.Proofs, proofFile(i))
		if layout.Public {
			if err := o.writeFile(publicFile(i), writeBytes(f.Public)); err != nil {
				return err
			}
			m.Public = append(m.Public, publicFile(i))
		}
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := o.writeFile(manifestFile, writeBytes(append(mb, '\n'))); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// commit syncs the run's files (the trace too) and its directory, swaps
// it into place and removes the previous run.
func (o *outDir) commit() error {
	entries, err := os.ReadDir(o.tmp)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if err := syncFile(filepath.Join(o.tmp, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := durable.SyncDir(o.tmp); err != nil {
		return err
	}
	parent := filepath.Dir(o.final)
	previous := ""
	switch _, err := os.Lstat(o.final); {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Rename(o.tmp, o.final); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		previous = o.tmp
		if err := exchange(o.tmp, o.final); err != nil {
			// No atomic exchange here.
			if err := o.swapByRenames(); err != nil {
				return err
			}
			previous = o.old()
		}
	}
	o.done = true
	if err := durable.SyncDir(parent); err != nil {
		return err
	}
	if previous != "" {
		if err := os.RemoveAll(previous); err != nil {
			return fmt.Errorf("removing the previous run: %w", err)
		}
	}
	return os.RemoveAll(o.failed())
}

// swapByRenames puts the new run in place where exchange is not
// available: it sets the previous run aside as .NAME.old, then renames the
// new one in. A crash between the two leaves no --out and a complete
// .NAME.old, which recover puts back.
func (o *outDir) swapByRenames() error {
	if err := os.Rename(o.final, o.old()); err != nil {
		return err
	}
	return os.Rename(o.tmp, o.final)
}

// close releases the lock. A run that was not committed leaves what it
// wrote (its trace) in NAME.failed, replacing an earlier one, and says so.
func (o *outDir) close(stderr io.Writer) {
	defer o.unlock()
	if o.done {
		return
	}
	entries, err := os.ReadDir(o.tmp)
	if err != nil || len(entries) == 0 {
		os.RemoveAll(o.tmp)
		return
	}
	if err := os.RemoveAll(o.failed()); err == nil && os.Rename(o.tmp, o.failed()) == nil {
		fmt.Fprintf(stderr, "prooflane prove: the failed run's files (its trace) are in %s; %s is unchanged\n", o.failed(), o.final)
		return
	}
	os.RemoveAll(o.tmp)
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
