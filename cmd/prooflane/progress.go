package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/prooflane/prooflane/runtime"
)

// progress reports while jobs run: partitions done out of the total, what
// each stage is doing now, and an ETA. On a terminal it redraws one line
// every 200 ms; anywhere else (a pipe, a log file, CI) it writes a plain
// line every 5 s, with no control codes.
type progress struct {
	w      io.Writer
	plain  bool
	total  int
	stages []string
	start  time.Time

	mu      sync.Mutex
	done    int
	running map[string]int
	retries int

	stop chan struct{}
	wg   sync.WaitGroup
}

// progressEnabled resolves --progress auto|on|off against stderr.
func progressEnabled(mode string, stderr io.Writer) (bool, error) {
	switch mode {
	case "on":
		return true, nil
	case "off":
		return false, nil
	case "auto":
		return isTerminal(stderr), nil
	}
	return false, fmt.Errorf("--progress %q: want auto, on or off", mode)
}

// Progress intervals: a terminal line is redrawn in place; a plain line
// adds to a log, so it comes seldom.
const (
	redrawEvery = 200 * time.Millisecond
	plainEvery  = 5 * time.Second
)

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// startProgress starts reporting, redrawn on a terminal and in plain lines
// elsewhere; nil when disabled (its methods are no-ops).
func startProgress(w io.Writer, p *runtime.Pipeline, totalPartitions int, enabled bool) *progress {
	if !enabled {
		return nil
	}
	every := redrawEvery
	if !isTerminal(w) {
		every = plainEvery
	}
	return newProgress(w, p, totalPartitions, !isTerminal(w), every)
}

func newProgress(w io.Writer, p *runtime.Pipeline, totalPartitions int, plain bool, every time.Duration) *progress {
	pr := &progress{w: w, plain: plain, total: totalPartitions, start: time.Now(), running: map[string]int{}, stop: make(chan struct{})}
	for _, s := range p.Stages {
		pr.stages = append(pr.stages, s.Name)
	}
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pr.stop:
				return
			case <-t.C:
				pr.draw()
			}
		}
	}()
	return pr
}

// Event is a runtime.Options.OnEvent hook.
func (pr *progress) Event(ev runtime.Event) {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	switch ev.Kind {
	case runtime.StageStarted:
		pr.running[ev.Stage]++
	case runtime.StageDone:
		pr.running[ev.Stage]--
	case runtime.StageRetry:
		pr.retries++
	case runtime.PartitionDone:
		pr.done++
	}
}

func (pr *progress) line() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	el := time.Since(pr.start)
	var act []string
	for _, s := range pr.stages {
		if n := pr.running[s]; n > 0 {
			act = append(act, fmt.Sprintf("%s %d", s, n))
		}
	}
	if len(act) == 0 {
		act = []string{"waiting"}
	}
	eta := "?"
	if pr.done > 0 {
		eta = (time.Duration(float64(el) / float64(pr.done) * float64(pr.total-pr.done))).Round(time.Second).String()
	}
	s := fmt.Sprintf("[%5.1fs] partitions %d/%d · %s · ETA %s", el.Seconds(), pr.done, pr.total, strings.Join(act, ", "), eta)
	if pr.retries > 0 {
		s += fmt.Sprintf(" · %d retries", pr.retries)
	}
	return s
}

func (pr *progress) draw() {
	if pr.plain {
		fmt.Fprintln(pr.w, pr.line())
		return
	}
	fmt.Fprintf(pr.w, "\r\033[K%s", pr.line())
}

// Stop stops reporting and clears a terminal's line.
func (pr *progress) Stop() {
	if pr == nil {
		return
	}
	close(pr.stop)
	pr.wg.Wait()
	if !pr.plain {
		fmt.Fprint(pr.w, "\r\033[K")
	}
}
