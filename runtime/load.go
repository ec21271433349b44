package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/internal/suggest"
	"github.com/prooflane/prooflane/resources"
	"github.com/prooflane/prooflane/stages"
)

// Load reads a pipeline file and validates it against a registry. params
// override the file's `params:` defaults (the CLI's --set k=v). On a
// validation failure the error is a *ValidationError listing every problem.
func Load(path string, reg *stages.Registry, params map[string]string) (*Pipeline, error) {
	src, err := readCapped(path, MaxPipelineBytes)
	if err != nil {
		return nil, fmt.Errorf("load pipeline: %w", err)
	}
	return Parse(path, src, reg, params)
}

var (
	topFields    = []string{"pipeline", "description", "params", "devices", "max_in_flight", "resources", "stages", "spans"}
	stageFields  = []string{"type", "needs", "workers", "priority", "locks", "retry", "config", "description"}
	resFields    = []string{"capacity", "description"}
	spanFields   = []string{"lock", "weight", "from", "to"}
	retryFields  = []string{"attempts", "initial", "max"}
	stageNameRe  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	paramNameRe  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	defaultRetry = Retry{Attempts: 1, Initial: 100 * time.Millisecond, Max: 5 * time.Second}
)

// Parse is Load for bytes already read; file names them in problems.
func Parse(file string, src []byte, reg *stages.Registry, params map[string]string) (*Pipeline, error) {
	ps := &problems{file: file}
	doc, pr := decodeOne(file, src)
	if pr != nil {
		if strings.Contains(string(src), "{gpu}") || strings.Contains(string(src), "${") {
			pr.Msg += ` (a "{gpu}" name or a "${param}" inside [...] or {...} must be quoted: ["gpu.{gpu}.compute"], {workers: "${n}"}; or use block style)`
		}
		return nil, &ValidationError{Problems: []Problem{*pr}}
	}
	if doc == nil || len(doc.Content) == 0 {
		ps.at(nil, "empty pipeline file")
		return nil, ps.err()
	}
	root := doc.Content[0]
	p := &Pipeline{File: file, Hash: hashOf(src), Devices: 1, Partitions: 1}
	l := &loader{ps: ps, reg: reg, p: p, stageByName: map[string]*Stage{}, resByName: map[string]int{}}

	// Parameters first: everything else may refer to them.
	l.params(root, params)
	if root.Kind == yaml.MappingNode {
		substitute(ps, root, p.Params, sortedKeys(p.Params))
	}

	var stagesNode, spansNode *yaml.Node
	fields(ps, root, "pipeline", topFields, func(key string, k, v *yaml.Node) {
		switch key {
		case "pipeline":
			p.Name = str(ps, v, "pipeline")
		case "description":
			p.Description = str(ps, v, "description")
		case "devices":
			if d, ok := bounded(ps, v, "devices", 1, MaxDevices, "the limit on devices"); ok {
				p.Devices = int(d)
			}
		case "max_in_flight":
			if m, ok := bounded(ps, v, "max_in_flight", 1, MaxPartitions, "the limit on partitions per job"); ok {
				p.MaxInFlight = int(m)
			}
		case "resources":
			l.resources(v)
		case "stages":
			stagesNode = v
		case "spans":
			spansNode = v
		}
	})
	if root.Kind == yaml.MappingNode && p.Name == "" && !hasKey(root, "pipeline") {
		ps.at(root, "pipeline: missing field \"pipeline\" (the pipeline's name)")
	}
	if stagesNode == nil {
		if root.Kind == yaml.MappingNode {
			ps.at(root, "pipeline: missing field \"stages\"")
		}
		return nil, ps.err()
	}
	l.expansionClashes()
	l.stages(stagesNode)
	l.resolveNeeds()
	if !l.topoSort() {
		return nil, ps.err()
	}
	l.resolveInputs()
	if spansNode != nil {
		l.spans(spansNode)
	}
	l.deviceBinding()
	l.deviceBusy()
	l.lockOrder()
	if err := ps.err(); err != nil {
		return nil, err
	}
	for _, s := range p.Stages {
		var cfg stages.Config
		if s.factory.NewConfig != nil {
			cfg = l.configs[s]
		}
		impl, err := s.factory.New(cfg)
		if err != nil {
			ps.at(s.node, "stage %q: %v", s.Name, err)
			continue
		}
		s.impl = impl
	}
	return p, ps.err()
}

