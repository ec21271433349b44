package main

import (
	"fmt"
	"io"

	"github.com/prooflane/prooflane/admission"
)

func init() {
	register("devices", command{summary: "list the devices a backend sees, with their memory (or why it sees none)", run: runDevices})
}

func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("devices", "", stderr)
	backend := fs.String("backend", "auto", backendHelp)
	n := fs.Int("devices", 1, "emulated devices of the cpu backend")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "devices takes no arguments, got %q", fs.Args())
	}
	if err := checkBackend(*backend); err != nil {
		return err
	}
	if *n < 1 {
		return usageErrorf(fs, "--devices %d: want at least 1", *n)
	}
	if err := checkCounts(fs, "devices"); err != nil {
		return err
	}
	// --devices is what a backend emulating its devices on the host
	// presents; one of real devices lists the ones it has.
	want := 1
	if m, err := shipped.backends().Model(*backend, nil); err == nil && !m.OwnMemory() {
		want = *n
	}
	be, err := openBackend("devices", *backend, want, stderr)
	if err != nil {
		return err
	}
	defer be.Close()
	infos := be.Devices()
	fmt.Fprintf(stdout, "backend %s: %d device(s)\n", be.Name(), len(infos))
	for _, d := range infos {
		mem := "memory unknown"
		if d.MemTotal > 0 {
			mem = fmt.Sprintf("%s total, %s free", admission.HumanBytes(d.MemTotal), admission.HumanBytes(d.MemFree))
		}
		fmt.Fprintf(stdout, "  %d  %s  %s\n", d.Index, d.Name, mem)
	}
	return nil
}
