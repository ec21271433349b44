package analyze

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
)

// WriteText prints the report as plain-text tables.
func (r *Report) WriteText(w io.Writer) error {
	bw := &errWriter{w: w}
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("trace: %d spans, %d jobs (%d failed), %d partitions, makespan %s\n", r.Spans, r.Jobs, r.JobsFailed, r.Partitions, lockstats.Dur(r.Makespan))
	if r.JobsPerMinute > 0 {
		p("throughput: %.2f proofs/min (partitions), %.2f jobs/min\n", r.ProofsPerMinute, r.JobsPerMinute)
	}

	p("\nstages (run = stage span, locks held; wait = queued for workers and locks)\n")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	nw, tw2 := len("stage"), len("type")
	for _, s := range r.Stages {
		nw, tw2 = max(nw, len(s.Name)), max(tw2, len(s.Type))
	}
	fmt.Fprintf(tw, "%-*s\t%-*s\tcount\terrors\tmean\tp50\tp95\tmax\tmean wait\t\n", nw, "stage", tw2, "type")
	for _, s := range r.Stages {
		fmt.Fprintf(tw, "%-*s\t%-*s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", nw, s.Name, tw2, s.Type, s.Count, s.Errors,
			lockstats.Dur(s.Mean), lockstats.Dur(s.P50), lockstats.Dur(s.P95), lockstats.Dur(s.Max), lockstats.Dur(s.MeanWait))
	}
	tw.Flush()

	if len(r.Kernels) > 0 {
		p("\nkernels (device operations inside stages)\n")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		nw = len("kernel")
		for _, k := range r.Kernels {
			nw = max(nw, len(k.Name))
		}
		fmt.Fprintf(tw, "%-*s\tcount\tmean\tp95\tmax\ttotal\tgpu time\t\n", nw, "kernel")
		for _, k := range r.Kernels {
			fmt.Fprintf(tw, "%-*s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", nw, k.Name, k.Count, lockstats.Dur(k.Mean), lockstats.Dur(k.P95), lockstats.Dur(k.Max), lockstats.Dur(k.Total), lockstats.Dur(k.GPUTime))
		}
		tw.Flush()
		if r.Partitions > 0 {
			gpu := r.KernelGPUTime()
			p("  device time: %s a partition (the kernels' gpu time, %s over %d partitions; kernels of streams that run at once each count)\n",
				lockstats.Dur(gpu/time.Duration(r.Partitions)), lockstats.Dur(gpu), r.Partitions)
		}
	}

	p("\nresources (%s)\n", lockstats.Legend)
	stats := make([]lockstats.Stats, len(r.Resources))
	for i, x := range r.Resources {
		stats[i] = x.Stats
	}
	if err := lockstats.WriteTable(bw, stats); err != nil {
		return err
	}

	p("\ndevices (busy = %s)\n", r.BusyRule)
	if len(r.Devices) == 0 {
		p("  no device spans\n")
	}
	for _, d := range r.Devices {
		kern := ""
		if d.KernelPct > 0 {
			kern = fmt.Sprintf(", kernels running %.1f%%", d.KernelPct)
		}
		p("  device %d: busy %.1f%% (%s of %s)%s, idle %s, %d gaps\n", d.Device, d.BusyPct, lockstats.Dur(d.Busy), lockstats.Dur(r.Makespan), kern, lockstats.Dur(d.Idle), len(d.Gaps))
		for _, g := range d.Gaps {
			p("    idle %s at +%s", lockstats.Dur(g.Duration), lockstats.Dur(g.Offset))
			if len(g.Running) > 0 {
				p(" while running: %s", strings.Join(g.Running, ", "))
			}
			p("\n")
		}
	}

	if cp := r.Critical; cp != nil && len(cp.Steps) > 0 {
		p("\ncritical path of the slowest job %q (%s): run %s, wait %s, lead %s\n", cp.Job, lockstats.Dur(cp.Duration), lockstats.Dur(cp.Run), lockstats.Dur(cp.Wait), lockstats.Dur(cp.Lead))
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  at\tstage\tpartition\tdevice\twait\trun\twaited on")
		for _, s := range cp.Steps {
			name := s.Stage
			if s.Attempt > 1 {
				name += fmt.Sprintf(" (attempt %d)", s.Attempt)
			}
			if s.Failed {
				name += " FAILED"
			}
			dev := "host" // a stage bound to no device
			if s.Device >= 0 {
				dev = strconv.Itoa(s.Device)
			}
			fmt.Fprintf(tw, "  +%s\t%s\t%d\t%s\t%s\t%s\t%s\n", lockstats.Dur(s.Offset), name, s.Partition, dev, lockstats.Dur(s.Wait), lockstats.Dur(s.Run), strings.Join(s.WaitedOn, ", "))
		}
		tw.Flush()
	}

	if len(r.Warnings) > 0 {
		p("\nwarnings\n")
		for _, w := range r.Warnings {
			p("  ! %s\n", w)
		}
	}
	return bw.err
}

// errWriter keeps the first write error so printing code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return len(b), nil
	}
	_, e.err = e.w.Write(b)
	return len(b), nil
}
