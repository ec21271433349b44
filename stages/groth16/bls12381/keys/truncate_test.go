package keys

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A key file cut at a random offset (a disk that filled up, a copy that
// stopped) fails Load naming the file, and the next save of the keys
// replaces it: Load then returns them whole.
func TestATruncatedKeyFileIsCaughtAndTheNextSaveReplacesIt(t *testing.T) {
	s, c := savedChain(t)
	rp, pp, vp := c.Paths("chain", 64)
	r := rand.New(rand.NewPCG(15, 3))
	for _, path := range []string{rp, pp, vp} {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cuts := []int{0, len(orig) - 1, len(orig) - trailerLen}
		for range 4 {
			cuts = append(cuts, r.IntN(len(orig)))
		}
		for _, cut := range cuts {
			if err := os.Truncate(path, int64(cut)); err != nil {
				t.Fatal(err)
			}
			_, err := c.Load(t.Context(), "chain", 64)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is corrupt") || errors.Is(err, ErrNotCached) {
				t.Fatalf("%s cut at %d of %d bytes: error %v, want it corrupt, named", filepath.Base(path), cut, len(orig), err)
			}
			if err := c.Save(s); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Load(t.Context(), "chain", 64); err != nil {
				t.Fatalf("%s cut at %d, saved again: %v", filepath.Base(path), cut, err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, orig) {
				t.Fatalf("%s cut at %d, saved again: not the whole file", filepath.Base(path), cut)
			}
		}
	}
}

// killedWriterEnv makes the test binary a setup that is killed: into the
// cache directory the variable names, it writes the constraint system of
// chain at 2^12, then 1.25 MiB of a proving key (more than durable.Write's
// 1 MiB buffer, so the bytes reach the file), and waits to be killed.
const killedWriterEnv = "PROOFLANE_TEST_KILLED_WRITER"

const killedAt = 5 << 18 // 1.25 MiB

func TestMain(m *testing.M) {
	if dir := os.Getenv(killedWriterEnv); dir != "" {
		s, err := Setup("chain", 1<<12)
		if err != nil {
			os.Exit(3)
		}
		// save's order: the proving key is the first file written.
		_, pp, _ := Cache{Dir: dir}.Paths("chain", 1<<12)
		var b bytes.Buffer
		if _, err := s.PK.WriteRawTo(&b); err != nil || b.Len() <= killedAt {
			os.Exit(5)
		}
		writeFile(pp, func(w io.Writer) (int64, error) {
			n, err := w.Write(b.Bytes()[:killedAt])
			if err != nil {
				return int64(n), err
			}
			select {}
		})
		os.Exit(6)
	}
	os.Exit(m.Run())
}

// killSetup runs a setup of chain at 2^12 into c in a child process and
// kills it (SIGKILL) once killedAt bytes of its proving key are in the temporary file,
// whose name it returns.
func killSetup(t *testing.T, c Cache) string {
	t.Helper()
	_, pp, _ := c.Paths("chain", 1<<12)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+c.Dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// No deadline: a slow machine only makes this slower.
	for {
		select {
		case err := <-exited:
			t.Fatalf("the setup exited before it was killed: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		m, _ := filepath.Glob(pp + ".tmp*")
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && st.Size() >= killedAt {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				<-exited
				return f
			}
		}
	}
}

// A setup killed (SIGKILL) while writing the proving key leaves no key
// file that could be taken for a whole one: into an empty cache, Load
// names the constraint system (saved last) as missing; over cached keys, those stay whole.
// Either way the next save removes the temporary file and Load works;
// into an empty cache, LoadOrMake runs that save.
func TestASetupKilledMidWriteIsNeverTakenForWholeKeys(t *testing.T) {
	s, err := Setup("chain", 1<<12)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("empty cache", func(t *testing.T) {
		c := Cache{Dir: t.TempDir()}
		tmp := killSetup(t, c)
		rp, _, _ := c.Paths("chain", 1<<12)
		_, err := c.Load(t.Context(), "chain", 1<<12)
		if !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), rp) {
			t.Fatalf("load after a killed setup: %v, want %s not cached", err, rp)
		}
		var log strings.Builder
		if _, err := c.LoadOrMake(t.Context(), "chain", 1<<12, &log, func() (*Set, error) { return s, nil }); err != nil {
			t.Fatalf("the setup after a killed one: %v", err)
		}
		if !strings.Contains(log.String(), "running setup (once)") {
			t.Fatalf("no setup after a killed one: %q", log.String())
		}
		if _, err := c.Load(t.Context(), "chain", 1<<12); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tmp); !os.IsNotExist(err) {
			t.Errorf("%s is still there after a save (%v)", filepath.Base(tmp), err)
		}
	})
	t.Run("over cached keys", func(t *testing.T) {
		c := Cache{Dir: t.TempDir()}
		if err := c.Save(s); err != nil {
			t.Fatal(err)
		}
		_, pp, _ := c.Paths("chain", 1<<12)
		before, err := os.ReadFile(pp)
		if err != nil {
			t.Fatal(err)
		}
		killSetup(t, c)
		after, err := os.ReadFile(pp)
		if err != nil || !bytes.Equal(after, before) {
			t.Fatalf("the cached proving key changed under a killed setup (%v)", err)
		}
		if _, err := c.Load(t.Context(), "chain", 1<<12); err != nil {
			t.Fatalf("the keys cached before the killed setup: %v", err)
		}
	})
}
