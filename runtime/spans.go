package runtime

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/internal/suggest"
)

// This file decodes `spans:` and checks that each span's lock covers a
// connected run of stages.

func (l *loader) spans(n *yaml.Node) {
	ps := l.ps
	if n.Kind != yaml.SequenceNode {
		ps.at(n, "spans: want a list of {lock, from, to}, got %s", kindName(n))
		return
	}
	for i, e := range n.Content {
		what := fmt.Sprintf("spans[%d]", i)
		sp := &Span{Lock: Lock{Weight: 1, node: e}}
		var fromN, toN *yaml.Node
		fields(ps, e, what, spanFields, func(key string, _, v *yaml.Node) {
			switch key {
			case "lock":
				sp.Resource = str(ps, v, what+": lock")
				sp.node = v
			case "weight":
				if w, ok := integer(ps, v, what+": weight", 1); ok {
					sp.Weight = w
				}
			case "from":
				fromN = v
			case "to":
				toN = v
			}
		})
		if e.Kind != yaml.MappingNode {
			continue
		}
		for _, req := range []struct {
			n    *yaml.Node
			name string
		}{{fromN, "from"}, {toN, "to"}} {
			if req.n == nil {
				ps.at(e, "%s: missing field %q", what, req.name)
			}
		}
		if sp.Resource == "" || fromN == nil || toN == nil {
			continue
		}
		what = fmt.Sprintf("span of %q", sp.Resource)
		okLock := l.resolveLock(&sp.Lock, what)
		sp.From, sp.To = l.spanEnd(fromN, what, "from"), l.spanEnd(toN, what, "to")
		if !okLock || sp.From == nil || sp.To == nil {
			continue
		}
		if sp.From != sp.To {
			if _, ok := ancestors(sp.To)[sp.From]; !ok {
				ps.at(toN, "%s: %q does not lead to %q through needs, so the span would not cover a connected run of stages", what, sp.From.Name, sp.To.Name)
				continue
			}
		}
		// Covered: From, To, and the stages after From and before To. One
		// walk each way, not an ancestors() walk per stage (quadratic: a
		// 20,000-stage chain with a span took 65 s to validate).
		anc, desc := ancestors(sp.To), descendants(sp.From)
		for _, s := range l.p.Stages {
			_, under := anc[s]
			if s == sp.From || s == sp.To || under && desc[s] {
				sp.Covered = append(sp.Covered, s)
				s.within = append(s.within, sp)
			}
		}
		sp.index = len(l.p.Spans)
		sp.From.spanStarts = append(sp.From.spanStarts, sp)
		sp.To.spanEnds = append(sp.To.spanEnds, sp)
		l.p.Spans = append(l.p.Spans, sp)
	}
}

func (l *loader) spanEnd(n *yaml.Node, what, field string) *Stage {
	name := str(l.ps, n, what+": "+field)
	if name == "" {
		return nil
	}
	s, ok := l.stageByName[name]
	if !ok {
		names := make([]string, 0, len(l.stageByName))
		for k := range l.stageByName {
			names = append(names, k)
		}
		msg := fmt.Sprintf("%s: %s: unknown stage %q", what, field, name)
		if sg := suggest.Closest(name, names); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		l.ps.at(n, "%s", msg)
		return nil
	}
	return s
}
