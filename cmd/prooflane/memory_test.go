package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prooflane/prooflane/admission"
)

// --size up to 2^30 was accepted with no estimate: a setup or prove that
// cannot fit in the machine's memory is refused before any work, naming
// the estimate and the machine's memory. (2^30 is now above the --size
// limit; a 2^28 setup needs about 768 GiB.)
func TestProveAndSetupRefuseWhatTheMachinesMemoryCannotHold(t *testing.T) {
	if total, _, err := admission.ReadMeminfo("/proc/meminfo"); err != nil || total >= 768<<30 {
		t.Skip("needs /proc/meminfo and under 768 GiB, so that a 2^28 setup is refused")
	}
	keysDir := t.TempDir()
	for _, args := range [][]string{
		{"prove", "--circuit", "chain", "--size", "2^28", "--partitions", "10", "--keys", keysDir, "--out", filepath.Join(t.TempDir(), "out"), "--progress", "off"},
		{"setup", "--circuit", "chain", "--size", "2^28", "--keys", keysDir},
	} {
		rc, out, stderr := prooflane(t, args...)
		if rc != 1 || out != "" || !strings.Contains(stderr, "size 268435456 with the key setup") ||
			!strings.Contains(stderr, "of host memory, more than this machine's") || strings.Contains(stderr, "running setup") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", args[0], rc, out, stderr)
		}
	}
	if keyFiles, _ := filepath.Glob(filepath.Join(keysDir, "*.pk")); len(keyFiles) != 0 {
		t.Errorf("a refused setup wrote keys: %v", keyFiles)
	}
}
