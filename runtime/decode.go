package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/internal/suggest"
)

// This file holds the small YAML helpers the loader is built from: typed
// reads of scalar nodes that report problems with positions instead of
// failing, and a strict decoder for stage configs.

// fields walks a mapping node, calling fn for each known key and reporting
// unknown keys (with a did-you-mean) and duplicate keys.
func fields(ps *problems, n *yaml.Node, what string, known []string, fn func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		ps.at(n, "%s: want a mapping, got %s", what, kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case seen[k.Value]:
			ps.at(k, "%s: field %q given twice", what, k.Value)
		case !contains(known, k.Value):
			ps.at(k, "%s", unknownField(what, k.Value, known))
		default:
			fn(k.Value, k, v)
		}
		seen[k.Value] = true
	}
}

func unknownField(what, key string, known []string) string {
	msg := fmt.Sprintf("%s: field %q not recognised", what, key)
	if key == "<<" {
		return msg + " (YAML merge keys are not expanded here: write the fields out)"
	}
	if s := suggest.Closest(key, known); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + " (known: " + strings.Join(known, ", ") + ")"
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return fmt.Sprintf("the alias *%s (YAML aliases are not expanded here: write the value out)", n.Value)
	}
	return "a document"
}

func str(ps *problems, n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		ps.at(n, "%s: want a string, got %s", what, kindName(n))
		return ""
	}
	return n.Value
}

// integer reads an int no smaller than lo.
func integer(ps *problems, n *yaml.Node, what string, lo int64) (int64, bool) {
	if n.Kind != yaml.ScalarNode {
		ps.at(n, "%s: want a whole number, got %s", what, kindName(n))
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil && strings.Contains(n.Value, "${") {
		return 0, false // an unknown parameter, already reported
	}
	if err != nil {
		ps.at(n, "%s: want a whole number, got %q", what, n.Value)
		return 0, false
	}
	if v < lo {
		ps.at(n, "%s: must be at least %d, got %d", what, lo, v)
		return 0, false
	}
	return v, true
}

// bounded reads an int between lo and hi; above hi the problem names the
// limit (limit says what hi is, e.g. "the limit on devices").
func bounded(ps *problems, n *yaml.Node, what string, lo, hi int64, limit string) (int64, bool) {
	if n.Kind == yaml.ScalarNode {
		if _, err := strconv.ParseInt(n.Value, 10, 64); errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(n.Value, "-") {
			ps.at(n, "%s: %s is above %d, %s", what, n.Value, hi, limit)
			return 0, false
		}
	}
	v, ok := integer(ps, n, what, lo)
	if ok && v > hi {
		ps.at(n, "%s: %d is above %d, %s", what, v, hi, limit)
		return 0, false
	}
	return v, ok
}

func duration(ps *problems, n *yaml.Node, what string) (time.Duration, bool) {
	if n.Kind != yaml.ScalarNode {
		ps.at(n, "%s: want a duration like 250ms or 2s, got %s", what, kindName(n))
		return 0, false
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		ps.at(n, "%s: want a duration like 250ms or 2s, got %q", what, n.Value)
		return 0, false
	}
	return d, true
}

func stringList(ps *problems, n *yaml.Node, what string) []*yaml.Node {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []*yaml.Node{n} // a single name is a list of one
	}
	if n.Kind != yaml.SequenceNode {
		ps.at(n, "%s: want a list, got %s", what, kindName(n))
		return nil
	}
	var out []*yaml.Node
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			ps.at(e, "%s: want a name, got %s", what, kindName(e))
			continue
		}
		out = append(out, e)
	}
	return out
}

var paramRef = regexp.MustCompile(`\$\{([^}]*)\}`)

// substitute replaces ${name} in every scalar under n with the parameter's
// value. A scalar that is exactly one reference takes the value's type
// (so `workers: ${n}` stays a number).
func substitute(ps *problems, n *yaml.Node, params map[string]string, names []string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return
		}
		n.Value = paramRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
			name := ref[2 : len(ref)-1]
			v, ok := params[name]
			if !ok {
				msg := fmt.Sprintf("unknown parameter %q", name)
				if s := suggest.Closest(name, names); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				ps.at(n, "%s", msg)
				return ref
			}
			return v
		})
		if n.Style == 0 { // plain scalar: re-resolve its type from the new text
			n.Tag = resolvedTag(n.Value)
		}
	default:
		for _, c := range n.Content {
			substitute(ps, c, params, names)
		}
	}
}

func resolvedTag(v string) string {
	var x any
	if err := yaml.Unmarshal([]byte(v), &x); err != nil {
		return "!!str"
	}
	switch x.(type) {
	case int, int64, uint64:
		return "!!int"
	case float64:
		return "!!float"
	case bool:
		return "!!bool"
	case nil:
		return "!!null"
	}
	return "!!str"
}

// decodeConfig decodes n onto cfg (a pointer to a struct), reporting every
// key that matches no field, at any depth.
func decodeConfig(ps *problems, n *yaml.Node, cfg any, what string) bool {
	before := len(ps.list)
	checkKeys(ps, n, reflect.TypeOf(cfg), what)
	if len(ps.list) > before {
		return false
	}
	if err := n.Decode(cfg); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n  ")
		msg = regexp.MustCompile(`^line \d+: `).ReplaceAllString(msg, "")
		ps.at(n, "%s: %s", what, msg)
		return false
	}
	return true
}

func checkKeys(ps *problems, n *yaml.Node, t reflect.Type, what string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		known := map[string]reflect.Type{}
		var names []string
		structFields(t, known, &names)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := known[k.Value]
			if !ok {
				ps.at(k, "%s", unknownField(what, k.Value, names))
				continue
			}
			checkKeys(ps, v, ft, what+"."+k.Value)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for _, e := range n.Content {
			checkKeys(ps, e, t.Elem(), what)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			checkKeys(ps, n.Content[i], t.Elem(), what)
		}
	}
}

// structFields adds the YAML keys of struct t and their types, as yaml.v3
// names them: the tag's name, or the lowercased field name; fields of an
// ",inline" struct are t's own.
func structFields(t reflect.Type, known map[string]reflect.Type, names *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if ft := f.Type; slices.Contains(strings.Split(opts, ","), "inline") {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structFields(ft, known, names)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		known[name] = f.Type
		*names = append(*names, name)
	}
}
