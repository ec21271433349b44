package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	goruntime "runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/stages"
)

// Load reads a pipeline file and validates it against a registry. params
// override the file's `params:` defaults (the CLI's --set k=v). On a
// validation failure the error is a *ValidationError listing every problem.
// Auto values are sized for the file's devices and this machine's cores
// (LoadWith takes others).
func Load(path string, reg *stages.Registry, params map[string]string) (*Pipeline, error) {
	return LoadWith(path, reg, LoadOptions{Params: params})
}

// LoadOptions are what the loader takes besides the file and the
// registry.
type LoadOptions struct {
	// Params override the file's `params:` defaults (the CLI's --set k=v).
	Params map[string]string
	// Devices, when above 0, replaces the file's `devices:` (the CLI's
	// --devices): `{gpu}` expands over it and auto values are sized for
	// it. At most MaxDevices.
	Devices int
	// Cores, when above 0, is the host core count auto values are sized
	// for, in place of this machine's (runtime.NumCPU): for tests, and to
	// size a layout for another machine (validate, graph, simulate). At
	// most MaxCores.
	Cores int
}

// LoadWith is Load with options.
func LoadWith(path string, reg *stages.Registry, opts LoadOptions) (*Pipeline, error) {
	src, err := readCapped(path, MaxPipelineBytes)
	if err != nil {
		return nil, fmt.Errorf("load pipeline: %w", err)
	}
	return ParseWith(path, src, reg, opts)
}

// hostCores is this machine's core count, what auto values are sized for
// unless LoadOptions.Cores says otherwise.
func hostCores() int { return max(goruntime.NumCPU(), 1) }

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

// Parse is Load for bytes already read; file names them in problems. It
// builds no stage: the Pipeline it returns is a validated description
// (each stage's type and decoded config), and NewEngine constructs the
// stages from it.
func Parse(file string, src []byte, reg *stages.Registry, params map[string]string) (*Pipeline, error) {
	return ParseWith(file, src, reg, LoadOptions{Params: params})
}

// ParseWith is Parse with options.
func ParseWith(file string, src []byte, reg *stages.Registry, opts LoadOptions) (*Pipeline, error) {
	params := opts.Params
	ps := &problems{file: file}
	doc, pr := decodeOne(file, src)
	if pr != nil {
		return nil, &ValidationError{Problems: []Problem{*pr}}
	}
	if doc == nil || len(doc.Content) == 0 {
		ps.at(nil, "empty pipeline file")
		return nil, ps.err()
	}
	root := doc.Content[0]
	p := &Pipeline{File: file, Hash: hashOf(src), Devices: 1, Partitions: 1, Cores: hostCores()}
	if opts.Cores > 0 {
		p.Cores = opts.Cores
	}
	l := &loader{ps: ps, reg: reg, p: p, stageByName: map[string]*Stage{}, resByName: map[string]int{}}

	// Parameters first: everything else may refer to them.
	l.params(root, params)
	if root.Kind == yaml.MappingNode {
		substitute(ps, root, p.Params, sortedKeys(p.Params))
	}

	var resourcesNode, stagesNode, spansNode *yaml.Node
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
			resourcesNode = v // after devices: capacity auto is sized by them
		case "stages":
			stagesNode = v
		case "spans":
			spansNode = v
		}
	})
	switch {
	case opts.Devices > MaxDevices:
		ps.at(nil, "devices %d (the caller's, e.g. --devices): above %d, the limit on devices", opts.Devices, MaxDevices)
	case opts.Devices > 0:
		p.Devices = opts.Devices
	}
	if opts.Cores > MaxCores {
		ps.at(nil, "cores %d (the caller's, e.g. --cores): above %d, the limit on cores", opts.Cores, MaxCores)
	}
	if resourcesNode != nil {
		l.resources(resourcesNode)
	}
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
	l.resolveAuto()
	l.deviceBusy()
	l.lockOrder()
	if err := ps.err(); err != nil {
		return nil, err
	}
	return p, nil
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
		pr := yamlSyntaxProblem(file, src, err)
		return nil, &pr
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return &doc, nil
	case err != nil:
		pr := yamlSyntaxProblem(file, src, err)
		return nil, &pr
	}
	line, col := next.Line, next.Column
	if len(next.Content) > 0 {
		line, col = next.Content[0].Line, next.Content[0].Column
	}
	return nil, &Problem{File: file, Line: line, Col: col,
		Msg: "a second YAML document: a pipeline file holds one pipeline (remove the \"---\" and what follows, or put it in a file of its own)"}
}

func yamlSyntaxProblem(file string, src []byte, err error) Problem {
	// yaml.v3 says "yaml: line 3: mapping values are not allowed here".
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	m := regexp.MustCompile(`^line (\d+): (.*)$`).FindStringSubmatch(msg)
	if m == nil {
		return Problem{File: file, Msg: "invalid YAML: " + msg}
	}
	line, _ := strconv.Atoi(m[1])
	if l, c, ok := indentTab(src, line, m[2]); ok {
		return Problem{File: file, Line: l, Col: c, Msg: fmt.Sprintf("invalid YAML: a tab at line %d column %d: YAML indents with spaces", l, c)}
	}
	pr := Problem{File: file, Line: line, Col: 1, Msg: "invalid YAML: " + m[2]}
	if bytes.Contains(src, []byte("{gpu}")) || bytes.Contains(src, []byte("${")) {
		pr.Msg += ` (a "{gpu}" name or a "${param}" inside [...] or {...} must be quoted: ["gpu.{gpu}.compute"], {workers: "${n}"}; or use block style)`
	}
	return pr
}

// indentTab finds the tab behind a yaml.v3 error about one: "found
// character that cannot start any token" names the tab's line, "found a
// tab character that violates indentation" the line before it. It
// returns the first tab in the indentation of that line or the next
// (columns count bytes from 1).
func indentTab(src []byte, line int, msg string) (l, col int, ok bool) {
	if !strings.Contains(msg, "cannot start any token") && !strings.Contains(msg, "tab character") {
		return 0, 0, false
	}
	lines := bytes.Split(src, []byte("\n"))
	for l = max(line, 1); l <= line+1 && l <= len(lines); l++ {
		indent := len(lines[l-1]) - len(bytes.TrimLeft(lines[l-1], " \t"))
		if i := bytes.IndexByte(lines[l-1][:indent], '\t'); i >= 0 {
			return l, i + 1, true
		}
	}
	return 0, 0, false
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
}
