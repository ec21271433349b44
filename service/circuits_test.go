package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/consensys/gnark/backend/witness"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prooflane/prooflane/admission"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// A user's circuit, defined in the test, compiled and serialized with
// gnark, with keys from gnark's own setup, is added once and proved by
// its id: each job carries its own witnesses, gnark's verifier accepts
// every proof against the test's verifying key and the public witness
// the test recomputes, and the worker keeps the circuit's files under its
// id in its key cache directory. Without keys of its own, the worker sets
// up the circuit's keys once (a second job makes none) and the proofs
// verify against them.
func TestAnAddedCircuitIsProvedWithItsOwnWitnesses(t *testing.T) {
	for _, system := range []string{"groth16", "plonk"} {
		t.Run(system, func(t *testing.T) {
			h := newHarness(t, "")
			h.start(WorkerConfig{Name: "w1"})
			u := newUserCircuit(t, system, &userCubic{})
			added, err := h.add(u, true)
			if err != nil {
				t.Fatal(err)
			}
			c := added.Circuit
			if !strings.HasPrefix(c.CircuitId, "circuit-") || c.Family != system || !c.UserKeys || c.PublicInputs != 2 || c.SecretInputs != 1 {
				t.Fatalf("added: %+v", c)
			}
			var ws []*pb.Witness
			var pubs []witness.Witness
			for i := range int64(3) {
				full, pub := cubicWitness(t, 2+i, 10*i-3)
				ws = append(ws, &pb.Witness{Source: &pb.Witness_Data{Data: full}})
				pubs = append(pubs, pub)
			}
			id := h.submit(&pb.JobSpec{CircuitId: c.CircuitId, Witnesses: ws}, 0)
			res, err := h.await(id)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Proofs) != 3 || res.Constraints != c.Constraints || res.Status.Spec.GetCircuitId() != c.CircuitId {
				t.Fatalf("result: %d proofs, constraints %d, spec %v", len(res.Proofs), res.Constraints, res.Status.Spec)
			}
			for _, p := range res.Proofs {
				if err := checkPublic(p, pubs[p.Partition]); err != nil {
					t.Error(err)
				}
				if err := gnarkVerify(system, p.Proof, u.vkey, pubs[p.Partition]); err != nil {
					t.Errorf("partition %d: gnark's verifier: %v", p.Partition, err)
				}
			}
			if files, _ := filepath.Glob(filepath.Join(h.keys, c.CircuitId, "ccs.*")); len(files) != 1 {
				t.Errorf("the worker's key cache holds %v of the circuit, want its constraint system under its id", files)
			}
		})
	}
}