// decodeOne decodes the one YAML document of a pipeline file. A second
// document ("---" and more) is a problem at its first line: it would
// otherwise be ignored without a word.
func decodeOne(file string, src []byte) (*yaml.Node, *Problem) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		pr := yamlSyntaxProblem(file, err)
		return nil, &pr
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return &doc, nil
	case err != nil:
		pr := yamlSyntaxProblem(file, err)
		return nil, &pr
	}
	line, col := next.Line, next.Column
	if len(next.Content) > 0 {
		line, col = next.Content[0].Line, next.Content[0].Column
	}
	return nil, &Problem{File: file, Line: line, Col: col,
		Msg: "a second YAML document: a pipeline file holds one pipeline (remove the \"---\" and what follows, or put it in a file of its own)"}
}

func yamlSyntaxProblem(file string, err error) Problem {
	// yaml.v3 says "yaml: line 3: mapping values are not allowed here".
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{File: file, Line: line, Col: 1, Msg: "invalid YAML: " + m[2]}
	}
	return Problem{File: file, Msg: "invalid YAML: " + msg}
}

func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type loader struct {
	ps          *problems
	reg         *stages.Registry
	p           *Pipeline
	stageByName map[string]*Stage
	resByName   map[string]int
	resNodes    []*yaml.Node
	needNodes   map[*Stage][]*yaml.Node
	configs     map[*Stage]stages.Config
}

