//go:build unix

package keyfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

var errMissing = errors.New("missing")

// entry is a one-file cache entry for the tests: load reads it, make
// writes it, counting the makes.
type entry struct {
	dir, path string
	makes     atomic.Int32
}

func newEntry(t *testing.T) *entry {
	dir := filepath.Join(t.TempDir(), "cache")
	return &entry{dir: dir, path: filepath.Join(dir, "k")}
}

func (e *entry) load() (string, error) {
	b, err := os.ReadFile(e.path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", e.path, errMissing)
	}
	return string(b), err
}

func (e *entry) make(notCached error) (string, error) {
	if !errors.Is(notCached, errMissing) {
		return "", fmt.Errorf("make got %v", notCached)
	}
	n := e.makes.Add(1)
	v := fmt.Sprintf("made %d", n)
	return v, os.WriteFile(e.path, []byte(v), 0o644) // under the exclusive lock: no reader sees it half written
}

func (e *entry) prepare() error { return os.MkdirAll(e.dir, 0o755) }

func (e *entry) get() (string, error) {
	return LoadOrMake(context.Background(), e.path+".lock", nil, errMissing, e.prepare, e.load, e.make)
}

// Callers at once on an empty cache, every one of them past its first
// (shared) load before any goes on: one makes the entry, and every one
// gets it; a later call loads it.
func TestLoadOrMakeMakesAnEntryOnceForConcurrentCallers(t *testing.T) {
	const callers = 8
	e := newEntry(t)
	var loads atomic.Int32
	var firstLoads sync.WaitGroup
	firstLoads.Add(callers)
	load := func() (string, error) {
		v, err := e.load()
		if loads.Add(1) <= callers {
			firstLoads.Done()
			firstLoads.Wait()
		}
		return v, err
	}
	var wg sync.WaitGroup
	got := make([]string, callers)
	errs := make([]error, callers)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = LoadOrMake(context.Background(), e.path+".lock", nil, errMissing, e.prepare, load, e.make)
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
	}
	if n := e.makes.Load(); n != 1 {
		t.Fatalf("%d makes, want 1", n)
	}
	for i, v := range got {
		if v != "made 1" {
			t.Errorf("caller %d got %q", i, v)
		}
	}
	if v, err := e.get(); err != nil || v != "made 1" || e.makes.Load() != 1 {
		t.Errorf("a later call: %q, %v, %d makes", v, err, e.makes.Load())
	}
}

// An error of load other than notCached, or of prepare, is returned as
// it is, and nothing is made.
func TestLoadOrMakeReturnsOtherErrorsWithoutMaking(t *testing.T) {
	e := newEntry(t)
	corrupt := errors.New("corrupt")
	_, err := LoadOrMake(context.Background(), e.path+".lock", nil, errMissing, func() error { t.Error("prepare called"); return nil },
		func() (string, error) { return "", corrupt }, e.make)
	if err != corrupt {
		t.Errorf("load's error: got %v", err)
	}
	noDir := errors.New("no directory")
	_, err = LoadOrMake(context.Background(), e.path+".lock", nil, errMissing, func() error { return noDir }, e.load, e.make)
	if err != noDir {
		t.Errorf("prepare's error: got %v", err)
	}
	if n := e.makes.Load(); n != 0 {
		t.Errorf("%d makes after errors", n)
	}
}
