package runtime

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/internal/suggest"
	"github.com/prooflane/prooflane/resources"
)

// This file decodes what a pipeline declares: its resources, its stages
// with their type, workers, locks, retry policy and config. Cross-references
// between stages (needs, inputs) are resolved in graph.go; spans in
// spans.go.

func (l *loader) resources(n *yaml.Node) {
	ps := l.ps
	if n.Kind != yaml.MappingNode {
		ps.at(n, "resources: want a mapping of name: {capacity: N}, got %s", kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		if _, err := resources.ParseName(name); err != nil {
			ps.at(k, "resource %q: %v", name, err)
			continue
		}
		if _, dup := l.resByName[name]; dup {
			ps.at(k, "resource %q declared twice", name)
			continue
		}
		d := resources.Decl{Name: name, Capacity: 1}
		if v.Tag != "!!null" {
			fields(ps, v, "resource "+strconv.Quote(name), resFields, func(key string, _, fv *yaml.Node) {
				if key == "capacity" {
					c, auto, ok := countOrAuto(ps, fv, "resource "+strconv.Quote(name)+": capacity", 1)
					switch {
					case auto && isTemplate(name):
						ps.at(fv, "resource %q: capacity auto sizes a host resource by the devices it feeds; %q has its own copy on each device: give a number", name, name)
						ok = false
					case auto:
						c = AutoCapacity(l.p.Devices, l.p.Cores)
						l.p.autoResources = append(l.p.autoResources, len(l.p.Resources))
						l.p.Auto = append(l.p.Auto, AutoValue{Resource: name, Value: c, Why: autoCapacityWhy(l.p.Devices, l.p.Cores)})
					}
					if !ok {
						// Already reported; no weight is over an unknown
						// capacity, so nothing piles on that error.
						c = math.MaxInt64
					}
					d.Capacity = c
				}
			})
		}
		l.resByName[name] = len(l.p.Resources)
		l.p.Resources = append(l.p.Resources, d)
		l.resNodes = append(l.resNodes, k)
	}
}

// expansionClashes reports a plain resource whose name is one a template
// expands to ("gpu.1.mem" beside "gpu.{gpu}.mem"): on that device the two
// would be one name, and the engine could not be built.
func (l *loader) expansionClashes() {
	for _, t := range l.p.Resources {
		if !isTemplate(t.Name) {
			continue
		}
		for j, r := range l.p.Resources {
			if device, ok := expansionOf(t.Name, r.Name); ok {
				l.ps.at(l.resNodes[j], "resource %q is the name %q takes on device %d: rename it (the two would clash with %d or more devices)", r.Name, t.Name, device, device+1)
			}
		}
	}
}

// expansionOf reports whether name is what template expands to on some
// device, and which.
func expansionOf(template, name string) (device int, ok bool) {
	if !isTemplate(template) || isTemplate(name) {
		return 0, false
	}
	tseg, nseg := strings.Split(template, "."), strings.Split(name, ".")
	if len(tseg) != len(nseg) {
		return 0, false
	}
	device = -1
	for k := range tseg {
		if tseg[k] == resources.GPUPlaceholder {
			d, err := strconv.Atoi(nseg[k])
			if err != nil || d < 0 || strconv.Itoa(d) != nseg[k] {
				return 0, false
			}
			device = d
		} else if tseg[k] != nseg[k] {
			return 0, false
		}
	}
	return device, device >= 0
}

func (l *loader) stages(n *yaml.Node) {
	ps := l.ps
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		ps.at(n, "stages: want a mapping of stage name: {type: ..., ...}, got %s", kindName(n))
		return
	}
	l.needNodes = map[*Stage][]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		s := &Stage{Name: k.Value, Workers: 1, Retry: defaultRetry, node: k, index: i / 2}
		what := "stage " + strconv.Quote(s.Name)
		if !stageNameRe.MatchString(s.Name) {
			ps.at(k, "%s: want a lower_snake_case name", what)
		}
		if _, dup := l.stageByName[s.Name]; dup {
			ps.at(k, "%s declared twice", what)
			continue
		}
		l.stageByName[s.Name] = s
		var configNode *yaml.Node
		fields(ps, v, what, stageFields, func(key string, fk, fv *yaml.Node) {
			switch key {
			case "type":
				if fv.Kind == yaml.ScalarNode && fv.Tag != "!!null" && fv.Value == "" {
					ps.at(fv, "%s: type is empty (list the types: prooflane stages)", what)
					return
				}
				s.Type = str(ps, fv, what+": type")
				if s.Type == "" {
					return
				}
				f, ok := l.reg.Lookup(s.Type)
				if !ok {
					msg := fmt.Sprintf("%s: unknown stage type %q", what, s.Type)
					if sg := suggest.Closest(s.Type, l.reg.Types()); sg != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", sg)
					}
					ps.at(fv, "%s", msg)
					return
				}
				s.factory = f
			case "needs":
				l.needNodes[s] = stringList(ps, fv, what+": needs")
			case "workers":
				// auto is sized in resolveAuto, once the stage's device
				// binding is known.
				if w, auto, ok := countOrAuto(ps, fv, what+": workers", 1); ok {
					s.Workers, s.WorkersAuto = int(w), auto
				}
			case "priority":
				if pr, ok := integer(ps, fv, what+": priority", -1000); ok {
					s.Priority = int(pr)
				}
			case "locks":
				s.Locks = l.locks(fv, what)
			case "retry":
				l.retry(fv, what, &s.Retry)
			case "config":
				configNode = fv
			}
		})
		if v.Kind == yaml.MappingNode && !hasKey(v, "type") {
			ps.at(k, "%s: missing field \"type\"", what)
		}
		if s.factory != nil {
			l.config(s, configNode, what)
		}
		l.p.Stages = append(l.p.Stages, s)
	}
}

