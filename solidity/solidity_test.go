package solidity_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	g16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	plonkbn254 "github.com/consensys/gnark/backend/plonk/bn254"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/prooflane/prooflane/internal/evmtest"
	"github.com/prooflane/prooflane/internal/keyfile"
	"github.com/prooflane/prooflane/solidity"
)

// ReadKey tells a Groth16 key from a PLONK key by its layout, with or
// without commitments, with the key cache's checksum trailer or without,
// compressed (WriteTo) or not (WriteRawTo), and counts the public inputs
// a proof is checked against.
func TestReadKeyTellsTheSchemeAndCountsTheInputs(t *testing.T) {
	for _, commit := range []bool{false, true} {
		g, p := evmtest.Groth16(t, commit), evmtest.Plonk(t, commit)
		commitments := 0
		if commit {
			commitments = 1
		}
		raw := filepath.Join(t.TempDir(), "raw.VK")
		vk, err := groth16.NewVerifyingKey(ecc.BN254), error(nil)
		if _, err = vk.ReadFrom(bytes.NewReader(content(t, g.VK))); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := vk.WriteRawTo(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(raw, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			file, scheme string
		}{{g.VK, solidity.Groth16}, {raw, solidity.Groth16}, {p.VK, solidity.PLONK}} {
			k, err := solidity.ReadKey(c.file)
			if err != nil {
				t.Fatalf("%s: %v", name(commit), err)
			}
			if k.Scheme != c.scheme || k.Public != 2 || k.Commitments != commitments || k.File != c.file {
				t.Errorf("%s: %s read as %+v, want a %s key with 2 public inputs and %d commitments", name(commit), c.file, k, c.scheme, commitments)
			}
		}
	}
}

// content is a key file's bytes before its checksum trailer.
func content(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = keyfile.Content(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// A BLS12-381 key, the curve prooflane proves on by default, is refused
// naming its scheme and curve and the curve to set up with.
func TestReadKeyRefusesABLS12381KeyNamingItsCurve(t *testing.T) {
	g, p := evmtest.BLS12381Keys(t)
	for file, scheme := range map[string]string{g: "groth16", p: "plonk"} {
		_, err := solidity.ReadKey(file)
		want := `verifying key "` + file + `" is a ` + scheme + ` key on BLS12-381, not on BN254: Ethereum verifies BN254 pairings only (its precompiles, EIP-196 and EIP-197); set the circuit up on BN254 (prooflane setup --curve bn254) for a verifier contract`
		if !errors.Is(err, solidity.ErrNotBN254) || err.Error() != want {
			t.Errorf("error %v,\nwant %s", err, want)
		}
	}
}

// A file that is no verifying key is refused naming it, whatever it
// holds: nothing, a proof, a public witness, a key cut short or with a
// length prefix claiming 2^32 points (decoded, that would exhaust the
// memory), a key with a damaged point, a trailer that does not match.
func TestReadKeyRefusesAFileThatIsNoVerifyingKey(t *testing.T) {
	g, p := evmtest.Groth16(t, false), evmtest.Plonk(t, true)
	gvk, pvk := content(t, g.VK), content(t, p.VK)
	dir := t.TempDir()
	// The Groth16 key's count of public bases, after [α]₁ [β]₁ [β]₂ [γ]₂
	// [δ]₁ [δ]₂ compressed.
	huge := bytes.Clone(gvk)
	binary.BigEndian.PutUint32(huge[3*32+3*64:], 0xffffffff)
	// [α]₁'s x coordinate set above the field's modulus, its compression
	// flags kept.
	damaged := bytes.Clone(gvk)
	damaged[0] |= 0x3f
	for i := 1; i < 32; i++ {
		damaged[i] = 0xff
	}
	trailer := append(bytes.Clone(pvk), keyfile.Trailer(pvk)...)
	trailer[100] ^= 1
	notKey := `is not a verifying key: it holds no Groth16 or PLONK verifying key in gnark's encoding, on BN254 or BLS12-381`
	for _, c := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"empty", nil, notKey + " (0 bytes)"},
		{"proof", g.Proof, notKey},
		{"public", g.Public, notKey},
		{"groth16 cut short", gvk[:len(gvk)-1], notKey},
		{"plonk cut short", pvk[:len(pvk)-1], notKey},
		{"plonk with a byte more", append(bytes.Clone(pvk), 0), notKey},
		{"huge count", huge, notKey},
		{"damaged point", damaged, "(a groth16 key on BN254 by its layout) is corrupt: "},
		{"checksum", trailer, "is corrupt: checksum mismatch"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := solidity.ReadKey(path)
		if err == nil || !strings.Contains(err.Error(), `"`+path+`"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q with %q", c.name, err, path, c.want)
		}
	}
	large := filepath.Join(dir, "large")
	if err := os.WriteFile(large, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, solidity.MaxKeyFile+1); err != nil {
		t.Fatal(err)
	}
	if _, err := solidity.ReadKey(large); err == nil || err.Error() != `verifying key "`+large+`": larger than 16 MiB, more than a contract can hold` {
		t.Errorf("a file over the limit: error %v", err)
	}
	for _, path := range []string{dir, filepath.Join(dir, "missing")} {
		if _, err := solidity.ReadKey(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming it", path, err)
		}
	}
}

// A Groth16 key with a commitment makes no contract unless the proofs
// hash the commitment with keccak256, as the contract does: prooflane's
// Groth16 proofs hash it otherwise, and the contract would reject them.
func TestWriteContractRefusesAGroth16CommitmentUnlessKeccak(t *testing.T) {
	k, err := solidity.ReadKey(evmtest.Groth16(t, true).VK)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := k.WriteContract(&b); !errors.Is(err, solidity.ErrCommitmentHash) || b.Len() != 0 {
		t.Errorf("error %v (%d bytes written), want ErrCommitmentHash and nothing", err, b.Len())
	}
	if err := k.WriteContract(&b, solidity.KeccakCommitments()); err != nil || !strings.Contains(b.String(), "function verifyProof(") || !strings.Contains(b.String(), "keccak256(") {
		t.Errorf("with KeccakCommitments: error %v, want a contract hashing with keccak256", err)
	}
}

// Calldata is the ABI encoding of the contract's verifier function, as
// go-ethereum's ABI packs it from gnark's MarshalSolidity of the proof
// and the public inputs; a proof written raw (WriteRawTo) gives the same
// call.
func TestCalldataIsTheABIEncodingOfTheVerifierCall(t *testing.T) {
	for _, commit := range []bool{false, true} {
		g, p := evmtest.Groth16(t, commit), evmtest.Plonk(t, commit)
		for _, f := range []evmtest.Fixture{g, p} {
			k, err := solidity.ReadKey(f.VK)
			if err != nil {
				t.Fatal(err)
			}
			got, err := k.Calldata(f.Proof, f.Public)
			if err != nil {
				t.Fatal(err)
			}
			if want := packed(t, k, f); !bytes.Equal(got, want) {
				t.Errorf("%s %s: calldata\n%x\nwant\n%x", k.Scheme, name(commit), got, want)
			}
			if raw, err := k.Calldata(rawProof(t, k.Scheme, f.Proof), f.Public); err != nil || !bytes.Equal(raw, got) {
				t.Errorf("%s %s: a raw proof's calldata differs (%v)", k.Scheme, name(commit), err)
			}
		}
	}
}

// packed is the call go-ethereum's ABI encoder makes of f's proof for
// k's verifier function.
func packed(t *testing.T, k *solidity.Key, f evmtest.Fixture) []byte {
	t.Helper()
	w, err := witness.New(ecc.BN254.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UnmarshalBinary(f.Public); err != nil {
		t.Fatal(err)
	}
	var inputs []*big.Int
	for _, e := range w.Vector().(fr.Vector) {
		inputs = append(inputs, e.BigInt(new(big.Int)))
	}
	words := func(b []byte) []*big.Int {
		var out []*big.Int
		for i := 0; i < len(b); i += 32 {
			out = append(out, new(big.Int).SetBytes(b[i:i+32]))
		}
		return out
	}
	typ := func(s string) abi.Type {
		ty, err := abi.NewType(s, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	// array is the first n words as a [n]*big.Int, the Go value of a
	// uint256[n].
	array := func(ws []*big.Int, n int) any {
		v := reflect.New(reflect.ArrayOf(n, reflect.TypeFor[*big.Int]())).Elem()
		for i := range n {
			v.Index(i).Set(reflect.ValueOf(ws[i]))
		}
		return v.Interface()
	}
	var args abi.Arguments
	var vals []any
	if k.Scheme == solidity.PLONK {
		var p plonkbn254.Proof
		if _, err := p.ReadFrom(bytes.NewReader(f.Proof)); err != nil {
			t.Fatal(err)
		}
		args = abi.Arguments{{Type: typ("bytes")}, {Type: typ("uint256[]")}}
		vals = []any{p.MarshalSolidity(), inputs}
	} else {
		var p g16bn254.Proof
		if _, err := p.ReadFrom(bytes.NewReader(f.Proof)); err != nil {
			t.Fatal(err)
		}
		ws := words(p.MarshalSolidity()[:8*32])
		args = abi.Arguments{{Type: typ("uint256[8]")}}
		vals = []any{array(ws, 8)}
		if k.Commitments > 0 {
			rest := words(p.MarshalSolidity()[8*32+4:])
			args = append(args, abi.Argument{Type: typ("uint256[2]")}, abi.Argument{Type: typ("uint256[2]")})
			vals = append(vals, array(rest[:2], 2), array(rest[2:], 2))
		}
		args = append(args, abi.Argument{Type: typ("uint256[2]")})
		vals = append(vals, array(inputs, 2))
	}
	enc, err := args.Pack(vals...)
	if err != nil {
		t.Fatal(err)
	}
	sel := abi.NewMethod("", strings.Split(k.Signature(), "(")[0], abi.Function, "", false, false, args, nil).ID
	return append(sel, enc...)
}

// rawProof re-encodes a proof uncompressed (WriteRawTo).
func rawProof(t *testing.T, scheme string, b []byte) []byte {
	t.Helper()
	var p interface {
		ReadFrom(r io.Reader) (int64, error)
		WriteRawTo(w io.Writer) (int64, error)
	}
	if scheme == solidity.PLONK {
		p = new(plonkbn254.Proof)
	} else {
		p = new(g16bn254.Proof)
	}
	if _, err := p.ReadFrom(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := p.WriteRawTo(&out); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(out.Bytes(), b) {
		t.Fatal("the raw encoding is the compressed one")
	}
	return out.Bytes()
}

// Calldata refuses a proof of the other scheme, one without the key's
// commitments, one cut short, and public inputs of another count, saying
// which file is wrong.
func TestCalldataRefusesAProofOrInputsNotForTheKey(t *testing.T) {
	g, gc, p := evmtest.Groth16(t, false), evmtest.Groth16(t, true), evmtest.Plonk(t, false)
	gk, err := solidity.ReadKey(g.VK)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := solidity.ReadKey(p.VK)
	if err != nil {
		t.Fatal(err)
	}
	three := witness3(t)
	for _, c := range []struct {
		name          string
		k             *solidity.Key
		proof, public []byte
		want          string
	}{
		{"plonk proof for groth16", gk, p.Proof, g.Public, "proof: not a BN254 Groth16 proof: "},
		{"groth16 proof for plonk", pk, g.Proof, p.Public, "proof: not a BN254 PLONK proof: "},
		{"commitment for none", gk, gc.Proof, g.Public, "proof: 1 commitments, the key has 0"},
		{"cut short", gk, g.Proof[:len(g.Proof)-1], g.Public, "proof: not a BN254 Groth16 proof: truncated"},
		{"three inputs", gk, g.Proof, three, "public inputs: 3, the key takes 2"},
		{"a witness cut short", pk, p.Proof, p.Public[:len(p.Public)-1], "public inputs: declares 2 elements (76 bytes), has 75 bytes"},
	} {
		if _, err := c.k.Calldata(c.proof, c.public); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// witness3 is a public witness of three inputs.
func witness3(t *testing.T) []byte {
	t.Helper()
	w, err := witness.New(ecc.BN254.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	values := make(chan any, 3)
	for i := range 3 {
		values <- i + 1
	}
	close(values)
	if err := w.Fill(3, 0, values); err != nil {
		t.Fatal(err)
	}
	return marshal(t, w)
}

// Accepted reads a Groth16 call that did not revert as accepted, and a
// PLONK call's bool; anything else is an error.
func TestAcceptedReadsTheContractsAnswer(t *testing.T) {
	gk, err := solidity.ReadKey(evmtest.Groth16(t, false).VK)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := solidity.ReadKey(evmtest.Plonk(t, false).VK)
	if err != nil {
		t.Fatal(err)
	}
	word := func(v byte) []byte { b := make([]byte, 32); b[31] = v; return b }
	for _, c := range []struct {
		k        *solidity.Key
		ret      []byte
		ok, fail bool
	}{
		{gk, nil, true, false}, {gk, word(1), false, true},
		{pk, word(1), true, false}, {pk, word(0), false, false}, {pk, word(2), false, true}, {pk, nil, false, true},
	} {
		ok, err := c.k.Accepted(c.ret)
		if ok != c.ok || (err != nil) != c.fail {
			t.Errorf("%s %x: %v, %v; want %v, error %v", c.k.Scheme, c.ret, ok, err, c.ok, c.fail)
		}
	}
}

// noPublic has no public input.
type noPublic struct{ X, Y frontend.Variable }

func (c *noPublic) Define(api frontend.API) error {
	api.AssertIsDifferent(api.Mul(c.X, c.Y), 0)
	return nil
}

// A Groth16 key without public inputs makes no contract: gnark's would
// declare an array of length 0, which Solidity refuses.
func TestWriteContractRefusesAGroth16KeyWithoutPublicInputs(t *testing.T) {
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &noPublic{})
	if err != nil {
		t.Fatal(err)
	}
	_, vk, err := groth16.Setup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	path := evmtest.WriteVK(t, vk, false)
	k, err := solidity.ReadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	want := `verifying key "` + path + `" has no public inputs: gnark's Groth16 contract takes one at least`
	if err := k.WriteContract(&b); err == nil || !strings.HasPrefix(err.Error(), want) || b.Len() != 0 {
		t.Errorf("error %v (%d bytes written), want %q and nothing", err, b.Len(), want)
	}
}

// A Groth16 key whose commitments do not fit its public inputs (gnark
// decodes it; its contract would read past the inputs), and a PLONK key
// whose commitment selectors and constraints differ in number, are
// corrupt.
func TestReadKeyRefusesAKeyWhoseCommitmentsDoNotFit(t *testing.T) {
	f := evmtest.Groth16(t, true)
	for _, c := range []struct {
		what   string
		change func(*g16bn254.VerifyingKey)
		want   string
	}{
		{"an input past the last", func(vk *g16bn254.VerifyingKey) { vk.PublicAndCommitmentCommitted = [][]int{{3}} }, "is corrupt: commitment 0 hashes public input 3 of 2"},
		{"no commitment key", func(vk *g16bn254.VerifyingKey) { vk.CommitmentKeys = nil }, "is corrupt: 4 public bases, 0 commitment keys for 1 commitments"},
	} {
		vk := new(g16bn254.VerifyingKey)
		if _, err := vk.ReadFrom(bytes.NewReader(content(t, f.VK))); err != nil {
			t.Fatal(err)
		}
		c.change(vk)
		path := evmtest.WriteVK(t, vk, false)
		if _, err := solidity.ReadKey(path); err == nil || !strings.Contains(err.Error(), `"`+path+`" `+c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
	}
	p := new(plonkbn254.VerifyingKey)
	if _, err := p.ReadFrom(bytes.NewReader(content(t, evmtest.Plonk(t, true).VK))); err != nil {
		t.Fatal(err)
	}
	p.CommitmentConstraintIndexes = append(p.CommitmentConstraintIndexes, 1)
	path := evmtest.WriteVK(t, p, false)
	if _, err := solidity.ReadKey(path); err == nil || !strings.Contains(err.Error(), `"`+path+`" is corrupt: 1 BSB22 commitment selectors, 2 commitment constraints`) {
		t.Errorf("plonk: error %v", err)
	}
}