// Without keys of its own, an added circuit's keys are set up by a
// worker on first use, once, in its key cache; the proofs verify against
// them (the family's verifier, with the cache's key: what await --keys
// does) and gnark's verifier, via the Checker.
func TestAnAddedCircuitWithoutKeysHasThemSetUpOnce(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	u := newUserCircuit(t, "plonk", &userCubic{})
	added, err := h.add(u, false)
	if err != nil {
		t.Fatal(err)
	}
	c := added.Circuit
	if c.UserKeys {
		t.Fatalf("added without keys: %+v", c)
	}
	check := &Checker{KeysDir: h.keys, Circuit: c}
	for i := range int64(2) {
		full, _ := cubicWitness(t, 5+i, 1)
		spec := &pb.JobSpec{CircuitId: c.CircuitId, Witnesses: []*pb.Witness{{Source: &pb.Witness_Data{Data: full}}}}
		res, err := h.await(h.submit(spec, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := check.Check(spec, res.Proofs); err != nil {
			t.Fatal(err)
		}
		// Another job's witness is not this job's.
		other, _ := cubicWitness(t, 9, 9)
		if err := check.Check(&pb.JobSpec{CircuitId: c.CircuitId, Witnesses: []*pb.Witness{{Source: &pb.Witness_Data{Data: other}}}}, res.Proofs); err == nil {
			t.Error("the checker took another witness's public inputs")
		}
	}
	keys, _ := filepath.Glob(filepath.Join(h.keys, "plonk-"+c.CircuitId+"-*.pk"))
	if len(keys) != 1 {
		t.Errorf("key cache: %v, want one plonk key of %s", keys, c.CircuitId)
	}
}

// Adding the same circuit again gives the same id and stores nothing
// again; adding it with other keys than it has is refused, naming the
// remedy.
func TestAddingACircuitTwiceGivesTheSameID(t *testing.T) {
	h := newHarness(t, "")
	u := newUserCircuit(t, "groth16", &userCubic{})
	first, err := h.add(u, true)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.add(u, true)
	if err != nil {
		t.Fatal(err)
	}
	if again.Circuit.CircuitId != first.Circuit.CircuitId || first.Duplicate || !again.Duplicate {
		t.Errorf("first %+v, again %+v: want one id, the second a duplicate", first, again)
	}
	_, err = h.add(u, false)
	if connect.CodeOf(err) != connect.CodeAlreadyExists || !strings.Contains(err.Error(), "prooflane circuits rm "+first.Circuit.CircuitId) {
		t.Errorf("added again without its keys: %v, want already_exists naming circuits rm", err)
	}
	list, err := h.client.ListCircuits(context.Background(), connect.NewRequest(&pb.ListCircuitsRequest{}))
	if err != nil || len(list.Msg.Circuits) != 1 {
		t.Fatalf("list: %v, %v", list, err)
	}
	if n := h.objectCount(h.srv.st.circuitFiles); n != 3 {
		t.Errorf("%d circuit files stored, want 3 (system and two keys)", n)
	}
}

// objectCount counts an object store's objects.
func (h *harness) objectCount(o jetstream.ObjectStore) int {
	h.t.Helper()
	list, err := o.List(context.Background())
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return len(list)
}

// nothingStored fails the test if the service holds a circuit, a circuit
// file, a witness or a job.
func (h *harness) nothingStored(what string) {
	h.t.Helper()
	if keys, _ := h.srv.st.circuitKeys(context.Background()); len(keys) != 0 {
		h.t.Errorf("%s: circuits stored: %v", what, keys)
	}
	if n := h.objectCount(h.srv.st.circuitFiles); n != 0 {
		h.t.Errorf("%s: %d circuit files stored", what, n)
	}
	if n := h.objectCount(h.srv.st.objects); n != 0 {
		h.t.Errorf("%s: %d objects stored", what, n)
	}
	list, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{}))
	if err != nil {
		h.t.Fatal(err)
	}
	if len(list.Msg.Jobs) != 0 {
		h.t.Errorf("%s: jobs queued: %v", what, list.Msg.Jobs)
	}
}

// A constraint system that is not one (truncated, bytes flipped, another
// family's) is refused by the family's reader before it is registered,
// and nothing is stored; so are keys of another circuit, a stream of
// fewer bytes than its header declares, and more.
func TestAddCircuitRefusesWhatIsNotACircuitAndStoresNothing(t *testing.T) {
	h := newHarness(t, "")
	u := newUserCircuit(t, "groth16", &userCubic{})
	data, err := os.ReadFile(u.ccs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.ccs")
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.ccs")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("\xff", len(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	other := newUserCircuit(t, "groth16", &otherCircuit{})
	plonkCCS := newUserCircuit(t, "plonk", &userCubic{}).ccs
	for _, c := range []struct {
		what string
		f    CircuitFiles
		want string
	}{
		{"truncated", CircuitFiles{CCS: truncated}, "add circuit: constraint system: "},
		{"garbage", CircuitFiles{CCS: garbage}, "add circuit: constraint system: "},
		{"a plonk system as groth16's", CircuitFiles{CCS: plonkCCS}, "add circuit: constraint system: "},
		{"another circuit's keys", CircuitFiles{CCS: u.ccs, PK: other.pk, VK: other.vk}, "add circuit: keys: "},
	} {
		_, err := AddCircuit(context.Background(), h.client, c.f)
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid_argument with %q", c.what, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), os.TempDir()) {
			t.Errorf("%s: the error names the server's temporary file: %v", c.what, err)
		}
		h.nothingStored(c.what)
	}
	for _, c := range []struct {
		what  string
		extra int
		want  string
	}{
		{"fewer bytes", -10, "the stream ended after"},
		{"more bytes", 10, "more than the"},
	} {
		stream := h.client.AddCircuit(context.Background())
		hdr := &pb.CircuitHeader{CcsBytes: uint64(len(data) - c.extra)}
		_ = stream.Send(&pb.AddCircuitRequest{Part: &pb.AddCircuitRequest_Header{Header: hdr}})
		_ = stream.Send(&pb.AddCircuitRequest{Part: &pb.AddCircuitRequest_Chunk{Chunk: data}})
		_, err := stream.CloseAndReceive()
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid_argument with %q", c.what, err, c.want)
		}
		h.nothingStored(c.what)
	}
}

