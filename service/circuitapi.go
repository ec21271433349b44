package service

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/consensys/gnark-crypto/ecc"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prooflane/prooflane/admission"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

// The API of added circuits: AddCircuit and UploadWitness receive files
// in chunks onto the server's disk (ServerConfig.UploadDir), check them,
// and only then stream them into the object store; ListCircuits and
// RemoveCircuit; and the check of a Submit's witnesses against its
// circuit.

// Decoding a constraint system to check it is the server's largest
// allocation: gnark's decoder allocates 3.4 to 6.6 times a file's size
// and keeps 1.8 to 3.7 times (the built-in circuits at 2^16 constraints,
// both families), counted as decodePerByte; a user's proving key is read
// whole, counted twice; decodeBase besides. An AddCircuit whose estimate
// is above the host's memory (admission.Host) is refused before its
// files are read, and the server checks one upload at a time (receiving
// up to maxUploads at once onto its disk).
const (
	decodePerByte = 8
	decodeBase    = 64 << 20
)

// decodeEstimate is the host memory of checking an AddCircuit of h.
func decodeEstimate(h *pb.CircuitHeader) uint64 {
	return decodeBase + decodePerByte*h.CcsBytes + 2*h.PkBytes + h.VkBytes
}

// chunkStream is what the upload RPCs' client streams have in common.
type chunkStream interface {
	Receive() bool
	Err() error
}

// receiveFiles writes the chunks of a client stream (chunk returns the
// current message's, ok false when it is not a chunk) into the files at
// paths, sizes[i] bytes each, in order: more bytes than they add up to,
// a message that is no chunk, or fewer bytes at the stream's end are
// refused.
func receiveFiles(ctx context.Context, st chunkStream, chunk func() ([]byte, bool), paths []string, sizes []uint64) error {
	var total uint64
	for _, n := range sizes {
		total += n
	}
	i, written, got := 0, uint64(0), uint64(0)
	var f *os.File
	var w *bufio.Writer
	closeFile := func() error {
		if f == nil {
			return nil
		}
		err := w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		f = nil
		return err
	}
	defer closeFile()
	for st.Receive() {
		b, ok := chunk()
		if !ok {
			return errors.New("a message that is no chunk after the header")
		}
		if got += uint64(len(b)); got > total {
			return fmt.Errorf("more than the %d bytes the header declares", total)
		}
		for len(b) > 0 {
			for written == sizes[i] {
				if err := closeFile(); err != nil {
					return err
				}
				i, written = i+1, 0
			}
			if f == nil {
				var err error
				if f, err = os.OpenFile(paths[i], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
					return err
				}
				w = bufio.NewWriterSize(f, 1<<20)
			}
			n := min(uint64(len(b)), sizes[i]-written)
			if _, err := w.Write(b[:n]); err != nil {
				return err
			}
			b, written = b[n:], written+n
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := st.Err(); err != nil {
		return err
	}
	if got != total {
		return fmt.Errorf("the stream ended after %d of the %d bytes the header declares", got, total)
	}
	return closeFile()
}

// uploadDir makes a directory of its own for one upload's files.
func (s *Server) uploadDir() (string, error) {
	dir := cmp.Or(s.cfg.UploadDir, os.TempDir())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(dir, "upload-*")
}

// maxUploads bounds the uploads (AddCircuit, UploadWitness) a server
// receives at once, and so the disk they take.
const maxUploads = 4

// oneCheck waits for the server's one check of an AddCircuit (its
// constraint system decoded, its keys read): one at a time, so that their
// memory does not add up.
func (s *Server) oneCheck(ctx context.Context) (release func(), err error) {
	return acquire(ctx, s.checking)
}

// acquire takes a place in sem, waiting until one is free or ctx is done.
func acquire(ctx context.Context, sem chan struct{}) (release func(), err error) {
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, connect.NewError(connect.CodeCanceled, ctx.Err())
	}
}

// checkCircuitHeader checks an AddCircuit's header: its pipeline (default
// groth16) makes one family's proofs, and its files' sizes are within the
// limits. It returns the spec of the pipeline.
func checkCircuitHeader(h *pb.CircuitHeader) (*Spec, family.Prover, error) {
	if h == nil {
		return nil, nil, errors.New("the first message must be the header")
	}
	spec := &Spec{Pipeline: cmp.Or(h.Pipeline, "groth16")}
	if err := checkPipelineName(spec.Pipeline); err != nil {
		return nil, nil, err
	}
	pp, err := specProving(*spec)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: %w", err)
	}
	switch {
	case h.CcsBytes == 0:
		return nil, nil, errors.New("ccs_bytes: 0; give the constraint system's size")
	case h.CcsBytes > MaxCircuitBytes:
		return nil, nil, fmt.Errorf("ccs_bytes: %d, above the limit of %d", h.CcsBytes, int64(MaxCircuitBytes))
	case (h.PkBytes == 0) != (h.VkBytes == 0):
		return nil, nil, errors.New("pk_bytes and vk_bytes: a proving key and a verifying key go together")
	case h.PkBytes > MaxKeyBytes:
		return nil, nil, fmt.Errorf("pk_bytes: %d, above the limit of %d", h.PkBytes, int64(MaxKeyBytes))
	case h.VkBytes > MaxVKBytes:
		return nil, nil, fmt.Errorf("vk_bytes: %d, above the limit of %d", h.VkBytes, MaxVKBytes)
	}
	return spec, pp.Family, nil
}

