package runtime

import (
	"fmt"

	"github.com/prooflane/prooflane/stages"
)

// ReplaceFunc picks the implementation an engine runs for a stage in place
// of the one its type builds: it returns nil to keep the stage's own. The
// stage keeps everything else the pipeline says (name, type, needs, locks,
// workers, spans, retries, and DeviceBound as its config decided it), so
// a replacement runs under the same schedule and shows in the trace under
// the same stage and type, busy declaration included; only what Run does
// changes, and the stage's own implementation is not run. Replace is
// called once per stage, in pipeline order, from NewEngine. `prooflane
// simulate` uses it to replay recorded run times through a layout.
type ReplaceFunc func(s *Stage) (stages.Stage, error)

// implementations returns the stage implementations an engine runs, by
// Stage.index: each stage's own, or replace's choice when replace is set.
func implementations(p *Pipeline, replace ReplaceFunc) ([]stages.Stage, error) {
	impls := make([]stages.Stage, len(p.Stages))
	for _, s := range p.Stages {
		impls[s.index] = s.impl
		if replace == nil {
			continue
		}
		r, err := replace(s)
		if err != nil {
			return nil, fmt.Errorf("pipeline %q: stage %q: replacing its implementation: %w", p.Name, s.Name, err)
		}
		if r != nil {
			impls[s.index] = r
		}
	}
	for _, s := range p.Stages {
		if impls[s.index] == nil {
			return nil, fmt.Errorf("pipeline %q: stage %q (%s) has no implementation (a Pipeline not made by Parse or Load?)", p.Name, s.Name, s.Type)
		}
	}
	return impls, nil
}
