package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prooflane/prooflane/internal/durable"
	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/solidity"
	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("export", command{summary: "write the Ethereum verifier contract of a BN254 verifying key (export solidity), or the contract call that checks one of its proofs (export calldata)", run: runExport, subcommands: []string{"solidity", "calldata"}})
}

// exportFlags are the flags of export's subcommands.
type exportFlags struct {
	vk, out, proof, public string
	hashArg                string
	hash                   family.CommitmentHash
}

func runExport(args []string, stdout, stderr io.Writer) error {
	quietGnark() // its export's notes on the commitment hash
	fs := newFlags("export", "solidity --vk FILE --out FILE | calldata --vk FILE --proof FILE --public FILE", stderr)
	var f exportFlags
	fs.StringVar(&f.vk, "vk", "", "FILE: a BN254 verifying key, groth16 or plonk, as prove writes vk.bin and setup the key cache's (gnark's WriteTo)")
	fs.StringVar(&f.out, "out", "", "FILE (solidity): the contract's Solidity source, written whole or not at all")
	fs.StringVar(&f.proof, "proof", "", "FILE (calldata): a proof of the key, as prove writes proof-N.bin")
	fs.StringVar(&f.public, "public", "", "FILE (calldata): its public inputs, as prove writes public-N.bin")
	fs.StringVar(&f.hashArg, "commitment-hash", "", "rfc9380 or keccak256 (solidity): the hash a groth16 key's proofs hashed their commitment with (prove --commitment-hash); gnark's contract hashes it with keccak256, so a key with a commitment needs keccak256")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sub := fs.Arg(0)
	if err := f.check(fs, sub); err != nil {
		return err
	}
	key, err := solidity.ReadKey(f.vk)
	if err != nil {
		return err
	}
	if sub == "calldata" {
		return exportCalldata(key, f, stdout)
	}
	if err := f.checkOut(); err != nil {
		return err
	}
	var opts []solidity.Option
	if f.hash == family.Keccak256 {
		opts = append(opts, solidity.KeccakCommitments())
	}
	err = durable.WriteFile(f.out, func(w io.Writer) error { return key.WriteContract(w, opts...) })
	if errors.Is(err, solidity.ErrCommitmentHash) {
		return fmt.Errorf("%w: prove with --commitment-hash keccak256, and export the contract with --commitment-hash keccak256", err)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: the verifier of %s (%s); its function %s\n", f.out, key, f.vk, key.Signature())
	return nil
}

// check checks the flags of subcommand sub.
func (f *exportFlags) check(fs *flag.FlagSet, sub string) error {
	switch {
	case sub != "solidity" && sub != "calldata":
		if sub == "" {
			return usageErrorf(fs, "export takes solidity or calldata")
		}
		return usageErrorf(fs, "export takes solidity or calldata, got %q%s", sub, didYouMean(sub, []string{"solidity", "calldata"}, ""))
	case fs.NArg() > 1:
		return usageErrorf(fs, "export %s takes no arguments, got %q", sub, fs.Args()[1:])
	case f.vk == "":
		return usageErrorf(fs, "export %s needs --vk FILE, the verifying key", sub)
	case sub == "solidity" && f.out == "":
		return usageErrorf(fs, "export solidity needs --out FILE, where the contract goes")
	case sub == "solidity" && (f.proof != "" || f.public != ""):
		return usageErrorf(fs, "--proof and --public are export calldata's")
	case sub == "calldata" && (f.proof == "" || f.public == ""):
		return usageErrorf(fs, "export calldata needs --proof FILE and --public FILE, a proof and its public inputs")
	case sub == "calldata" && f.out != "":
		return usageErrorf(fs, "--out is export solidity's; export calldata prints the call")
	case sub == "calldata" && f.hashArg != "":
		return usageErrorf(fs, "--commitment-hash is export solidity's; export calldata encodes the proof as it is")
	}
	var err error
	if f.hash, err = family.ParseCommitmentHash(f.hashArg); err != nil {
		return usageErrorf(fs, "--commitment-hash: %v", err)
	}
	return nil
}

// checkOut refuses an --out that is the verifying key itself.
func (f *exportFlags) checkOut() error {
	vk, err1 := os.Stat(f.vk)
	out, err2 := os.Stat(f.out)
	if err1 == nil && err2 == nil && os.SameFile(vk, out) {
		return fmt.Errorf("--out %s is the verifying key --vk %s: give the contract a file of its own", f.out, f.vk)
	}
	return nil
}

// exportCalldata prints the contract call that checks f's proof against
// its public inputs, in hex as Ethereum tools take it.
func exportCalldata(key *solidity.Key, f exportFlags, stdout io.Writer) error {
	proof, err := regfile.ReadFile(f.proof, solidity.MaxProofFile)
	if err != nil {
		return fmt.Errorf("proof: %w", err)
	}
	public, err := regfile.ReadFile(f.public, solidity.MaxProofFile)
	if err != nil {
		return fmt.Errorf("public inputs: %w", err)
	}
	call, err := key.Calldata(proof, public)
	if err != nil {
		return fmt.Errorf("%s and %s for %s: %w", f.proof, f.public, f.vk, err)
	}
	fmt.Fprintf(stdout, "0x%x\n", call)
	return nil
}