func (l *loader) params(root *yaml.Node, overrides map[string]string) {
	p, ps := l.p, l.ps
	p.Params = map[string]string{"partitions": "1"}
	var partitionsNode *yaml.Node // where the file sets it, for the problem's position
	if root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value != "params" {
				continue
			}
			v := root.Content[i+1]
			if v.Kind != yaml.MappingNode {
				ps.at(v, "params: want a mapping of name: default value, got %s", kindName(v))
				break
			}
			seen := map[string]bool{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				k, val := v.Content[j], v.Content[j+1]
				if seen[k.Value] {
					ps.at(k, "params: %q given twice", k.Value)
					continue
				}
				seen[k.Value] = true
				if !paramNameRe.MatchString(k.Value) {
					ps.at(k, "params: name %q: want lower_snake_case", k.Value)
					continue
				}
				if val.Kind != yaml.ScalarNode {
					ps.at(val, "params.%s: want a single value, got %s", k.Value, kindName(val))
					continue
				}
				if strings.Contains(val.Value, "${") {
					// Substitution is one pass: the reference would stay
					// as text, and a number read from it would be skipped.
					ps.at(val, "params.%s: a default cannot refer to another parameter (%q); give the value itself", k.Value, val.Value)
				}
				p.Params[k.Value] = val.Value
				if k.Value == "partitions" {
					partitionsNode = val
				}
			}
		}
	}
	for k, v := range overrides {
		if _, ok := p.Params[k]; !ok {
			msg := fmt.Sprintf("--set %s=%s: the pipeline has no parameter %q", k, v, k)
			if s := suggest.Closest(k, sortedKeys(p.Params)); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			ps.at(nil, "%s", msg)
			continue
		}
		if strings.Contains(v, "${") {
			ps.at(nil, "--set %s=%s: a value cannot refer to a parameter; give the value itself", k, v)
		}
		p.Params[k] = v
		if k == "partitions" {
			partitionsNode = nil
		}
	}
	what := "parameter partitions"
	if _, set := overrides["partitions"]; set {
		what = "--set partitions"
	}
	if n, err := strconv.Atoi(p.Params["partitions"]); err != nil && !errors.Is(err, strconv.ErrRange) || err == nil && n < 1 {
		ps.at(partitionsNode, "%s: want a whole number of at least 1, got %q", what, p.Params["partitions"])
	} else if err != nil || n > MaxPartitions {
		ps.at(partitionsNode, "%s: %s is above %d, the limit on partitions per job", what, p.Params["partitions"], MaxPartitions)
	} else {
		p.Partitions = n
	}
}

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
					c, ok := integer(ps, fv, "resource "+strconv.Quote(name)+": capacity", 1)
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
	l.configs = map[*Stage]stages.Config{}
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
				if w, ok := integer(ps, fv, what+": workers", 1); ok {
					s.Workers = int(w)
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
	l.configs[s] = cfg
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
			ps.at(lk.node, "%s: locks %q %s times over in total, above its capacity %d", what, lk.Resource, total.String(), d.Capacity)
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
		l.ps.at(lk.node, "%s: weight %d on %q is above its capacity %d: it could never be granted", what, lk.Weight, lk.Resource, c)
		return false
	}
	return true
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
		if dc, ok := l.configs[s].(stages.DeviceConfig); ok && dc.NeedsDevice() {
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

// lockOrder rejects layouts that can deadlock. Stage locks are taken in
// canonical order (the order of `resources:`) and a stage holds nothing
// while it waits, except span locks, which stay held until the span's last
// stage ends. So while a span's lock L is held, every lock its partition
// may wait for before the span ends must come after L in canonical order; a
// lock before L, or L itself, could wait on a partition that waits on us.
// Those waits are the locks of the stages the span covers, and also of the
// stages on a parallel branch that the span's last stage needs: they may
// start after L was taken, and L is not given back until they end.
func (l *loader) lockOrder() {
	for _, sp := range l.p.Spans {
		// From takes L with its own locks and any other span starting
		// there, in one request: together they must fit. Report once per
		// resource, at the first span on it.
		first, seen := true, false
		var sum weightSum
		for _, other := range sp.From.spanStarts {
			if other.decl == sp.decl {
				if !seen && other != sp {
					first = false
				}
				seen = true
				sum.add(other.Weight)
			}
		}
		for _, lk := range sp.From.Locks {
			if lk.decl == sp.decl {
				sum.add(lk.Weight)
			}
		}
		if c := l.p.Resources[sp.decl].Capacity; first && sum.above(c) {
			l.ps.at(sp.node, "span of %q: stage %q takes %s of %q when it starts (its own locks and the spans starting there), above its capacity %d: the stage could never start",
				sp.Resource, sp.From.Name, sum.String(), sp.Resource, c)
		}
		for _, s := range l.whileHeld(sp) {
			covered := slices.Contains(s.within, sp)
			later := append([]Lock(nil), s.Locks...)
			for _, other := range s.spanStarts {
				later = append(later, other.Lock)
			}
			for _, lk := range later {
				switch {
				case lk.decl == sp.decl && covered:
					l.ps.at(lk.node, "stage %q locks %q, which the span from %q to %q already holds: a partition would wait for itself", s.Name, lk.Resource, sp.From.Name, sp.To.Name)
				case lk.decl == sp.decl:
					l.ps.at(lk.node, "stage %q locks %q, which the span from %q to %q may already hold (%q runs beside the span and %q waits for it): a partition would wait for itself; add %q to the needs of %q, so that it ends before the span starts",
						s.Name, lk.Resource, sp.From.Name, sp.To.Name, s.Name, sp.To.Name, s.Name, sp.From.Name)
				case lk.decl < sp.decl && covered:
					l.ps.at(lk.node, "lock order: stage %q takes %q while holding %q (span from %q to %q), but %q is declared first in resources, so two partitions can deadlock; declare %q before %q, or end the span before %q",
						s.Name, lk.Resource, sp.Resource, sp.From.Name, sp.To.Name, lk.Resource, sp.Resource, lk.Resource, s.Name)
				case lk.decl < sp.decl:
					l.ps.at(lk.node, "lock order: stage %q may take %q while its partition holds %q (span from %q to %q, which waits for %q to end), but %q is declared first in resources, so two partitions can deadlock; declare %q before %q, or add %q to the needs of %q",
						s.Name, lk.Resource, sp.Resource, sp.From.Name, sp.To.Name, s.Name, lk.Resource, sp.Resource, lk.Resource, s.Name, sp.From.Name)
				}
			}
		}
	}
}

// whileHeld returns, in topological order, the stages that may take locks
// while sp's lock is held: To and the stages To needs (directly or not),
// except From and the stages From needs, which end before From starts.
func (l *loader) whileHeld(sp *Span) []*Stage {
	before, after := ancestors(sp.From), ancestors(sp.To)
	var out []*Stage
	for _, s := range l.p.Stages {
		_, isBefore := before[s]
		_, isAfter := after[s]
		if s != sp.From && !isBefore && (isAfter || s == sp.To) {
			out = append(out, s)
		}
	}
	return out
}

func isTemplate(name string) bool { return strings.Contains(name, "{gpu}") }
