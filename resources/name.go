package resources

import (
	"fmt"
	"strings"
)

// GPUPlaceholder is the template segment that expands to a device index.
const GPUPlaceholder = "{gpu}"

// Decl declares one resource as written in YAML. Name may contain the
// placeholder "{gpu}" once, as a whole dot-separated segment (gpu.{gpu}.mem);
// such a template expands to one resource per device (gpu.0.mem, gpu.1.mem, ...).
type Decl struct {
	// Name is the resource name or template, checked by ParseName.
	Name string
	// Capacity is the number of units: 1 is a mutex, more is a weighted
	// semaphore. It must be at least 1.
	Capacity int64
}

// ParseName validates a resource name or template: dot-separated segments of
// [a-z0-9_] (a segment starts with a letter or digit), or the exact segment
// "{gpu}" at most once. It reports whether the name is a template.
func ParseName(name string) (templated bool, err error) {
	if name == "" {
		return false, fmt.Errorf("empty resource name")
	}
	for i, seg := range strings.Split(name, ".") {
		switch {
		case seg == "":
			return false, fmt.Errorf("resource name %q: empty segment %d", name, i+1)
		case seg == GPUPlaceholder:
			if templated {
				return false, fmt.Errorf("resource name %q: %q appears more than once", name, GPUPlaceholder)
			}
			templated = true
		default:
			if err := checkSegment(seg); err != nil {
				return false, fmt.Errorf("resource name %q: segment %q: %w", name, seg, err)
			}
		}
	}
	return templated, nil
}

func checkSegment(seg string) error {
	if strings.Contains(seg, GPUPlaceholder) {
		return fmt.Errorf("%q must be a whole segment", GPUPlaceholder)
	}
	for i, c := range seg {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_':
			if i == 0 {
				return fmt.Errorf("must start with a letter or digit")
			}
		default:
			return fmt.Errorf("character %q not allowed (use a-z, 0-9, _)", c)
		}
	}
	return nil
}

// expand returns the concrete name of template for one device.
func expand(template string, device int) string {
	return strings.Replace(template, GPUPlaceholder, fmt.Sprint(device), 1)
}
