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

// construct returns the implementation an engine runs for s: replace's
// choice when it makes one (the type's New is then not called, so a
// replayed stage needs none of what its own would, a backend included),
// else the one s's type builds from s's Config. Errors name the stage, and
// a constructor's its position in the pipeline file.
func construct(p *Pipeline, s *Stage, replace ReplaceFunc) (stages.Stage, error) {
	if replace != nil {
		r, err := replace(s)
		if err != nil {
			return nil, fmt.Errorf("pipeline %q: stage %q: replacing its implementation: %w", p.Name, s.Name, err)
		}
		if r != nil {
			return r, nil
		}
	}
	impl, err := s.factory.New(s.Config)
	if err == nil && impl == nil {
		err = fmt.Errorf("type %q: New returned no stage and no error", s.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: stage %q: %w", p.position(s), s.Name, err)
	}
	return impl, nil
}
