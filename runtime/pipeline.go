package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/resources"
	"github.com/prooflane/prooflane/stages"
)

// Pipeline is a validated pipeline: its stages in topological order, the
// resources they lock, and the lock spans. It is a description only: it
// holds each stage's type and config, not the stage itself, which every
// engine built on it constructs for its own (NewEngine). It is immutable
// once loaded and can back several engines.
type Pipeline struct {
	Name        string
	Description string
	// File is the path the pipeline was loaded from; Hash is the sha256 of
	// its bytes (hex), for traces.
	File string
	Hash string
	// Params are the effective parameters (file defaults, then overrides).
	Params map[string]string
	// Devices is the number of devices `{gpu}` resources expand to: the
	// file's `devices:`, or LoadOptions.Devices when the loader was given
	// one. Auto values were sized for it.
	Devices int
	// Cores is the host core count auto values were sized for
	// (LoadOptions.Cores, else this machine's).
	Cores int
	// Auto lists the counts the file left to the machine (`workers:
	// auto`, `capacity: auto`) with what each resolved to for Devices and
	// Cores: resources in file order, then stages in pipeline order. An
	// engine on another device count sizes them again for its own.
	Auto []AutoValue
	// Partitions is the default partition count of a job (the
	// `partitions` parameter, 1 when absent).
	Partitions int
	// MaxInFlight bounds the partitions of one job between their first
	// stage's start and their last stage's end (`max_in_flight:`); 0 takes
	// the engine's default, the worker slots of all stages.
	MaxInFlight int
	Resources   []resources.Decl
	Stages      []*Stage // topological order, ties in file order
	Spans       []*Span

	autoResources []int // indices into Resources of `capacity: auto`
}

// Stage is one stage of a pipeline.
type Stage struct {
	Name    string
	Type    string
	Needs   []*Stage
	Workers int
	// WorkersAuto says the file wrote `workers: auto`: Workers is
	// AutoWorkers' count for the pipeline's devices and cores.
	WorkersAuto bool
	Priority    int
	Locks       []Lock
	Retry       Retry
	// DeviceBound stages run on the partition's device: they lock a
	// `{gpu}` resource, their type asks for a device, or a `{gpu}` span
	// covers them. Their workers count per device.
	DeviceBound bool
	// Config is the stage's `config:` decoded onto its type's defaults and
	// validated; nil when the type takes none. NewEngine hands it to the
	// type's New; every engine built on the pipeline gets the same value,
	// so New must copy what it keeps rather than modify it.
	Config stages.Config
	// DeviceBusy stages keep their device busy while they run, as their
	// type (stages.Factory.Busy) or config (stages.BusyConfig) declares;
	// stage spans record it as prooflane.device_busy.
	DeviceBusy bool

	factory    *stages.Factory
	dependents []*Stage
	inputs     map[stages.DataType]*Stage // who produces each input
	spanStarts []*Span                    // spans acquired when this stage starts
	spanEnds   []*Span                    // spans released when this stage ends
	within     []*Span                    // spans that cover this stage
	index      int
	node       *yaml.Node
}

// Factory returns the stage's type description.
func (s *Stage) Factory() *stages.Factory { return s.factory }

// Lock is a claim on a resource by name as declared (maybe a template).
type Lock struct {
	Resource string
	Weight   int64
	decl     int // index into Pipeline.Resources
	node     *yaml.Node
}

// Templated reports whether the lock names a per-device resource.
func (l Lock) Templated() bool { return isTemplate(l.Resource) }

// Span holds a lock from the start of one stage to the end of another, for
// the same partition.
type Span struct {
	Lock
	From, To *Stage
	Covered  []*Stage // stages on paths From..To, From and To included
	index    int      // in Pipeline.Spans
}

// Retry is a stage's retry policy for errors marked stages.Retryable.
type Retry struct {
	Attempts int           // total runs allowed, 1 = no retry
	Initial  time.Duration // first backoff
	Max      time.Duration // backoff ceiling
}

// position is where s is declared, as problems print it: "file:line:col".
func (p *Pipeline) position(s *Stage) string {
	if s.node == nil {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, s.node.Line, s.node.Column)
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