// An AddCircuit above the documented file size, or whose check would
// need more memory than the service host has, is refused from its header
// alone, before any of its bytes are read.
func TestAddCircuitIsRefusedFromItsHeaderAboveTheLimits(t *testing.T) {
	t.Setenv(admission.HostEnv, "1GiB")
	h := newHarness(t, "")
	for _, c := range []struct {
		h    *pb.CircuitHeader
		code connect.Code
		want string
	}{
		{&pb.CircuitHeader{CcsBytes: MaxCircuitBytes + 1}, connect.CodeInvalidArgument, "ccs_bytes: 68719476737, above the limit of 68719476736"},
		{&pb.CircuitHeader{CcsBytes: 1 << 30}, connect.CodeResourceExhausted, "add circuit: checking a constraint system of 1.0 GiB needs about 8.1 GiB of host memory, more than the 1.0 GiB of the service host's PROOFLANE_HOST_MEMORY=1GiB"},
		{&pb.CircuitHeader{CcsBytes: 10, PkBytes: 10}, connect.CodeInvalidArgument, "a proving key and a verifying key go together"},
		{&pb.CircuitHeader{CcsBytes: 10, Pipeline: "nope"}, connect.CodeInvalidArgument, "pipeline: "},
	} {
		stream := h.client.AddCircuit(context.Background())
		_ = stream.Send(&pb.AddCircuitRequest{Part: &pb.AddCircuitRequest_Header{Header: c.h}})
		_, err := stream.CloseAndReceive()
		if connect.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("header %v: %v, want %s with %q", c.h, err, c.code, c.want)
		}
	}
	h.nothingStored("refused headers")
}

// An id that names no circuit is NotFound, naming it, for every request
// that takes one.
func TestAnUnknownCircuitIDIsNotFound(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	const id = "circuit-0123456789abcdef"
	full, _ := cubicWitness(t, 1, 1)
	ctx := context.Background()
	_, err := h.client.Submit(ctx, connect.NewRequest(&pb.SubmitRequest{Spec: &pb.JobSpec{CircuitId: id, Witnesses: []*pb.Witness{{Source: &pb.Witness_Data{Data: full}}}}}))
	for what, err := range map[string]error{
		"submit": err,
		"preload": func() error {
			_, err := h.client.Preload(ctx, connect.NewRequest(&pb.KeyRequest{CircuitId: id}))
			return err
		}(),
		"remove": func() error {
			_, err := h.client.RemoveCircuit(ctx, connect.NewRequest(&pb.RemoveCircuitRequest{CircuitId: id}))
			return err
		}(),
		"upload": func() error {
			path := filepath.Join(t.TempDir(), "w")
			if err := os.WriteFile(path, full, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := UploadWitness(ctx, h.client, id, path)
			return err
		}(),
	} {
		if connect.CodeOf(err) != connect.CodeNotFound || !strings.Contains(err.Error(), `circuit "`+id+`": no such circuit`) {
			t.Errorf("%s: %v, want not_found naming %s", what, err, id)
		}
	}
	h.nothingStored("unknown ids")
}

// A witness that is not one of the circuit's (truncated, another
// circuit's, a public witness) is refused naming its index, and nothing
// is queued or stored.
func TestABadWitnessIsRefusedNamingItsIndex(t *testing.T) {
	h := newHarness(t, "")
	u := newUserCircuit(t, "groth16", &userCubic{})
	added, err := h.add(u, true)
	if err != nil {
		t.Fatal(err)
	}
	good, pub := cubicWitness(t, 3, 4)
	pubBytes, _ := pub.MarshalBinary()
	for _, c := range []struct {
		what string
		bad  []byte
		want string
	}{
		{"truncated", good[:len(good)-5], "spec: witnesses[1]: 103 bytes, want 108 for 3 inputs: truncated or padded"},
		{"public only", pubBytes, "spec: witnesses[1]: 2 public and 0 secret inputs, but the constraint system has 2 and 1"},
		{"empty", nil, "spec: witnesses[1]: 0 bytes, shorter than a witness's header"},
	} {
		ws := []*pb.Witness{{Source: &pb.Witness_Data{Data: good}}, {Source: &pb.Witness_Data{Data: c.bad}}}
		_, err := h.client.Submit(context.Background(), connect.NewRequest(&pb.SubmitRequest{Spec: &pb.JobSpec{CircuitId: added.Circuit.CircuitId, Witnesses: ws}}))
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid_argument with %q", c.what, err, c.want)
		}
	}
	list, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{}))
	if err != nil || len(list.Msg.Jobs) != 0 {
		t.Errorf("jobs after refused submits: %v, %v", list.Msg.GetJobs(), err)
	}
	if n := h.objectCount(h.srv.st.objects); n != 0 {
		t.Errorf("%d witnesses stored for refused submits", n)
	}
}