// admitDecode refuses an AddCircuit whose check would need more memory
// than the service host has (admission.Host), before its files are read.
func admitDecode(h *pb.CircuitHeader) error {
	budget, _, err := admission.Host()
	if err != nil {
		return nil // nothing to compare with
	}
	budget.Of = "the service host's " + cmp.Or(budget.Of, "memory")
	r := admission.Refusal{
		What:   fmt.Sprintf("add circuit: checking a constraint system of %s", admission.HumanBytes(h.CcsBytes)),
		Memory: "host memory", Advice: "the server decodes a constraint system to check it: serve on a machine with more memory",
	}
	if h.PkBytes > 0 {
		r.What += fmt.Sprintf(" with a proving key of %s", admission.HumanBytes(h.PkBytes))
	}
	if err := admission.Check(r, decodeEstimate(h), budget); err != nil {
		return connect.NewError(connect.CodeResourceExhausted, err)
	}
	return nil
}

// AddCircuit implements the API: the header checked, the memory its
// check needs admitted, the files received, the constraint system decoded
// by its family and within its size, the user's keys (if any) checked
// against it; then the files are stored and the circuit registered under
// its content name. Anything refused stores nothing.
func (s *Server) AddCircuit(ctx context.Context, stream *connect.ClientStream[pb.AddCircuitRequest]) (*connect.Response[pb.AddCircuitResponse], error) {
	if !stream.Receive() {
		return nil, invalid(fmt.Errorf("add circuit: the stream ended before its header: %v", stream.Err()))
	}
	h := stream.Msg().GetHeader()
	spec, fp, err := checkCircuitHeader(h)
	if err != nil {
		return nil, invalid(fmt.Errorf("add circuit: %w", err))
	}
	if err := admitDecode(h); err != nil {
		return nil, err
	}
	release, err := acquire(ctx, s.uploads)
	if err != nil {
		return nil, err
	}
	defer release()
	dir, err := s.uploadDir()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("add circuit: %w", err))
	}
	defer os.RemoveAll(dir)
	paths := []string{filepath.Join(dir, "circuit.ccs"), filepath.Join(dir, "pk.bin"), filepath.Join(dir, "vk.bin")}
	chunk := func() ([]byte, bool) {
		_, ok := stream.Msg().GetPart().(*pb.AddCircuitRequest_Chunk)
		return stream.Msg().GetChunk(), ok
	}
	if err := receiveFiles(ctx, stream, chunk, paths, []uint64{h.CcsBytes, h.PkBytes, h.VkBytes}); err != nil {
		return nil, invalid(fmt.Errorf("add circuit: %w", err))
	}
	curve, err := family.ParseCurve(h.Curve)
	if err != nil {
		return nil, invalid(fmt.Errorf("add circuit: curve: %w", err))
	}
	c, files, err := s.checkCircuit(ctx, fp, spec.Pipeline, curve, paths, h.PkBytes > 0)
	if err != nil {
		// The files are named by what they are, not the server's paths.
		return nil, invalid(fmt.Errorf("add circuit: %s", strings.ReplaceAll(err.Error(), dir+string(os.PathSeparator), "")))
	}
	c.Added = time.Now().UnixMilli()
	stored, dup, err := s.st.addCircuit(ctx, c, files)
	switch {
	case errors.Is(err, errOtherKeys):
		return nil, connect.NewError(connect.CodeAlreadyExists, err)
	case errors.Is(err, errTooManyCircuits):
		return nil, connect.NewError(connect.CodeResourceExhausted, err)
	case err != nil:
		return nil, storeError(err)
	}
	return connect.NewResponse(&pb.AddCircuitResponse{Circuit: stored.info(), Duplicate: dup}), nil
}