func (l *loader) config(s *Stage, n *yaml.Node, what string) {
	f := s.factory
	if f.NewConfig == nil {
		if n != nil && n.Tag != "!!null" {
			l.ps.at(n, "%s: type %q takes no config", what, s.Type)
		}
		return
	}
	cfg := f.NewConfig()
	if n != nil && n.Tag != "!!null" {
		if !decodeConfig(l.ps, n, cfg, what+": config") {
			return
		}
	}
	if err := cfg.Validate(); err != nil {
		at := n
		if at == nil {
			at = s.node
		}
		l.ps.at(at, "%s: config: %v", what, err)
		return
	}
	s.Config = cfg
}

func (l *loader) locks(n *yaml.Node, what string) []Lock {
	ps := l.ps
	if n.Kind != yaml.SequenceNode {
		ps.at(n, "%s: locks: want a list of resource names or {name: weight}, got %s", what, kindName(n))
		return nil
	}
	var out []Lock
	for _, e := range n.Content {
		lk := Lock{Weight: 1, node: e}
		switch {
		case e.Kind == yaml.ScalarNode && e.Tag != "!!null":
			lk.Resource = e.Value
		case e.Kind == yaml.MappingNode && len(e.Content) == 2:
			lk.Resource = e.Content[0].Value
			w, ok := integer(ps, e.Content[1], what+": lock "+strconv.Quote(lk.Resource)+": weight", 1)
			if !ok {
				continue
			}
			lk.Weight = w
		default:
			ps.at(e, "%s: locks: want a resource name or {name: weight}, got %s", what, kindName(e))
			continue
		}
		if l.resolveLock(&lk, what) {
			out = append(out, lk)
		}
	}
	// Two claims on one resource add up; check their sum too, exactly:
	// two weights of MaxInt64 must not wrap round to pass.
	sum := map[int]*weightSum{}
	for _, lk := range out {
		if sum[lk.decl] == nil {
			sum[lk.decl] = &weightSum{}
		}
		total := sum[lk.decl]
		total.add(lk.Weight)
		if d := l.p.Resources[lk.decl]; total.above(d.Capacity) && lk.Weight <= d.Capacity {
			ps.at(lk.node, "%s: locks %q %s times over in total, above its capacity %s", what, lk.Resource, total.String(), l.capacityText(lk.decl))
		}
	}
	return out
}

// resolveLock checks that a lock names a declared resource within capacity.
func (l *loader) resolveLock(lk *Lock, what string) bool {
	i, ok := l.resByName[lk.Resource]
	if !ok {
		names := make([]string, 0, len(l.resByName))
		for n := range l.resByName {
			names = append(names, n)
		}
		sort.Strings(names)
		msg := fmt.Sprintf("%s: lock on unknown resource %q", what, lk.Resource)
		template := ""
		for _, n := range names {
			if _, ok := expansionOf(n, lk.Resource); ok {
				template = n
			}
		}
		if template != "" {
			msg += fmt.Sprintf(" (lock %q: {gpu} stands for the device the partition is placed on)", template)
		} else if s := suggest.Closest(lk.Resource, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		} else if len(names) == 0 {
			msg += " (the pipeline declares no resources)"
		}
		l.ps.at(lk.node, "%s", msg)
		return false
	}
	lk.decl = i
	if c := l.p.Resources[i].Capacity; lk.Weight > c {
		l.ps.at(lk.node, "%s: weight %d on %q is above its capacity %s: it could never be granted", what, lk.Weight, lk.Resource, l.capacityText(i))
		return false
	}
	return true
}

// capacityText is resource i's capacity as problems print it, saying
// when auto gave it (and for how many devices: more would give more).
func (l *loader) capacityText(i int) string {
	c := strconv.FormatInt(l.p.Resources[i].Capacity, 10)
	if slices.Contains(l.p.autoResources, i) {
		c += fmt.Sprintf(" (auto, for %s)", plural(l.p.Devices, "device"))
	}
	return c
}

func (l *loader) retry(n *yaml.Node, what string, r *Retry) {
	ps := l.ps
	before := len(ps.list)
	fields(ps, n, what+": retry", retryFields, func(key string, _, v *yaml.Node) {
		switch key {
		case "attempts":
			if a, ok := integer(ps, v, what+": retry: attempts", 1); ok {
				r.Attempts = int(a)
			}
		case "initial":
			if d, ok := duration(ps, v, what+": retry: initial"); ok {
				r.Initial = d
			}
		case "max":
			if d, ok := duration(ps, v, what+": retry: max"); ok {
				r.Max = d
			}
		}
	})
	if len(ps.list) == before && r.Max < r.Initial {
		ps.at(n, "%s: retry: max %s is below initial %s", what, r.Max, r.Initial)
	}
}

func isTemplate(name string) bool { return strings.Contains(name, "{gpu}") }
