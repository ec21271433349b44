package runtime

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Problem is one thing wrong with a pipeline file, at a position in it.
type Problem struct {
	File string
	Line int // 1-based; 0 when the problem has no position
	Col  int
	Msg  string
	// Override says the problem is in the caller's parameter overrides
	// (LoadOptions.Params: the CLI's --set), not in the file: an unknown
	// parameter, or a value no parameter can take.
	Override bool
}

func (p Problem) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// ValidationError lists every problem found in a pipeline file, in file
// order. Load returns it (as error) when a file does not validate.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// InOverrides reports whether any problem is in the caller's parameter
// overrides (Problem.Override).
func (e *ValidationError) InOverrides() bool {
	for _, p := range e.Problems {
		if p.Override {
			return true
		}
	}
	return false
}

// problems collects Problems for one file.
type problems struct {
	file string
	list []Problem
}

func (ps *problems) at(n *yaml.Node, format string, args ...any) {
	p := Problem{File: ps.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		p.Line, p.Col = n.Line, n.Column
	}
	ps.list = append(ps.list, p)
}

// override records a problem of the caller's overrides (no position).
func (ps *problems) override(format string, args ...any) {
	ps.at(nil, format, args...)
	ps.list[len(ps.list)-1].Override = true
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	sort.SliceStable(ps.list, func(i, j int) bool {
		a, b := ps.list[i], ps.list[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return &ValidationError{Problems: ps.list}
}
