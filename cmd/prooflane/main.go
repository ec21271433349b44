// Command prooflane validates, draws, runs and analyses proof pipelines.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand. run gets the arguments after the subcommand
// name and returns an error to print; errSilent exits non-zero quietly
// (the command already said why).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var errSilent = errors.New("silent failure")

// commands is the explicit list of subcommands; each lives in its own file.
var commands = map[string]command{}

func register(name string, c command) {
	if _, dup := commands[name]; dup {
		panic("prooflane: command registered twice: " + name)
	}
	commands[name] = c
}

func main() {
	os.Exit(mainRC(os.Args[1:], os.Stdout, os.Stderr))
}

func mainRC(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "prooflane: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		var ue usageError
		switch {
		case errors.As(err, &ue):
			return 2 // the flag package has printed the mistake and the usage
		case errors.Is(err, errSilent):
		case errors.Is(err, flag.ErrHelp):
			return 0
		default:
			fmt.Fprintf(stderr, "prooflane %s: %v\n", args[0], err)
		}
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: prooflane <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'prooflane <command> -h' for a command's flags")
}

// newFlags returns a FlagSet for a subcommand that reports errors instead
// of exiting.
func newFlags(name, argsUsage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("prooflane "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, strings.TrimSpace(fmt.Sprintf("usage: prooflane %s [flags] %s", name, argsUsage)))
		fs.PrintDefaults()
	}
	return fs
}

// usageError is a command-line mistake that the flag package has already
// reported, with the command's usage, on stderr.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// parseFlags parses a subcommand's flags; a mistake becomes a usageError
// (exit 2, printed once), -h stays flag.ErrHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return usageError{err}
	}
	return err
}

// signalContext is cancelled by Ctrl-C, SIGTERM (what systemd and
// Kubernetes send) or SIGHUP: the running job stops, and its trace is still written.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
