package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/stages"
)

// lifecycle is an engine's start and close state. mu orders Start, Close
// and the admission of jobs: a job is admitted (running.Add) only while
// the engine is started and not closed, so Close's wait sees every job.
type lifecycle struct {
	mu       sync.Mutex
	started  bool
	startErr error // sticky: a failed start fails every later Run
	closed   bool
	running  sync.WaitGroup
	up       []*Stage // stages started, in start order
}

// ErrEngineClosed is wrapped by the error of a Run or Start after Close.
var ErrEngineClosed = errors.New("engine closed")

// host is the stages.Host an engine lends its stages.
type host struct {
	backend device.Backend
	devices int
}

func (h host) Backend() device.Backend { return h.backend }
func (h host) Devices() int            { return h.devices }

// Start starts the engine's stages, in the pipeline's order: it calls
// Start on each that implements stages.Starter, with a Host lending the
// engine's backend and device count. It is called once; later calls
// return the first one's result. When a stage fails to start, the stages
// started before it are shut down, and the error, naming the stage, is
// returned by every later Start and Run. Run calls Start itself, so a
// caller need not, except to see start errors before the first job.
func (e *Engine) Start(ctx context.Context) error {
	e.life.mu.Lock()
	defer e.life.mu.Unlock()
	return e.startLocked(ctx)
}

func (e *Engine) startLocked(ctx context.Context) error {
	l := &e.life
	switch {
	case l.closed:
		return fmt.Errorf("pipeline %q: %w", e.p.Name, ErrEngineClosed)
	case l.started:
		return l.startErr
	}
	l.started = true
	h := host{backend: e.backend, devices: e.devices}
	for _, s := range e.p.Stages {
		if st, ok := e.plan[s.index].impl.(stages.Starter); ok {
			if err := st.Start(ctx, h); err != nil {
				l.startErr = fmt.Errorf("pipeline %q: stage %q (%s): start: %w", e.p.Name, s.Name, s.Type, err)
				if serr := e.shutdown(ctx); serr != nil {
					l.startErr = fmt.Errorf("%w (and shutting down the stages started before it: %w)", l.startErr, serr)
				}
				return l.startErr
			}
		}
		l.up = append(l.up, s)
	}
	return nil
}

// enter admits a job: it starts the engine if need be and counts the job
// as running until the caller's running.Done.
func (e *Engine) enter(ctx context.Context) error {
	e.life.mu.Lock()
	defer e.life.mu.Unlock()
	if err := e.startLocked(ctx); err != nil {
		return err
	}
	e.life.running.Add(1)
	return nil
}

// Close shuts the engine down: later Runs fail with ErrEngineClosed,
// Close waits for the jobs already running to return (cancel their
// contexts to hurry them), then calls Shutdown on every started stage
// that implements stages.Stopper, in the reverse of the start order, and
// returns their errors joined. It does not close Options.Backend: the
// caller closes that after Close. Closing twice is a no-op.
func (e *Engine) Close(ctx context.Context) error {
	l := &e.life
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	l.running.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return e.shutdown(ctx)
}

// shutdown stops the started stages, last started first; l.mu is held.
func (e *Engine) shutdown(ctx context.Context) error {
	l := &e.life
	var errs []error
	for i := len(l.up) - 1; i >= 0; i-- {
		s := l.up[i]
		if st, ok := e.plan[s.index].impl.(stages.Stopper); ok {
			if err := st.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("pipeline %q: stage %q (%s): shutdown: %w", e.p.Name, s.Name, s.Type, err))
			}
		}
	}
	l.up = nil
	return errors.Join(errs...)
}
