package runtime

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/prooflane/prooflane/internal/suggest"
	"github.com/prooflane/prooflane/stages"
)

// This file builds the stage graph: needs resolved to stages, the
// topological order (cycles printed as chains), each input bound to the
// nearest stage producing it, and which stages run on a device.

func (l *loader) resolveNeeds() {
	names := make([]string, 0, len(l.stageByName))
	for n := range l.stageByName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, s := range l.p.Stages {
		for _, nn := range l.needNodes[s] {
			dep, ok := l.stageByName[nn.Value]
			switch {
			case !ok:
				msg := fmt.Sprintf("stage %q needs unknown stage %q", s.Name, nn.Value)
				if sg := suggest.Closest(nn.Value, names); sg != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", sg)
				}
				l.ps.at(nn, "%s", msg)
			case dep == s:
				l.ps.at(nn, "stage %q needs itself", s.Name)
			default:
				s.Needs = append(s.Needs, dep)
				dep.dependents = append(dep.dependents, s)
			}
		}
	}
}

// topoSort orders stages so each comes after its needs (file order among
// equals), reporting each cycle as a chain. It returns false on a cycle.
func (l *loader) topoSort() bool {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*Stage]int{}
	var order, path []*Stage
	ok := true
	var visit func(s *Stage)
	visit = func(s *Stage) {
		switch state[s] {
		case done:
			return
		case active:
			start := 0
			for i, x := range path {
				if x == s {
					start = i
				}
			}
			chain := make([]string, 0, len(path)-start+1)
			for _, x := range path[start:] {
				chain = append(chain, x.Name)
			}
			chain = append(chain, s.Name)
			l.ps.at(s.node, "cycle in needs: %s", strings.Join(chain, " -> "))
			ok = false
			return
		}
		state[s] = active
		path = append(path, s)
		for _, d := range s.Needs {
			visit(d)
		}
		path = path[:len(path)-1]
		state[s] = done
		order = append(order, s)
	}
	for _, s := range l.p.Stages {
		visit(s)
	}
	if ok {
		l.p.Stages = order
		for i, s := range order {
			s.index = i
		}
	}
	return ok
}

// ancestors returns every stage s depends on, directly or not, with its
// distance (1 for a direct need).
func ancestors(s *Stage) map[*Stage]int {
	dist := map[*Stage]int{}
	frontier := s.Needs
	for d := 1; len(frontier) > 0; d++ {
		var next []*Stage
		for _, a := range frontier {
			if _, seen := dist[a]; seen {
				continue
			}
			dist[a] = d
			next = append(next, a.Needs...)
		}
		frontier = next
	}
	return dist
}

// descendants returns every stage that depends on s, directly or not.
func descendants(s *Stage) map[*Stage]bool {
	seen := map[*Stage]bool{}
	stack := append([]*Stage(nil), s.dependents...)
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[d] {
			continue
		}
		seen[d] = true
		stack = append(stack, d.dependents...)
	}
	return seen
}

// nearestProducers returns, for each input type s reads, the stages s
// depends on that produce it at the smallest distance. It walks s's
// ancestors one distance at a time and stops once every input is found,
// so a long chain of stages that read nothing far away costs little (a
// full ancestors() walk per stage made validation quadratic).
func nearestProducers(s *Stage) map[stages.DataType][]*Stage {
	want := map[stages.DataType]bool{}
	for _, in := range s.factory.Inputs {
		want[in] = true
	}
	found := map[stages.DataType][]*Stage{}
	seen := map[*Stage]bool{}
	frontier := s.Needs
	for len(frontier) > 0 && len(want) > 0 {
		var next []*Stage
		for _, a := range frontier {
			if seen[a] {
				continue
			}
			seen[a] = true
			if a.factory != nil && want[a.factory.Output] {
				found[a.factory.Output] = append(found[a.factory.Output], a)
			}
			next = append(next, a.Needs...)
		}
		for t := range found {
			delete(want, t)
		}
		frontier = next
	}
	return found
}

// resolveInputs finds, for each input a stage reads, the nearest stage it
// depends on that produces that type.
func (l *loader) resolveInputs() {
	for _, s := range l.p.Stages {
		if s.factory == nil {
			continue
		}
		s.inputs = map[stages.DataType]*Stage{}
		if len(s.factory.Inputs) == 0 {
			continue
		}
		producers := nearestProducers(s)
		for _, in := range s.factory.Inputs {
			best := producers[in]
			switch len(best) {
			case 1:
				s.inputs[in] = best[0]
			case 0:
				var got []string
				for _, d := range s.Needs {
					if d.factory != nil && d.factory.Output != "" {
						got = append(got, fmt.Sprintf("%s produces %q", d.Name, d.factory.Output))
					}
				}
				msg := fmt.Sprintf("stage %q (type %q) reads %q, but no stage it needs produces it", s.Name, s.Type, in)
				if len(got) > 0 {
					msg += " (" + strings.Join(got, ", ") + ")"
				}
				l.ps.at(s.node, "%s", msg)
			default:
				names := make([]string, len(best))
				for i, b := range best {
					names[i] = strconv.Quote(b.Name)
				}
				sort.Strings(names)
				l.ps.at(s.node, "stage %q reads %q, produced by both %s: make one of them not a need", s.Name, in, strings.Join(names, " and "))
			}
		}
	}
}

func (l *loader) deviceBinding() {
	for _, s := range l.p.Stages {
		for _, lk := range s.Locks {
			if lk.Templated() {
				s.DeviceBound = true
			}
		}
		if s.factory != nil && s.factory.Device {
			s.DeviceBound = true
		}
		if dc, ok := s.Config.(stages.DeviceConfig); ok && dc.NeedsDevice() {
			s.DeviceBound = true
		}
	}
	for _, sp := range l.p.Spans {
		if sp.Templated() {
			for _, s := range sp.Covered {
				s.DeviceBound = true
			}
		}
	}
}
