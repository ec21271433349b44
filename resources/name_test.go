package resources

import (
	"strings"
	"testing"
)

func TestParseNameAcceptsSegmentsAndOneGPUPlaceholder(t *testing.T) {
	tests := []struct {
		name      string
		templated bool
		err       string // substring; "" = valid
	}{
		{name: "cpu_bandwidth"},
		{name: "gpu.0.mem"},
		{name: "a.b_c.d9"},
		{name: "9lives"},
		{name: "gpu.{gpu}.mem", templated: true},
		{name: "{gpu}", templated: true},
		{name: "{gpu}.compute", templated: true},
		{name: "", err: "empty resource name"},
		{name: "gpu..mem", err: `resource name "gpu..mem": empty segment 2`},
		{name: ".gpu", err: "empty segment 1"},
		{name: "gpu.", err: "empty segment 2"},
		{name: "GPU.mem", err: `segment "GPU": character 'G' not allowed`},
		{name: "gpu-mem", err: `character '-' not allowed`},
		{name: "gpu mem", err: `character ' ' not allowed`},
		{name: "gpü", err: `character 'ü' not allowed`},
		{name: "_hidden", err: `segment "_hidden": must start with a letter or digit`},
		{name: "gpu.{gpu}.{gpu}", err: `"{gpu}" appears more than once`},
		{name: "gpu{gpu}.mem", err: `segment "gpu{gpu}": "{gpu}" must be a whole segment`},
		{name: "gpu.{gpu}x", err: `"{gpu}" must be a whole segment`},
		{name: "gpu.{GPU}", err: `character '{' not allowed`},
		{name: "gpu.{dev}", err: `character '{' not allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			templated, err := ParseName(tt.name)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseName(%q) = %v, %v; want error containing %q", tt.name, templated, err, tt.err)
				}
				return
			}
			if err != nil || templated != tt.templated {
				t.Fatalf("ParseName(%q) = %v, %v; want %v, nil", tt.name, templated, err, tt.templated)
			}
		})
	}
}
