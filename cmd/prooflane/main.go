// Command prooflane validates, draws, runs and analyses proof pipelines.
//
// Conventions every subcommand follows: help asked for (-h, --help,
// `prooflane help CMD`) goes to stdout and exits 0; a mistake on the
// command line (an unknown flag, a bad flag value, a missing or extra
// argument) prints the reason first (with the closest command, flag or
// pipeline name when one is near), then one usage line and where the help
// is, on stderr, and exits 2; a failure of the work itself exits 1.
// Flags and arguments come in any order; `--` ends the flags.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/prooflane/prooflane/internal/suggest"
)

// command is one subcommand. run gets the arguments after the subcommand
// name and returns an error to print; errSilent exits non-zero quietly
// (the command already said why). subcommands are the words its first
// argument may be (trace send, keys preload): `prooflane help CMD SUB`
// takes them, and CMD's help covers them.
type command struct {
	summary     string
	run         func(args []string, stdout, stderr io.Writer) error
	subcommands []string
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

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the work failed: a bad pipeline, a failed proof, I/O
	exitUsage   = 2 // the command line is wrong
)

func mainRC(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return mainRC(append([]string{"version"}, args[1:]...), stdout, stderr)
	case "help":
		return help(args[1:], stdout, stderr)
	}
	name := args[0]
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "prooflane: unknown command %q%s\n", name, suggestCommand(name))
		fmt.Fprintln(stderr, "see 'prooflane help' for the commands")
		return exitUsage
	}
	return report(name, c.run(args[1:], stdout, stderr), stdout, stderr)
}

// report turns a command's error into output and an exit code.
func report(name string, err error, stdout, stderr io.Writer) int {
	var hr helpRequest
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &hr):
		hr.fs.SetOutput(stdout)
		hr.fs.Usage()
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "prooflane %s: %v\n", name, ue.err)
		if ue.fs != nil {
			fmt.Fprintln(stderr, usageLine(ue.fs))
		}
		fmt.Fprintf(stderr, "see 'prooflane help %s'\n", name)
		return exitUsage
	case errors.Is(err, errSilent):
		return exitFailure
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	default:
		fmt.Fprintf(stderr, "prooflane %s: %v\n", name, err)
		return exitFailure
	}
}

// help prints the top-level usage, or one command's (with a subcommand:
// `help trace send`), to stdout.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (len(args) == 1 && args[0] == "help") {
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "prooflane help: unknown command %q%s\nsee 'prooflane help' for the commands\n", args[0], suggestCommand(args[0]))
		return exitUsage
	}
	switch {
	case len(args) > 2 || (len(args) == 2 && len(c.subcommands) == 0):
		fmt.Fprintf(stderr, "prooflane help: want one command, got %q\nsee 'prooflane help'\n", args)
		return exitUsage
	case len(args) == 2 && !slices.Contains(c.subcommands, args[1]):
		fmt.Fprintf(stderr, "prooflane help %s: unknown subcommand %q%s (want %s)\nsee 'prooflane help %s'\n",
			args[0], args[1], didYouMean(args[1], c.subcommands, ""), strings.Join(c.subcommands, " or "), args[0])
		return exitUsage
	}
	// Every command answers -h with a helpRequest before doing any work,
	// wherever the -h is among its arguments.
	return report(args[0], c.run(append(slices.Clone(args[1:]), "-h"), io.Discard, io.Discard), stdout, stderr)
}

// suggestCommand is " (did you mean "prove"?)" for a misspelt command
// name: one it starts, that starts it, or the closest by edit distance.
func suggestCommand(name string) string {
	names := commandNames()
	for _, n := range names {
		if strings.HasPrefix(n, name) || strings.HasPrefix(name, n) {
			return fmt.Sprintf(" (did you mean %q?)", n)
		}
	}
	return didYouMean(name, names, "")
}

