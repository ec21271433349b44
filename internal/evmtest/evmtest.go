// Package evmtest checks proofs with their Solidity verifier contract on
// an in-process Ethereum chain, for tests: the contract compiled with
// solcjs (the npm package solc), deployed on go-ethereum's simulated
// backend, its verifier function called.
//
// The solcjs to run is the one PROOFLANE_SOLC names (tools/solc/install.sh
// installs the pinned one and prints it; CI sets it); without it, the
// tests that need it skip, saying so. Only tests import this package: the
// prooflane binary links no Ethereum client.
//
// With a BN254 verifying key file and a proof's files, a test checks the
// proof on the chain in two lines:
//
//	v := evmtest.Deploy(t, key) // key from solidity.ReadKey
//	ok, reverted := v.Verify(t, proofBytes, publicBytes)
package evmtest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/prooflane/prooflane/solidity"
)

// SolcVariable names the solcjs executable the tests compile with.
const SolcVariable = "PROOFLANE_SOLC"

// Solc returns the solcjs that SolcVariable names, and skips t when it
// is unset.
func Solc(t testing.TB) string {
	t.Helper()
	solc := os.Getenv(SolcVariable)
	if solc == "" {
		t.Skipf("%s is not set: run tools/solc/install.sh and set it to the solcjs it prints", SolcVariable)
	}
	return solc
}

// compiled holds the bytecode of the contracts compiled in this process,
// by their source's SHA-256: a contract is compiled once however many
// tests deploy it.
var compiled struct {
	sync.Mutex
	code map[[32]byte][]byte
}

// Compile compiles source, which defines one contract, with solcjs
// (optimised) and returns its creation bytecode.
func Compile(t testing.TB, source []byte) []byte {
	t.Helper()
	solc := Solc(t)
	compiled.Lock()
	defer compiled.Unlock()
	sum := sha256.Sum256(source)
	if code, ok := compiled.code[sum]; ok {
		return code
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Verifier.sol"), source, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, solc, "--bin", "--optimize", "--base-path", dir, "-o", filepath.Join(dir, "out"), filepath.Join(dir, "Verifier.sol"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", solc, err, out)
	}
	bins, err := filepath.Glob(filepath.Join(dir, "out", "*.bin"))
	if err != nil || len(bins) != 1 {
		t.Fatalf("solcjs wrote %q (%v), want one contract's .bin", bins, err)
	}
	hexCode, err := os.ReadFile(bins[0])
	if err != nil {
		t.Fatal(err)
	}
	code := common.FromHex(strings.TrimSpace(string(hexCode)))
	if len(code) == 0 {
		t.Fatalf("%s is empty", bins[0])
	}
	if compiled.code == nil {
		compiled.code = map[[32]byte][]byte{}
	}
	compiled.code[sum] = code
	return code
}

// Chain is an in-process chain with one funded account that deploys
// contracts and calls them.
type Chain struct {
	backend *simulated.Backend
	client  simulated.Client
	key     *ecdsa.PrivateKey
	from    common.Address
}

// gasLimit is a transaction's and a call's gas: far above what a
// verifier takes to deploy or to run (some 300k gas for PLONK), so that
// gas never decides a test, and under the protocol's cap on a
// transaction's gas (2^24, EIP-7825).
const gasLimit = 15_000_000

// NewChain starts a chain, closed when t ends.
func NewChain(t testing.TB) *Chain {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	b := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(1000), ether)}},
		simulated.WithBlockGasLimit(2*gasLimit), simulated.WithCallGasLimit(gasLimit))
	t.Cleanup(func() { b.Close() })
	return &Chain{backend: b, client: b.Client(), key: key, from: from}
}

// Deploy deploys a contract's creation bytecode and returns its address.
func (c *Chain) Deploy(t testing.TB, code []byte) common.Address {
	t.Helper()
	ctx := context.Background()
	chainID, err := c.client.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.client.PendingNonceAt(ctx, c.from)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := c.client.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gasLimit, Data: code,
	}), types.LatestSignerForChainID(chainID), c.key)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.client.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("deploy: %v", err)
	}
	c.backend.Commit()
	receipt, err := c.client.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deploy failed (status %d, %d gas used)", receipt.Status, receipt.GasUsed)
	}
	return receipt.ContractAddress
}

// Call calls the contract at to with data, without a transaction, and
// returns what it returned, or the error of a call that reverted.
func (c *Chain) Call(t testing.TB, to common.Address, data []byte) ([]byte, error) {
	t.Helper()
	ret, err := c.client.CallContract(context.Background(), ethereum.CallMsg{From: c.from, To: &to, Gas: gasLimit, Data: data}, nil)
	if err != nil {
		return nil, reverted(err)
	}
	return ret, nil
}

// reverted adds a revert's reason to its error: the message of an
// Error(string), else the revert data (a custom error's selector).
func reverted(err error) error {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return err
	}
	s, _ := de.ErrorData().(string)
	data := common.FromHex(s)
	if reason, uerr := abi.UnpackRevert(data); uerr == nil {
		return fmt.Errorf("%w: %s", err, reason)
	}
	for _, e := range customErrors {
		if len(data) == 4 && bytes.Equal(data, crypto.Keccak256([]byte(e))[:4]) {
			return fmt.Errorf("%w: %s", err, e)
		}
	}
	return fmt.Errorf("%w (data %x)", err, data)
}

// customErrors are the errors gnark's Groth16 contract reverts with.
var customErrors = []string{"ProofInvalid()", "CommitmentInvalid()", "PublicInputNotInField()"}

// Verifier is a verifying key's contract deployed on a chain of its own.
type Verifier struct {
	Key     *solidity.Key
	Chain   *Chain
	Address common.Address
}

// Deploy writes key's contract (with opts), compiles it, and deploys it
// on a new chain.
func Deploy(t testing.TB, key *solidity.Key, opts ...solidity.Option) *Verifier {
	t.Helper()
	Solc(t)
	var src bytes.Buffer
	if err := key.WriteContract(&src, opts...); err != nil {
		t.Fatal(err)
	}
	return DeployContract(t, key, src.Bytes())
}

// DeployContract compiles source, key's contract as a file holds it,
// and deploys it on a new chain.
func DeployContract(t testing.TB, key *solidity.Key, source []byte) *Verifier {
	t.Helper()
	code := Compile(t, source)
	c := NewChain(t)
	return &Verifier{Key: key, Chain: c, Address: c.Deploy(t, code)}
}

// Verify calls the contract's verifier function on a proof file's and a
// public input file's bytes (solidity.Key.Calldata): accepted is what
// the contract said, reverted the error of a call that reverted (then
// accepted is false). Bytes Calldata refuses fail t.
func (v *Verifier) Verify(t testing.TB, proof, public []byte) (accepted bool, reverted error) {
	t.Helper()
	data, err := v.Key.Calldata(proof, public)
	if err != nil {
		t.Fatalf("calldata: %v", err)
	}
	ret, err := v.Chain.Call(t, v.Address, data)
	if err != nil {
		return false, err
	}
	ok, err := v.Key.Accepted(ret)
	if err != nil {
		t.Fatal(err)
	}
	return ok, nil
}
