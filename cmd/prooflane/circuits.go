package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"connectrpc.com/connect"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/service"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("circuits", command{summary: "add your own circuit to a proving service (its constraint system, and your keys if you have them; prints its id), list the circuits added, or remove one", run: runCircuits, subcommands: []string{"add", "rm"}})
}

// circuitsFlags are the flags of circuits and its subcommands.
type circuitsFlags struct {
	cf                    clientFlags
	ccs, pk, vk, pipeline string
	curve                 curveFlag
}

func runCircuits(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("circuits", "[add --ccs FILE [--pk FILE --vk FILE] | rm ID]", stderr)
	var f circuitsFlags
	f.cf.register(fs)
	fs.StringVar(&f.ccs, "ccs", "", "FILE (add): your circuit's constraint system, as gnark's WriteTo writes it (an R1CS for groth16, a SparseR1CS for plonk)")
	fs.StringVar(&f.pk, "pk", "", "FILE (add): your own proving key (gnark's WriteTo), with --vk; default: the workers set up keys on first use")
	fs.StringVar(&f.vk, "vk", "", "FILE (add): your own verifying key (gnark's WriteTo), with --pk")
	f.curve.id = family.DefaultCurve
	fs.Var(&f.curve, "curve", "(add) the constraint system's curve ("+curveNames()+"): its keys' and proofs'")
	fs.StringVar(&f.pipeline, "pipeline", "groth16", "(add) the circuit's pipeline, an embedded one of its family: groth16, plonk, ...; its jobs run it unless they name another")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sub := fs.Arg(0)
	if err := f.check(fs, sub); err != nil {
		return err
	}
	cl, err := f.cf.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	switch sub {
	case "add":
		resp, err := service.AddCircuit(ctx, cl, service.CircuitFiles{Pipeline: f.pipeline, CCS: f.ccs, PK: f.pk, VK: f.vk, Curve: family.CurveName(f.curve.id)})
		if err != nil {
			return circuitsError("circuits add", err)
		}
		f.cf.print(stdout, resp, func() {
			verb := "added"
			if resp.Duplicate {
				verb = "added before"
			}
			fmt.Fprintf(stderr, "prooflane circuits: %s %s\n", verb, describeCircuit(resp.Circuit))
			fmt.Fprintln(stdout, resp.Circuit.CircuitId)
		})
	case "rm":
		resp, err := cl.RemoveCircuit(ctx, connect.NewRequest(&pb.RemoveCircuitRequest{CircuitId: fs.Arg(1)}))
		if err != nil {
			return rpcError("circuits rm", err)
		}
		f.cf.print(stdout, resp.Msg, func() { fmt.Fprintf(stdout, "removed %s\n", describeCircuit(resp.Msg.Circuit)) })
	default:
		resp, err := cl.ListCircuits(ctx, connect.NewRequest(&pb.ListCircuitsRequest{}))
		if err != nil {
			return rpcError("circuits", err)
		}
		f.cf.print(stdout, resp.Msg, func() {
			for _, c := range resp.Msg.Circuits {
				fmt.Fprintln(stdout, describeCircuit(c))
			}
		})
	}
	return nil
}

// check checks the flags of subcommand sub ("" lists).
func (f *circuitsFlags) check(fs *flag.FlagSet, sub string) error {
	addFlags := f.ccs != "" || f.pk != "" || f.vk != "" || flagGiven(fs, "pipeline") || flagGiven(fs, "curve")
	switch {
	case sub != "" && sub != "add" && sub != "rm":
		return usageErrorf(fs, "circuits takes nothing, add or rm, got %q", sub)
	case sub == "rm" && fs.NArg() != 2:
		return usageErrorf(fs, "circuits rm takes one circuit id, got %d arguments", fs.NArg()-1)
	case sub != "rm" && fs.NArg() > 1:
		return usageErrorf(fs, "circuits %s takes no arguments, got %q", sub, fs.Args()[1:])
	case sub != "add" && addFlags:
		return usageErrorf(fs, "--ccs, --pk, --vk, --pipeline and --curve are circuits add's")
	case sub == "add" && f.ccs == "":
		return usageErrorf(fs, "circuits add needs --ccs FILE, your circuit's constraint system")
	case (f.pk == "") != (f.vk == ""):
		return usageErrorf(fs, "--pk and --vk go together: your own keys, or neither for keys the workers set up")
	}
	return nil
}

// circuitsError words an AddCircuit error: the service's answer, or a
// file of the user's that could not be read.
func circuitsError(what string, err error) error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return rpcError(what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// describeCircuit is one line about an added circuit.
func describeCircuit(c *pb.CircuitInfo) string {
	keys := "keys set up by the workers"
	if c.UserKeys {
		keys = "your own keys"
	}
	on := ""
	if c.Curve != "" && c.Curve != family.CurveName(family.DefaultCurve) {
		on = " on " + c.Curve
	}
	return fmt.Sprintf("%s: %s (pipeline %s)%s, %d constraints, %d public and %d secret inputs, %s, a constraint system of %s, added %s",
		c.CircuitId, c.Family, c.Pipeline, on, c.Constraints, c.PublicInputs, c.SecretInputs, keys,
		fileSize(c.CcsBytes), time.UnixMilli(c.AddedUnixMs).UTC().Format(time.RFC3339))
}

// fileSize is a file's size: bytes below a MiB, else in MiB or GiB.
func fileSize(n uint64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return admission.HumanBytes(n)
}