// didYouMean is ` (did you mean "x"?)` for the candidate closest to
// word, or "" when none is close; with a flag's dashes as prefix it is
// " (did you mean --x?)".
func didYouMean(word string, candidates []string, prefix string) string {
	s := suggest.Closest(word, candidates)
	switch {
	case s == "":
		return ""
	case prefix == "":
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Sprintf(" (did you mean %s%s?)", prefix, s)
}

// plural is "1 device", "2 devices".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// familyList is the registered proof families' names, for summaries.
func familyList() string {
	return strings.Join(shipped.families().Names(), ", ")
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: prooflane <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nA pipeline argument is a file, or the name of a pipeline embedded in the binary")
	fmt.Fprintln(w, "(`prooflane pipelines` lists them); a file that exists wins over a name.")
	fmt.Fprintln(w, "gnark's own logging is silenced; prooflane prints one-line summaries.")
	fmt.Fprintln(w, "Exit codes: 0 done, 1 the work failed, 2 a mistake on the command line.")
	fmt.Fprintln(w, "\nrun 'prooflane help <command>' (or 'prooflane <command> -h') for a command's flags")
}

// newFlags returns a FlagSet for a subcommand that reports errors instead
// of exiting or printing: parseFlags turns them into a usageError or a
// helpRequest, which main prints. fs.Usage prints the full help to the
// set's output (stderr, or stdout when help was asked for).
func newFlags(name, argsUsage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("prooflane "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, strings.TrimSpace(fmt.Sprintf("usage: prooflane %s [flags] %s", name, argsUsage)))
		cmd, _, _ := strings.Cut(name, " ") // "trace send" is trace's
		if s, ok := commands[cmd]; ok {
			fmt.Fprintf(w, "\n%s\n", s.summary)
		}
		if hasFlags(fs) {
			fmt.Fprintln(w, "\nflags:")
			printDefaults(fs, w)
		}
	}
	return fs
}

// hiddenPrefix starts the usage of a flag kept only for old scripts; help
// does not list it.
const hiddenPrefix = "deprecated: "

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Usage, hiddenPrefix) {
			n++
		}
	})
	return n > 0
}

// printDefaults is flag's PrintDefaults without the hidden flags.
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, hiddenPrefix) {
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
}

// usageLine is the first line of a FlagSet's usage.
func usageLine(fs *flag.FlagSet) string {
	var b bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&b)
	fs.Usage()
	fs.SetOutput(out)
	line, _, _ := strings.Cut(b.String(), "\n")
	return line
}

// usageError is a mistake on the command line: main prints the reason,
// the usage line (when fs is set) and where the help is, and exits 2.
type usageError struct {
	err error
	fs  *flag.FlagSet
}

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usageErrorf returns a usageError with a formatted reason.
func usageErrorf(fs *flag.FlagSet, format string, args ...any) error {
	return usageError{err: fmt.Errorf(format, args...), fs: fs}
}

// helpRequest is -h or --help: main prints fs's help to stdout, exit 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h helpRequest) Error() string { return "help requested" }
func (h helpRequest) Unwrap() error { return flag.ErrHelp }

// parseFlags parses a subcommand's flags: a mistake becomes a usageError
// (exit 2, the reason printed once; an unknown flag with the closest
// known one), -h a helpRequest (help on stdout, exit 0). Flags and
// arguments may come in any order (`trace send FILE --endpoint X`);
// after `--` every argument is positional. fs.Args() is then the
// positional arguments in their order.
func parseFlags(fs *flag.FlagSet, args []string) error {
	flags, positional, complete := splitArgs(fs, args)
	if complete && len(positional) > 0 {
		flags = append(append(flags, "--"), positional...)
	}
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the reason and the whole usage
	err := fs.Parse(flags)
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return helpRequest{fs}
	case err != nil:
		return usageError{err: suggestFlag(fs, err), fs: fs}
	}
	return nil
}

// splitArgs separates a command line into its flags (with their values)
// and its positional arguments, as the flag package reads each flag: a
// flag that is not a boolean takes the next argument as its value unless
// it has one after "=". complete is false when the last flag wants a
// value and has none: parsing the flags alone then reports it.
func splitArgs(fs *flag.FlagSet, args []string) (flags, positional []string, complete bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(positional, args[i+1:]...), true
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // unknown (or -h): Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 == len(args) {
			return flags, positional, false
		}
		i++
		flags = append(flags, args[i])
	}
	return flags, positional, true
}

// suggestFlag adds the closest known flag to the flag package's error for
// an unknown one.
func suggestFlag(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Usage, hiddenPrefix) {
			known = append(known, f.Name)
		}
	})
	if s := didYouMean(name, known, "--"); s != "" {
		return fmt.Errorf("%w%s", err, s)
	}
	return err
}

// deprecatedAlias registers old as a hidden spelling of the flag now
// called name: it sets the same value and warns on stderr.
func deprecatedAlias(fs *flag.FlagSet, old, name string, stderr io.Writer) {
	f := fs.Lookup(name)
	fs.Var(aliasValue{f.Value, func() {
		fmt.Fprintf(stderr, "prooflane: warning: --%s is deprecated, use --%s\n", old, name)
	}}, old, hiddenPrefix+"use --"+name+"; "+f.Usage)
}

type aliasValue struct {
	flag.Value
	warn func()
}

func (a aliasValue) Set(s string) error {
	a.warn()
	return a.Value.Set(s)
}

// signalContext is cancelled by Ctrl-C, SIGTERM (what systemd and
// Kubernetes send) or SIGHUP: the running job stops, and its trace is still written.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