// Witnesses beyond what a request carries are uploaded first and named
// in the job; the worker fetches them from the object store. An upload
// whose bytes are not the header's SHA-256 is refused.
func TestLargeWitnessesAreUploadedFirst(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	u := newUserCircuit(t, "groth16", &userCubic{})
	added, err := h.add(u, true)
	if err != nil {
		t.Fatal(err)
	}
	old := inlineWitnessBudget
	inlineWitnessBudget = 200 // one cubic witness (108 bytes) inline, the others uploaded
	defer func() { inlineWitnessBudget = old }()
	dir := t.TempDir()
	var paths []string
	uploaded := map[string][]byte{}
	for i := range 3 {
		full, _ := cubicWitness(t, int64(7+i), 2)
		paths = append(paths, filepath.Join(dir, "w"+string(rune('0'+i))))
		if err := os.WriteFile(paths[i], full, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Witnesses(context.Background(), h.client, added.Circuit.CircuitId, paths)
	if err != nil {
		t.Fatal(err)
	}
	if ws[0].GetData() == nil || ws[1].GetUpload() == "" || ws[2].GetUpload() == "" {
		t.Fatalf("witnesses: %v, want the first inline and the others uploaded", ws)
	}
	for i, w := range ws {
		if up := w.GetUpload(); up != "" {
			uploaded[up], _ = os.ReadFile(paths[i])
		}
	}
	spec := &pb.JobSpec{CircuitId: added.Circuit.CircuitId, Witnesses: ws}
	res, err := h.await(h.submit(spec, 0))
	if err != nil {
		t.Fatal(err)
	}
	check := &Checker{Circuit: added.Circuit, VKFile: u.vk, Uploaded: uploaded}
	if err := check.Check(spec, res.Proofs); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Proofs {
		_, pub := cubicWitness(t, int64(7+p.Partition), 2)
		if err := gnarkVerify("groth16", p.Proof, u.vkey, pub); err != nil {
			t.Errorf("partition %d: gnark's verifier: %v", p.Partition, err)
		}
	}
	stream := h.client.UploadWitness(context.Background())
	hdr := &pb.WitnessHeader{CircuitId: added.Circuit.CircuitId, Bytes: 4, Sha256: strings.Repeat("0", 64)}
	_ = stream.Send(&pb.UploadWitnessRequest{Part: &pb.UploadWitnessRequest_Header{Header: hdr}})
	_ = stream.Send(&pb.UploadWitnessRequest{Part: &pb.UploadWitnessRequest_Chunk{Chunk: []byte("abcd")}})
	if _, err := stream.CloseAndReceive(); connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "the bytes' SHA-256 is") {
		t.Errorf("an upload of another digest: %v", err)
	}
}

// keys preload --circuit-id has every worker set up (or load) an added
// circuit's key, which it then lists under the circuit's id; evict drops
// it; circuits rm removes the circuit and its files, and a job of it is
// then NotFound.
func TestPreloadEvictAndRemoveAnAddedCircuit(t *testing.T) {
	h := newHarness(t, "")
	h.start(WorkerConfig{Name: "w1"})
	u := newUserCircuit(t, "groth16", &userCubic{})
	added, err := h.add(u, false)
	if err != nil {
		t.Fatal(err)
	}
	id := added.Circuit.CircuitId
	ctx := context.Background()
	waitFor(t, "the worker's report", func() bool {
		list, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
		return err == nil && len(list.Msg.Workers) == 1
	})
	resp, err := h.client.Preload(ctx, connect.NewRequest(&pb.KeyRequest{CircuitId: id}))
	if err != nil || len(resp.Msg.Workers) != 1 || len(resp.Msg.Errors) != 0 {
		t.Fatalf("preload: %v, %v", resp, err)
	}
	list, err := h.client.List(ctx, connect.NewRequest(&pb.ListRequest{}))
	if err != nil || len(list.Msg.Workers) != 1 || len(list.Msg.Workers[0].Keys) != 1 || list.Msg.Workers[0].Keys[0].Circuit != id {
		t.Fatalf("keys after preload: %v, %v", list.Msg.GetWorkers(), err)
	}
	if resp, err := h.client.Evict(ctx, connect.NewRequest(&pb.KeyRequest{CircuitId: id})); err != nil || len(resp.Msg.Errors) != 0 {
		t.Errorf("evict: %v, %v", resp, err)
	}
	if _, err := h.client.RemoveCircuit(ctx, connect.NewRequest(&pb.RemoveCircuitRequest{CircuitId: id})); err != nil {
		t.Fatal(err)
	}
	h.nothingStored("a removed circuit")
	full, _ := cubicWitness(t, 1, 1)
	_, err = h.client.Submit(ctx, connect.NewRequest(&pb.SubmitRequest{Spec: &pb.JobSpec{CircuitId: id, Witnesses: []*pb.Witness{{Source: &pb.Witness_Data{Data: full}}}}}))
	if connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("a job of a removed circuit: %v, want not_found", err)
	}
}

