package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

// awaitFlags are the flags of await and submit --await: where the proofs
// go and the verifying key they are checked against before they are
// written.
type awaitFlags struct {
	out, keys, vk string
	trustService  bool
}

func (a *awaitFlags) register(fs *flag.FlagSet, outHelp string) {
	fs.StringVar(&a.out, "out", "", outHelp)
	fs.StringVar(&a.keys, "keys", family.DefaultKeyDir(), "key cache holding the job's key, whose verifying key the proofs are checked against before they are written")
	fs.StringVar(&a.vk, "vk", "", "verifying key file to check the proofs against instead of the key cache's (the key's vk.bin)")
	fs.BoolVar(&a.trustService, "trust-service-vk", false, "when neither --vk nor the key cache has the job's key, check the proofs against the verifying key the service sends (which a service that forged the result could have made: the output says so)")
}

// awaited is a done job's result as the client checks it.
type awaited struct {
	id     string
	status *pb.JobStatus
	resp   *pb.AwaitResponse
}

// writeAwaited checks a done job's proofs against a verifying key of the
// client's (--vk, else the key cache's; the service's only with
// --trust-service-vk, said on stderr) and writes them as prove does:
// proofs, public inputs, the verifying key file they were checked with
// and the manifest, into --out, atomically. A result that does not verify
// writes nothing. It returns what the proofs were checked with.
func writeAwaited(a awaitFlags, job awaited, stderr io.Writer) (string, error) {
	fp, m, err := awaitedManifest(job)
	if err != nil {
		return "", err
	}
	layout := fp.Layout()
	if a.vk != "" && layout.VK == "" {
		return "", fmt.Errorf("--vk: %s proofs have no verifying key file; they are checked against the key cache (--keys)", fp.Name())
	}
	v, from, err := awaitVerifier(a, fp, m, job)
	if err != nil {
		return "", err
	}
	parts, err := checkAwaited(v, from, m, job)
	if err != nil {
		return "", err
	}
	if from == serviceVK {
		fmt.Fprintf(stderr, "prooflane await: job %s: checked against the verifying key the service sent (key %s), not one of yours: a service that forged the result could have sent its own; check with --vk or --keys\n", job.id, m.Key)
	}
	od, err := openOut(a.out, "", stderr)
	if err != nil {
		return "", err
	}
	defer od.close(stderr)
	if err := writeRun(od, fp, &m, v.vk.Bytes(), parts); err != nil {
		return "", err
	}
	if err := od.commit(); err != nil {
		return "", fmt.Errorf("--out %q: %w", a.out, err)
	}
	return from, nil
}

// serviceVK is what proofs checked against the service's verifying key
// are said to be checked with.
const serviceVK = "the verifying key the service sent"

// awaitedManifest is the manifest of a done job, from its status and the
// key facts the service sent, with its family.
func awaitedManifest(job awaited) (family.Prover, manifest, error) {
	st, spec := job.status, job.status.GetSpec()
	f, ok := shipped.families().Lookup(st.Family)
	fp, isProver := f.(family.Prover)
	if !ok || !isProver {
		return nil, manifest{}, fmt.Errorf("job %q: family %q is not one this client knows", job.id, st.Family)
	}
	curve, err := family.ParseCurve(spec.GetCurve())
	if err != nil {
		return nil, manifest{}, fmt.Errorf("job %q: %w", job.id, err)
	}
	hash, err := family.ParseCommitmentHash(spec.GetCommitmentHash())
	if err != nil {
		return nil, manifest{}, fmt.Errorf("job %q: %w", job.id, err)
	}
	m := manifest{
		Family: fp.Name(), Key: job.resp.Key, Curve: curveField(curve), CommitmentHash: hashField(hash), Circuit: spec.GetCircuit(), Size: int(spec.GetSize()),
		Constraints: int(job.resp.Constraints), Partitions: int(st.Partitions), Seed: spec.GetSeed(),
		Pipeline: spec.GetPipeline(), Backend: "service worker " + st.Worker, Job: job.id,
	}
	if m.Pipeline == "" {
		m.Pipeline = "pipeline_yaml"
	}
	if st.StartedUnixMs > 0 && st.FinishedUnixMs > st.StartedUnixMs {
		m.Seconds = float64(st.FinishedUnixMs-st.StartedUnixMs) / 1000
	}
	if m.Partitions < 1 || m.Partitions > maxAwaitPartitions {
		return nil, manifest{}, fmt.Errorf("job %q: %d partitions, want 1 to %d", job.id, m.Partitions, maxAwaitPartitions)
	}
	return fp, m, nil
}

// maxAwaitPartitions bounds an awaited job's partitions (the service's
// own limit).
const maxAwaitPartitions = 1024

// awaitVerifier returns the checker of the job's proofs and what it
// checks with: --vk's key, else the key cache's, else (with
// --trust-service-vk, when the cache has no key of the job) the service's.
func awaitVerifier(a awaitFlags, fp family.Prover, m manifest, job awaited) (proofCheck, string, error) {
	ctx := context.Background()
	c, err := newProofCheck(ctx, fp, m, a.keys, a.vk)
	if err == nil {
		return c, c.vk.From(), nil
	}
	if a.vk != "" || !errors.Is(err, family.ErrNotCached) {
		return proofCheck{}, "", fmt.Errorf("job %q: %w", job.id, err)
	}
	if !a.trustService || len(job.resp.VerifyingKey) == 0 {
		return proofCheck{}, "", fmt.Errorf("job %q: no verifying key of yours to check the proofs against: %w; or --trust-service-vk to check against the key the service sends", job.id, err)
	}
	// The family reads a key file, with its own bounds.
	tmp, err := os.CreateTemp("", "prooflane-service-vk-*")
	if err != nil {
		return proofCheck{}, "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(job.resp.VerifyingKey)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return proofCheck{}, "", err
	}
	if c, err = newProofCheck(ctx, fp, m, a.keys, tmp.Name()); err != nil {
		return proofCheck{}, "", fmt.Errorf("job %q: the service's verifying key: %w", job.id, err)
	}
	return c, serviceVK, nil
}

// checkAwaited checks that the result holds each of the job's partitions
// once and that every proof verifies with v (from names its key), and returns their files in
// partition order.
func checkAwaited(c proofCheck, from string, m manifest, job awaited) ([]family.Files, error) {
	if len(job.resp.Proofs) != m.Partitions {
		return nil, fmt.Errorf("job %q: %d proofs, want %d (one a partition); nothing written", job.id, len(job.resp.Proofs), m.Partitions)
	}
	parts := make([]family.Files, m.Partitions)
	seen := make([]bool, m.Partitions)
	for _, p := range job.resp.Proofs {
		i := int(p.Partition)
		if i >= m.Partitions || seen[i] {
			return nil, fmt.Errorf("job %q: partition %d: out of the job's %d or sent twice; nothing written", job.id, i, m.Partitions)
		}
		seen[i] = true
		f := family.Files{Proof: p.Proof, Public: p.PublicWitness,
			ProofName: fmt.Sprintf("job %s partition %d's proof", job.id, i), PublicName: fmt.Sprintf("job %s partition %d's public inputs", job.id, i)}
		if err := c.verify(i, f); err != nil {
			return nil, fmt.Errorf("job %q: partition %d does not verify with %s: %w; nothing written", job.id, i, from, err)
		}
		parts[i] = f
	}
	return parts, nil
}
