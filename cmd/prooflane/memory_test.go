package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --size up to 2^30 was accepted with no estimate: a setup or prove that
// cannot fit in the machine's memory is refused before any work, naming
// the estimate and the machine's memory. (2^30 is now above the --size
// limit; a 2^28 setup needs about 768 GiB.)
func TestProveAndSetupRefuseWhatTheMachinesMemoryCannotHold(t *testing.T) {
	if total, _, err := readMeminfo("/proc/meminfo"); err != nil || total >= 768<<30 {
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

func TestReadMeminfo(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good", "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   12288000 kB\n")
	total, avail, err := readMeminfo(good)
	if err != nil || total != 24576000<<10 || avail != 12288000<<10 {
		t.Errorf("got %d %d %v", total, avail, err)
	}
	for body, want := range map[string]string{
		"MemFree: 1 kB\n":        "no MemTotal",
		"MemTotal: lots kB\n":    `MemTotal: " lots kB" is not a size in kB`,
		"MemTotal: 1e99999 kB\n": "is not a size in kB",
	} {
		if _, _, err := readMeminfo(writeFile(t, dir, "bad", body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
