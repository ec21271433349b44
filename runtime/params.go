package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/prooflane/prooflane/internal/suggest"
)

// This file reads the pipeline's `params:` and the caller's overrides
// (--set), and sets the partition count from them. Parameters are read
// before anything else: every other field may refer to them.

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
			ps.override("%s", msg)
			continue
		}
		if strings.Contains(v, "${") {
			ps.override("--set %s=%s: a value cannot refer to a parameter; give the value itself", k, v)
		}
		p.Params[k] = v
		if k == "partitions" {
			partitionsNode = nil
		}
	}
	what, report := "parameter partitions", func(format string, args ...any) { ps.at(partitionsNode, format, args...) }
	if _, set := overrides["partitions"]; set {
		what, report = "--set partitions", ps.override
	}
	if n, err := strconv.Atoi(p.Params["partitions"]); err != nil && !errors.Is(err, strconv.ErrRange) || err == nil && n < 1 {
		report("%s: want a whole number of at least 1, got %q", what, p.Params["partitions"])
	} else if err != nil || n > MaxPartitions {
		report("%s: %s is above %d, the limit on partitions per job", what, p.Params["partitions"], MaxPartitions)
	} else {
		p.Partitions = n
	}
}
