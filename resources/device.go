package resources

// Device returns the device a resource belongs to: for one expanded from a
// `{gpu}` template, the device it was expanded for; -1 for a plain one.
// Traces record it so that readers need not parse names such as
// "gpu.0.mem".
func (s *Set) Device(id ID) int {
	for _, d := range s.decls {
		if d.templated && id >= d.first && int(id) < int(d.first)+d.n {
			return int(id - d.first)
		}
	}
	return -1
}