// failFirstGet is an object store whose first GetBytes fails, as a read
// does whose chunks went while it read (the object stored again).
type failFirstGet struct {
	jetstream.ObjectStore
	failed bool
}

func (f *failFirstGet) GetBytes(ctx context.Context, name string, opts ...jetstream.GetObjectOpt) ([]byte, error) {
	if !f.failed {
		f.failed = true
		return nil, errors.New("read pipe: i/o timeout")
	}
	return f.ObjectStore.GetBytes(ctx, name, opts...)
}

// A witness stored again while it is fresh is left as it is (jobs reading
// it keep their chunks); a read that fails is tried once more; a witness
// that is not there is named so.
func TestWitnessesAreStoredOnceAndReadAgainOnAFailure(t *testing.T) {
	h := newHarness(t, "")
	st := h.srv.st
	ctx := context.Background()
	full, _ := cubicWitness(t, 2, 3)
	name, err := st.putWitness(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.objects.GetInfo(ctx, witnessPrefix+name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.putWitness(ctx, full); err != nil {
		t.Fatal(err)
	}
	if again, err := st.objects.GetInfo(ctx, witnessPrefix+name); err != nil || again.NUID != first.NUID {
		t.Errorf("a fresh witness was stored again: %v, %v", again, err)
	}
	objects := st.objects
	st.objects = &failFirstGet{ObjectStore: objects}
	defer func() { st.objects = objects }()
	if b, err := st.Witness(ctx, name); err != nil || string(b) != string(full) {
		t.Errorf("a read after a failed one: %v", err)
	}
	missing := strings.Repeat("ab", 32)
	if _, err := st.Witness(ctx, missing); !errors.Is(err, errNoWitness) {
		t.Errorf("a missing witness: %v", err)
	}
}

// The key of a circuit with keys of its own is estimated without a
// setup (no worker sets one up); one whose keys the workers set up, with
// it until the key cache holds them.
func TestACircuitsOwnKeysAreEstimatedWithoutASetup(t *testing.T) {
	spec := Spec{Pipeline: "groth16", Circuit: "circuit-0123456789abcdef", CircuitID: "circuit-0123456789abcdef", Size: 1 << 20, Partitions: 1}
	dir := t.TempDir()
	setup, err := EstimateKeyHost(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	spec.Keys = "pk.a,vk.b"
	own, err := EstimateKeyHost(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if own >= setup {
		t.Errorf("own keys estimated at %d bytes, with a setup %d: want less", own, setup)
	}
}

// What a killed server left in its upload directory is removed when a
// server starts on it; anything else there is left.
func TestNewServerRemovesUploadsAKilledServerLeft(t *testing.T) {
	h := newHarness(t, "")
	dir := t.TempDir()
	left := filepath.Join(dir, "upload-123")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "circuit.ccs"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "mine")
	if err := os.WriteFile(other, []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	nc, err := Connect("", h.ns, h.secret, "second-server")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := NewServer(context.Background(), nc, ServerConfig{Secret: h.secret, Queue: QueueConfig{Memory: true}, UploadDir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("%s left: %v", left, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s removed: %v", other, err)
	}
}
