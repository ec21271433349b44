package main

import (
	"fmt"
	"strings"

	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/stages/builtin"
)

// setFlags collects repeated --set name=value pipeline parameters.
type setFlags map[string]string

func (s setFlags) String() string {
	parts := make([]string, 0, len(s))
	for k, v := range s {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

func (s setFlags) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("want name=value, got %q", kv)
	}
	s[k] = v
	return nil
}

// loadPipeline loads a pipeline file against the shipped stage types.
func loadPipeline(path string, params map[string]string) (*runtime.Pipeline, error) {
	return runtime.Load(path, builtin.Registry(), params)
}
