// Package pipelines holds the pipeline files shipped with prooflane,
// embedded in every binary that imports it, so a pipeline can be named
// ("groth16") from any directory instead of found by path.
//
// Source resolves what a user typed: an existing file wins, otherwise a
// name (with or without ".yaml") of an embedded pipeline. An embedded
// pipeline's problems are reported against "embedded:NAME.yaml", so a
// message still names the file, line and column. The package reads and
// lists files; parse the bytes with runtime.Parse.
package pipelines

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/internal/suggest"
)

//go:embed *.yaml
var files embed.FS

// Prefix starts the file name that problems in an embedded pipeline are
// reported against: "embedded:groth16.yaml:12:3: ...".
const Prefix = "embedded:"

// MaxFileSize bounds a pipeline file read from disk by Source; the shipped
// ones are a few KiB.
const MaxFileSize = 1 << 20

// Info describes one embedded pipeline.
type Info struct {
	// Name is what --pipeline takes: the file name without ".yaml".
	Name string
	// File is the name problems are reported against (Prefix + file).
	File string
	// Pipeline is the file's `pipeline:` name, shown in traces.
	Pipeline string
	// Description is the file's `description:`, folded onto one line.
	Description string
	// Summary is the description's first sentence.
	Summary string
}

// List returns the embedded pipelines, sorted by name.
func List() []Info {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("pipelines: embedded directory unreadable: " + err.Error()) // cannot happen: the FS is compiled in
	}
	var out []Info
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		src, _ := files.ReadFile(e.Name())
		var head struct {
			Pipeline    string `yaml:"pipeline"`
			Description string `yaml:"description"`
		}
		_ = yaml.Unmarshal(src, &head) // a broken file still lists; loading it reports the problem
		desc := strings.Join(strings.Fields(head.Description), " ")
		summary, _, _ := strings.Cut(desc, ". ")
		out = append(out, Info{
			Name: name, File: Prefix + e.Name(), Pipeline: head.Pipeline,
			Description: desc, Summary: strings.TrimSuffix(summary, "."),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the embedded pipelines' names, sorted.
func Names() []string {
	var names []string
	for _, i := range List() {
		names = append(names, i.Name)
	}
	return names
}

// retired are the names of pipelines shipped before, and where their
// purpose went.
var retired = map[string]string{
	"vcommit": "it was a toy second proof family, a vector commitment; PLONK is the second family now (pipelines plonk, plonk-single-lock), and the vector commitment lives on as an example of a stage family of one's own in stages/example/vcommit",
}

// ErrNotFound is what Open's and Source's errors wrap (errors.Is) when
// the name is no embedded pipeline (and, for Source, no file either): a
// mistake in what the user typed. The message names the closest
// embedded pipeline when one is near.
var ErrNotFound = errors.New("no such pipeline")

// notFound is an ErrNotFound with its own message.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == ErrNotFound }

// closest is `did you mean "groth16"? ` for the embedded pipeline
// nearest to name, or "".
func closest(name string) string {
	if s := suggest.Closest(strings.TrimSuffix(name, ".yaml"), Names()); s != "" {
		return fmt.Sprintf("did you mean %q? ", s)
	}
	return ""
}

// Open returns the bytes of the embedded pipeline called name ("groth16"
// or "groth16.yaml") and the file name its problems are reported against.
func Open(name string) (file string, src []byte, err error) {
	base := strings.TrimSuffix(name, ".yaml")
	if base != "" && !strings.ContainsAny(base, `/\`) && base == path.Clean(base) {
		if src, err = files.ReadFile(base + ".yaml"); err == nil {
			return Prefix + base + ".yaml", src, nil
		}
	}
	return "", nil, notFound(fmt.Sprintf("no embedded pipeline %q (%sembedded: %s)", name, closest(name), strings.Join(Names(), ", ")))
}

// Source resolves a --pipeline value or a pipeline argument: a file that
// exists is read (a path wins over a name), otherwise arg is looked up
// among the embedded pipelines. file is what problems are reported
// against: arg itself for a file, "embedded:NAME.yaml" for an embedded one.
func Source(arg string) (file string, src []byte, err error) {
	fi, statErr := os.Stat(arg)
	if statErr == nil {
		if fi.IsDir() {
			return "", nil, fmt.Errorf("pipeline %q is a directory, not a pipeline file", arg)
		}
		if fi.Size() > MaxFileSize {
			return "", nil, fmt.Errorf("pipeline %q: %d bytes, over the limit of %d for a pipeline file", arg, fi.Size(), MaxFileSize)
		}
		src, err := readBounded(arg)
		if err != nil {
			return "", nil, fmt.Errorf("load pipeline: %w", err)
		}
		return arg, src, nil
	}
	if !errors.Is(statErr, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("load pipeline: %w", statErr)
	}
	if file, src, err := Open(arg); err == nil {
		return file, src, nil
	}
	if why, ok := retired[strings.TrimSuffix(arg, ".yaml")]; ok {
		return "", nil, notFound(fmt.Sprintf("pipeline %q is no longer shipped: %s", arg, why))
	}
	return "", nil, notFound(fmt.Sprintf("pipeline %q: no such file, and no embedded pipeline of that name (%sembedded: %s; `prooflane pipelines` lists them)",
		arg, closest(arg), strings.Join(Names(), ", ")))
}

// readBounded reads a pipeline file when it is a regular file (a FIFO
// is refused, not waited on), refusing one over MaxFileSize (the size
// from Stat can change before the read).
func readBounded(name string) ([]byte, error) {
	src, err := regfile.ReadFile(name, MaxFileSize)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: over the limit of %d bytes for a pipeline file", name, MaxFileSize)
	}
	return src, err
}
