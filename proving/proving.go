// Package proving is the one path from a pipeline and a proof family's job
// to proof files that leave the process: which family a pipeline makes the
// proofs of, its final proof stage, and each partition's files out of an
// engine's result, every proof checked once by the family's verifier (by
// the final stage itself when its config says it does, here otherwise).
// The library, the commands and the service's workers all take it.
package proving

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages"
	"github.com/prooflane/prooflane/stages/family"
)

// Pipeline is a parsed pipeline with the proof family whose proofs it
// makes.
type Pipeline struct {
	*runtime.Pipeline
	Family family.Prover
	// Final is the final stage that outputs the family's proof (the
	// first in declaration order, when there are several).
	Final string
	// Verified says every final proof stage checks its proof with the
	// family's verifier before returning it (stages.VerifyConfig), so
	// the files need no second check.
	Verified bool
}

// Resolve returns p with its proof family from fams: the one family whose
// prefix p's non-generic stage types share, a family.Prover, with a final
// stage (one no other stage needs) that outputs the family's proof.
// Errors name the pipeline's file.
func Resolve(p *runtime.Pipeline, fams *family.Registry) (*Pipeline, error) {
	f, err := Of(p, fams)
	if err != nil {
		return nil, err
	}
	fp, ok := f.(family.Prover)
	if !ok {
		return nil, fmt.Errorf("%s: pipeline %q is of the %s family, which makes no proofs prooflane writes (a family.Prover): run it with `prooflane run`", p.File, p.Name, f.Name())
	}
	final := FinalProofStages(p, f)
	if len(final) == 0 {
		return nil, fmt.Errorf("%s: pipeline %q makes no %s proof: none of its final stages outputs %s", p.File, p.Name, f.Name(), f.ProofType())
	}
	return &Pipeline{Pipeline: p, Family: fp, Final: final[0], Verified: StagesVerify(p, f)}, nil
}

// Of returns the family of pipeline p: the one family whose prefix its
// non-generic stage types share. A pipeline with no such type, with types
// of two families, or of a prefix no family registered is refused with an
// error naming the pipeline file.
func Of(p *runtime.Pipeline, fams *family.Registry) (family.Family, error) {
	var prefixes, types []string
	for _, s := range p.Stages {
		types = append(types, s.Type)
		prefix, _, ok := strings.Cut(s.Type, ".")
		if !ok || slices.Contains(family.Generic, prefix) || slices.Contains(prefixes, prefix) {
			continue
		}
		prefixes = append(prefixes, prefix)
	}
	sort.Strings(prefixes)
	slices.Sort(types)
	types = slices.Compact(types)
	switch len(prefixes) {
	case 0:
		return nil, fmt.Errorf("%s: pipeline %q makes no proof: its stage types (%s) belong to no proof family (%s)",
			p.File, p.Name, strings.Join(types, ", "), strings.Join(fams.Names(), ", "))
	case 1:
	default:
		return nil, fmt.Errorf("%s: pipeline %q mixes the stage types of families %s: a pipeline makes the proofs of one family",
			p.File, p.Name, strings.Join(prefixes, " and "))
	}
	f, ok := fams.Lookup(prefixes[0])
	if !ok {
		return nil, fmt.Errorf("%s: pipeline %q: stage type prefix %q is no registered proof family (%s)",
			p.File, p.Name, prefixes[0], strings.Join(fams.Names(), ", "))
	}
	return f, nil
}

// FinalProofStages returns the names of p's final stages (those no other
// stage needs) whose output is f's proof type, in declaration order.
func FinalProofStages(p *runtime.Pipeline, f family.Family) []string {
	var names []string
	for _, s := range finalStages(p, f) {
		names = append(names, s.Name)
	}
	return names
}

func finalStages(p *runtime.Pipeline, f family.Family) []*runtime.Stage {
	needed := map[*runtime.Stage]bool{}
	for _, s := range p.Stages {
		for _, n := range s.Needs {
			needed[n] = true
		}
	}
	var out []*runtime.Stage
	for _, s := range p.Stages {
		if !needed[s] && s.Factory().Output == f.ProofType() {
			out = append(out, s)
		}
	}
	return out
}

// StagesVerify reports whether every one of p's final proof stages (there
// is at least one) checks its proof with the family's verifier before
// returning it (its config is a stages.VerifyConfig that says so): then a
// path that hands the proofs on need not check them again; else it
// checks each one itself, with Job.Verify, before any leaves.
func StagesVerify(p *runtime.Pipeline, f family.Family) bool {
	final := finalStages(p, f)
	if len(final) == 0 {
		return false
	}
	for _, s := range final {
		vc, ok := s.Config.(stages.VerifyConfig)
		if !ok || !vc.VerifiesOutput() {
			return false
		}
	}
	return true
}

// Output returns the final proof stage's output among a partition's
// outputs.
func (p *Pipeline) Output(partition int, outputs map[string]any) (any, error) {
	out, ok := outputs[p.Final]
	if !ok {
		names := make([]string, 0, len(outputs))
		for n := range outputs {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("partition %d: pipeline %q produced no %s proof (outputs %s)", partition, p.Name, p.Family.Name(), strings.Join(names, ", "))
	}
	return out, nil
}

// PartitionFiles returns a partition's files from its outputs, checked by
// job's verifier unless the final stage checked the proof: a proof that
// does not verify is an error, never files.
func (p *Pipeline) PartitionFiles(job family.Job, partition int, outputs map[string]any) (family.Files, error) {
	out, err := p.Output(partition, outputs)
	if err != nil {
		return family.Files{}, err
	}
	files, err := job.Files(partition, out)
	if err != nil {
		return family.Files{}, err
	}
	if !p.Verified {
		if err := job.Verify(partition, files); err != nil {
			return family.Files{}, fmt.Errorf("partition %d: %w", partition, err)
		}
	}
	return files, nil
}

// Files returns each partition's files of an engine's result of job, in
// partition order, each checked once (PartitionFiles).
func (p *Pipeline) Files(job family.Job, res *runtime.Result) ([]family.Files, error) {
	out := make([]family.Files, len(res.Partitions))
	for _, r := range res.Partitions {
		if r.Index < 0 || r.Index >= len(out) {
			return nil, fmt.Errorf("partition %d of %d", r.Index, len(out))
		}
		f, err := p.PartitionFiles(job, r.Index, r.Outputs)
		if err != nil {
			return nil, err
		}
		out[r.Index] = f
	}
	return out, nil
}
