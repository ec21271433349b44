package vcommit_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/pipelines"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/builtin"
	"github.com/prooflane/prooflane/stages/family"
	"github.com/prooflane/prooflane/stages/vcommit"
)

// prove runs the shipped vcommit pipeline on the CPU backend and returns
// each partition's commitment.
func prove(t *testing.T, job *vcommit.Job) map[int][]byte {
	t.Helper()
	file, src, err := pipelines.Open("vcommit")
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Parse(file, src, builtin.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	be, err := cpu.New(2)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	e, err := runtime.NewEngine(p, runtime.Options{Devices: 2, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), runtime.Job{ID: "vc", Partitions: job.Partitions, Payload: job})
	if cerr := e.Close(context.Background()); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]byte{}
	for _, r := range res.Partitions {
		c, ok := r.Outputs["commit"].(interface{ RawBytes() [96]byte })
		if !ok {
			t.Fatalf("partition %d: output %T", r.Index, r.Outputs["commit"])
		}
		b := c.RawBytes()
		out[r.Index] = b[:]
	}
	return out
}

func TestCommitmentsMadeOnTheCPUBackendVerifyAndTamperedOnesDoNot(t *testing.T) {
	key, err := vcommit.NewKey(64)
	if err != nil {
		t.Fatal(err)
	}
	job, err := vcommit.NewJob(key, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	proofs := prove(t, job)
	if len(proofs) != 3 {
		t.Fatalf("%d proofs, want 3", len(proofs))
	}
	for i, b := range proofs {
		pt, err := vcommit.DecodeProof(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Verify(i, pt); err != nil {
			t.Errorf("partition %d: %v", i, err)
		}
		// Another partition's commitment is not this one's.
		if err := job.Verify((i+1)%3, pt); err == nil {
			t.Errorf("partition %d's commitment verifies as partition %d's", i, (i+1)%3)
		}
	}
	// A flipped byte is either no point or the wrong one.
	bad := bytes.Clone(proofs[0])
	bad[len(bad)-1] ^= 1
	if pt, err := vcommit.DecodeProof(bad); err == nil {
		if err := job.Verify(0, pt); err == nil {
			t.Error("a tampered commitment verifies")
		}
	}
	if _, err := vcommit.DecodeProof(proofs[0][:95]); err == nil {
		t.Error("a short proof decodes")
	}
	// Another key's job does not accept these commitments.
	other, _ := vcommit.NewKey(64)
	ojob, _ := vcommit.NewJob(other, 3, 7)
	pt, _ := vcommit.DecodeProof(proofs[0])
	if err := ojob.Verify(0, pt); err == nil {
		t.Error("a commitment verifies under another key")
	}
}

func TestKeyCacheRoundTripsAndRefusesCorruptFiles(t *testing.T) {
	c := vcommit.Cache{Dir: t.TempDir()}
	if _, err := c.Load(16); !errors.Is(err, vcommit.ErrNotCached) {
		t.Fatalf("empty cache: %v", err)
	}
	var log bytes.Buffer
	k, err := c.LoadOrSetup(16, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "vcommit setup") {
		t.Errorf("setup not logged: %q", log.String())
	}
	again, err := c.Load(16)
	if err != nil {
		t.Fatal(err)
	}
	if again.Name != k.Name || len(again.Bases) != 16 {
		t.Fatalf("loaded %s (%d bases), saved %s", again.Name, len(again.Bases), k.Name)
	}
	data, err := os.ReadFile(c.Path(16))
	if err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func([]byte) []byte{
		"flipped":  func(b []byte) []byte { b[40] ^= 1; return b },
		"short":    func(b []byte) []byte { return b[:len(b)-1] },
		"huge":     func(b []byte) []byte { b[8] = 0xff; return b },
		"no magic": func(b []byte) []byte { b[0] = 'x'; return b },
	} {
		if err := os.WriteFile(c.Path(16), mut(bytes.Clone(data)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := c.Load(16)
		if err == nil || !strings.Contains(err.Error(), c.Path(16)) {
			t.Errorf("%s key file: error %v, want one naming the file", name, err)
		}
	}
	if _, err := c.Load(vcommit.MaxSize + 1); err == nil || !strings.Contains(err.Error(), "MaxSize") {
		t.Errorf("size above MaxSize: %v", err)
	}
}

type host struct{ be device.Backend }

func (h host) Backend() device.Backend { return h.be }
func (h host) Devices() int            { return 1 }

// The commit stage refuses to start without a backend and to run on a
// payload that is not a *Job, with errors naming the stage and partition.
func TestCommitStageRefusesNoBackendAndAForeignPayload(t *testing.T) {
	s, err := vcommit.Factories()[0].New(nil)
	if err != nil {
		t.Fatal(err)
	}
	st := s.(interface {
		Start(context.Context, stages.Host) error
	})
	if err := st.Start(context.Background(), host{}); err == nil || !strings.Contains(err.Error(), "no device backend") {
		t.Errorf("start without a backend: %v", err)
	}
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if err := st.Start(context.Background(), host{be}); err != nil {
		t.Fatal(err)
	}
	in := stages.NewInput(nil)
	in.Stage, in.Partition, in.Job = "commit", 2, "not a job"
	if _, err := s.Run(context.Background(), in); err == nil || !strings.Contains(err.Error(), `stage "commit" partition 2: job payload is string, want *vcommit.Job`) {
		t.Errorf("run on a string payload: %v", err)
	}
}

// Through stages/family: a key set up into a cache loads again under the
// same name; its job's files verify, another partition's do not; a
// circuit, a size out of range and Force are refused; an empty cache is
// family.ErrNotCached.
func TestTheFamilyInterfaceMakesAndChecksProofFiles(t *testing.T) {
	ctx, f, dir := context.Background(), vcommit.Family{}, t.TempDir()
	if _, err := f.Load(ctx, family.KeyRequest{Dir: dir, Size: 8}); !errors.Is(err, family.ErrNotCached) {
		t.Fatalf("empty cache: %v, want family.ErrNotCached", err)
	}
	k, err := f.Setup(ctx, family.KeyRequest{Dir: dir, Size: 8}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.Load(ctx, family.KeyRequest{Dir: dir, Size: 8})
	if err != nil || again.Name() != k.Name() || k.Constraints() != 8 || k.Circuit() != "vcommit" {
		t.Fatalf("loaded %v (%v), set up %s", again, err, k.Name())
	}
	j, err := k.NewJob(2, 5)
	if err != nil {
		t.Fatal(err)
	}
	vj := j.Payload().(*vcommit.Job)
	c0, err := vcommit.Commit(vj.Key, vj.Scalars(0))
	if err != nil {
		t.Fatal(err)
	}
	files, err := j.Files(0, &c0)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Verify(0, files); err != nil {
		t.Errorf("partition 0's own files: %v", err)
	}
	if err := j.Verify(1, files); err == nil {
		t.Error("partition 0's proof verified as partition 1's")
	}
	v, err := f.Verifier(ctx, family.VerifyRequest{KeyRequest: family.KeyRequest{Dir: dir, Size: 8}, Key: k.Name(), Partitions: 2, Seed: 5})
	if err != nil || v.Verify(0, files) != nil {
		t.Errorf("verifier: %v", err)
	}
	if _, err := f.Verifier(ctx, family.VerifyRequest{KeyRequest: family.KeyRequest{Dir: dir, Size: 8}, Manifest: "m.json", Key: "vcommit/other", Partitions: 2}); err == nil ||
		!strings.Contains(err.Error(), `m.json: key is "vcommit/other"`) {
		t.Errorf("another key's manifest: %v", err)
	}
	if _, err := f.Setup(ctx, family.KeyRequest{Dir: dir, Size: 8, Force: true}, io.Discard); !errors.Is(err, family.ErrNoForce) {
		t.Errorf("Force over a cached key: %v, want family.ErrNoForce", err)
	}
	if k, err := f.Setup(ctx, family.KeyRequest{Dir: dir, Size: 4, Force: true}, io.Discard); err != nil || k.Constraints() != 4 {
		t.Errorf("Force with no key cached: %v", err)
	}
	for _, req := range []family.KeyRequest{{Dir: dir, Size: 8, Circuit: "chain"}, {Dir: dir, Size: vcommit.MaxSize + 1}} {
		if _, err := f.Setup(ctx, req, io.Discard); err == nil {
			t.Errorf("%+v: set up", req)
		}
	}
}
