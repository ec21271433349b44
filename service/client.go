package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"connectrpc.com/connect"

	"github.com/prooflane/prooflane/internal/regfile"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// The client's side of added circuits: a circuit's files streamed to
// AddCircuit, and a job's witness files sent inline or uploaded first.
// The commands and the load test use them; so can any Go client.

// CircuitFiles are the files of a circuit to add: its constraint system
// (gnark's WriteTo of an R1CS for groth16, a SparseR1CS for plonk) and,
// optionally, the user's own proving and verifying keys (gnark's WriteTo).
type CircuitFiles struct {
	// Pipeline is the circuit's pipeline, which picks its family (""
	// for groth16).
	Pipeline    string
	CCS, PK, VK string
	// Curve is the constraint system's curve ("" or "bls12-381", "bn254").
	Curve string
}

// AddCircuit streams the files to the service's AddCircuit in chunks of
// ChunkBytes (never a file whole in one message) and returns its answer.
// Each file must be a regular file; errors name it.
func AddCircuit(ctx context.Context, cl prooflanev1connect.ProverServiceClient, f CircuitFiles) (*pb.AddCircuitResponse, error) {
	if (f.PK == "") != (f.VK == "") {
		return nil, errors.New("a proving key and a verifying key go together")
	}
	paths := []string{f.CCS}
	if f.PK != "" {
		paths = append(paths, f.PK, f.VK)
	}
	files := make([]*os.File, len(paths))
	sizes := make([]uint64, 3)
	for i, p := range paths {
		file, st, err := regfile.Open(p)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		files[i], sizes[i] = file, uint64(st.Size())
	}
	stream := cl.AddCircuit(ctx)
	h := &pb.CircuitHeader{Pipeline: f.Pipeline, CcsBytes: sizes[0], PkBytes: sizes[1], VkBytes: sizes[2], Curve: f.Curve}
	err := stream.Send(&pb.AddCircuitRequest{Part: &pb.AddCircuitRequest_Header{Header: h}})
	for i := 0; err == nil && i < len(files); i++ {
		err = sendChunks(files[i], paths[i], func(b []byte) error {
			return stream.Send(&pb.AddCircuitRequest{Part: &pb.AddCircuitRequest_Chunk{Chunk: b}})
		})
	}
	resp, cerr := stream.CloseAndReceive()
	if cerr != nil {
		// The server's answer says why it stopped reading (a Send then
		// fails with io.EOF).
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}

// sendChunks sends what r holds in chunks of ChunkBytes; a send that
// fails ends it (io.EOF: the server answered already).
func sendChunks(r io.Reader, path string, send func([]byte) error) error {
	buf := make([]byte, ChunkBytes)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if serr := send(append([]byte(nil), buf[:n]...)); serr != nil {
				return serr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// UploadWitness streams a witness file of circuit id to the service's
// UploadWitness and returns its upload name (its SHA-256, for a
// Witness's upload). The file must be a regular file of at most
// MaxWitnessBytes.
func UploadWitness(ctx context.Context, cl prooflanev1connect.ProverServiceClient, circuitID, path string) (string, error) {
	f, st, err := regfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st.Size() > MaxWitnessBytes {
		return "", fmt.Errorf("%s: %d bytes, above the limit of %d", path, st.Size(), MaxWitnessBytes)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	stream := cl.UploadWitness(ctx)
	hdr := &pb.WitnessHeader{CircuitId: circuitID, Bytes: uint64(st.Size()), Sha256: hex.EncodeToString(h.Sum(nil))}
	err = stream.Send(&pb.UploadWitnessRequest{Part: &pb.UploadWitnessRequest_Header{Header: hdr}})
	if err == nil {
		err = sendChunks(f, path, func(b []byte) error {
			return stream.Send(&pb.UploadWitnessRequest{Part: &pb.UploadWitnessRequest_Chunk{Chunk: b}})
		})
	}
	resp, cerr := stream.CloseAndReceive()
	if cerr != nil {
		return "", cerr
	}
	if err != nil {
		return "", err
	}
	return resp.Msg.Upload, nil
}

// inlineWitnessBudget is what Witnesses sends in a request:
// MaxInlineWitnessBytes. A variable for the tests.
var inlineWitnessBudget = MaxInlineWitnessBytes

// Witnesses are a job's witnesses of circuit id from full witness files
// (gnark's witness MarshalBinary), in partition order: in the request
// while they fit MaxInlineWitnessBytes together, each of the others
// uploaded first (UploadWitness). The service checks them against the
// circuit; errors here name the file and its index.
func Witnesses(ctx context.Context, cl prooflanev1connect.ProverServiceClient, circuitID string, paths []string) ([]*pb.Witness, error) {
	if len(paths) > MaxPartitions {
		return nil, fmt.Errorf("%d witnesses: at most %d (one a partition)", len(paths), MaxPartitions)
	}
	out := make([]*pb.Witness, len(paths))
	inline := 0
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("witness %d: %w", i, err)
		}
		if st.Size() > MaxWitnessBytes {
			return nil, fmt.Errorf("witness %d (%s): %d bytes, above the limit of %d", i, p, st.Size(), MaxWitnessBytes)
		}
		if inline+int(st.Size()) <= inlineWitnessBudget {
			data, err := regfile.ReadFile(p, int64(inlineWitnessBudget))
			if err != nil {
				return nil, fmt.Errorf("witness %d: %w", i, err)
			}
			inline += len(data)
			out[i] = &pb.Witness{Source: &pb.Witness_Data{Data: data}}
			continue
		}
		name, err := UploadWitness(ctx, cl, circuitID, p)
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) {
				return nil, fmt.Errorf("witness %d (%s): upload: %s (%s)", i, p, ce.Message(), ce.Code())
			}
			return nil, fmt.Errorf("witness %d: upload: %w", i, err)
		}
		out[i] = &pb.Witness{Source: &pb.Witness_Upload{Upload: name}}
	}
	return out, nil
}