// checkCircuit checks an AddCircuit's files (paths: the constraint
// system, the proving and verifying keys) with fp, one check at a time,
// and returns the circuit, named by its content, and its files' objects.
func (s *Server) checkCircuit(ctx context.Context, fp family.Prover, pipeline string, curve ecc.ID, paths []string, userKeys bool) (*Circuit, []circuitFile, error) {
	release, err := s.oneCheck(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	ccs, err := fp.ReadSystem(ctx, curve, paths[0])
	if err != nil {
		return nil, nil, fmt.Errorf("constraint system: %w", err)
	}
	sys, err := family.CompiledSystem(ccs)
	if err != nil {
		return nil, nil, fmt.Errorf("constraint system: %w", err)
	}
	if sys.Size < 1 || sys.Size > fp.MaxSize() {
		return nil, nil, fmt.Errorf("constraint system: %d constraints, want 1 to %d (the %s family's limit)", sys.Size, fp.MaxSize(), fp.Name())
	}
	if userKeys {
		if _, err := fp.ReadKeys(ctx, sys, paths[1], paths[2]); err != nil {
			return nil, nil, fmt.Errorf("keys: %w", err)
		}
	}
	c := &Circuit{ID: sys.Name, Family: fp.Name(), Pipeline: pipeline, Constraints: sys.Size, Inputs: fp.Inputs(ccs), Field: ccs.Field().String(), Curve: curveField(curve)}
	var files []circuitFile
	for i, kind := range []string{"ccs", "pk", "vk"} {
		if i > 0 && !userKeys {
			break
		}
		name, err := fileName(kind, paths[i])
		if err != nil {
			return nil, nil, err
		}
		files = append(files, circuitFile{name: name, path: paths[i]})
	}
	c.CCS = files[0].name
	if userKeys {
		c.PK, c.VK = files[1].name, files[2].name
	}
	if st, err := os.Stat(paths[0]); err == nil {
		c.CCSBytes = st.Size()
	}
	return c, files, nil
}

// ListCircuits implements the API.
func (s *Server) ListCircuits(ctx context.Context, _ *connect.Request[pb.ListCircuitsRequest]) (*connect.Response[pb.ListCircuitsResponse], error) {
	cs, err := s.st.listCircuits(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, storeError(err)
	}
	out := &pb.ListCircuitsResponse{}
	for _, c := range cs {
		out.Circuits = append(out.Circuits, c.info())
	}
	return connect.NewResponse(out), nil
}

// RemoveCircuit implements the API: the circuit's record, then its files.
// Its jobs queued and not started fail; workers keep the keys they hold
// (keys evict drops them).
func (s *Server) RemoveCircuit(ctx context.Context, req *connect.Request[pb.RemoveCircuitRequest]) (*connect.Response[pb.RemoveCircuitResponse], error) {
	if err := checkCircuitID("circuit_id", req.Msg.CircuitId); err != nil {
		return nil, invalid(err)
	}
	c, err := s.st.removeCircuit(ctx, req.Msg.CircuitId)
	if err != nil {
		return nil, storeError(err)
	}
	return connect.NewResponse(&pb.RemoveCircuitResponse{Circuit: c.info()}), nil
}

// UploadWitness implements the API: a witness of an added circuit, at
// most MaxWitnessBytes, received onto disk, its SHA-256 checked against
// the header's, then stored under it (kept for --retain; not stored again
// while it has more than half of that left). A Submit that names it
// checks it against the circuit.
func (s *Server) UploadWitness(ctx context.Context, stream *connect.ClientStream[pb.UploadWitnessRequest]) (*connect.Response[pb.UploadWitnessResponse], error) {
	if !stream.Receive() {
		return nil, invalid(fmt.Errorf("upload witness: the stream ended before its header: %v", stream.Err()))
	}
	h := stream.Msg().GetHeader()
	switch {
	case h == nil:
		return nil, invalid(errors.New("upload witness: the first message must be the header"))
	case h.Bytes == 0 || h.Bytes > MaxWitnessBytes:
		return nil, invalid(fmt.Errorf("upload witness: bytes %d: want 1 to %d", h.Bytes, MaxWitnessBytes))
	case !validDigest(h.Sha256):
		return nil, invalid(fmt.Errorf("upload witness: sha256 %q: want the witness's SHA-256, 64 lower-case hex digits", h.Sha256))
	}
	if err := checkCircuitID("upload witness: circuit_id", h.CircuitId); err != nil {
		return nil, invalid(err)
	}
	if _, err := s.st.Circuit(ctx, h.CircuitId); err != nil {
		return nil, storeError(err)
	}
	release, err := acquire(ctx, s.uploads)
	if err != nil {
		return nil, err
	}
	defer release()
	dir, err := s.uploadDir()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("upload witness: %w", err))
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "witness")
	chunk := func() ([]byte, bool) {
		_, ok := stream.Msg().GetPart().(*pb.UploadWitnessRequest_Chunk)
		return stream.Msg().GetChunk(), ok
	}
	if err := receiveFiles(ctx, stream, chunk, []string{path}, []uint64{h.Bytes}); err != nil {
		return nil, invalid(fmt.Errorf("upload witness: %w", err))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	defer f.Close()
	hash := sha256.New()
	if _, err := io.Copy(hash, f); err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	if got := hex.EncodeToString(hash.Sum(nil)); got != h.Sha256 {
		return nil, invalid(fmt.Errorf("upload witness: the bytes' SHA-256 is %s, the header says %s", got, h.Sha256))
	}
	if s.st.witnessFresh(ctx, h.Sha256, int64(h.Bytes)) {
		return connect.NewResponse(&pb.UploadWitnessResponse{Upload: h.Sha256}), nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	if _, err := s.st.objects.Put(ctx, jetstream.ObjectMeta{Name: witnessPrefix + h.Sha256}, f); err != nil {
		return nil, storeError(err)
	}
	return connect.NewResponse(&pb.UploadWitnessResponse{Upload: h.Sha256}), nil
}

// jobWitnesses checks a Submit's witnesses for circuit c: each, inline or
// uploaded, decodes as a full witness of the circuit's inputs (refused
// naming its index), within MaxJobWitnessBytes together. It returns their
// names (their SHA-256) and the inline ones' bytes, to store once the job
// is accepted.
func (s *Server) jobWitnesses(ctx context.Context, c *Circuit, ws []*pb.Witness) (names []string, inline map[string][]byte, err error) {
	field, err := c.field()
	if err != nil {
		return nil, nil, connect.NewError(connect.CodeInternal, err)
	}
	inline = map[string][]byte{}
	var total int64
	for i, w := range ws {
		data := w.GetData()
		if up := w.GetUpload(); up != "" {
			if data, err = s.uploadedWitness(ctx, up); err != nil {
				return nil, nil, invalid(fmt.Errorf("spec: witnesses[%d]: %w", i, err))
			}
		}
		if total += int64(len(data)); total > MaxJobWitnessBytes {
			return nil, nil, invalid(fmt.Errorf("spec: witnesses: more than %d bytes together, the limit", int64(MaxJobWitnessBytes)))
		}
		if _, err := family.DecodeWitness(data, field, c.Inputs); err != nil {
			return nil, nil, invalid(fmt.Errorf("spec: witnesses[%d]: %w (circuit %s)", i, err, c.ID))
		}
		sum := sha256.Sum256(data)
		name := hex.EncodeToString(sum[:])
		names = append(names, name)
		if w.GetUpload() == "" {
			inline[name] = data
		}
	}
	return names, inline, nil
}

// uploadedWitness reads an uploaded witness, one such read at a time
// (apart from AddCircuit's checks: a Submit does not wait for a large
// constraint system's).
func (s *Server) uploadedWitness(ctx context.Context, name string) ([]byte, error) {
	release, err := acquire(ctx, s.reading)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.st.Witness(ctx, name)
}
