package analyze

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/prooflane/prooflane/otel/tracefile"
)

// chromeEvent is one Chrome trace event (the JSON format Perfetto and
// chrome://tracing open).
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // µs from the trace start
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WritePerfetto writes the trace as Chrome trace events: a process per
// track group (devices' busy time, locks with their holders, lock waits,
// stage workers, jobs), a thread per lane of each track, complete ("X")
// events for spans with their attributes as args, and a counter ("C") per
// resource with its holders over time. A partial timeline
// (Report.Timeline) writes the stretch it holds whole, and says so in the
// file's otherData.
func (r *Report) WritePerfetto(w io.Writer) error {
	var evs []chromeEvent
	end, partial := r.window()
	in := func(t time.Time) bool { return !partial || t.Before(end) }
	us := func(t time.Time) float64 { return float64(t.Sub(r.Start).Nanoseconds()) / 1e3 }
	pids := map[string]int{}
	pidOf := func(group string) int {
		if p, ok := pids[group]; ok {
			return p
		}
		p := len(pids) + 1
		pids[group] = p
		evs = append(evs,
			chromeEvent{Name: "process_name", Ph: "M", Pid: p, Args: map[string]any{"name": group}},
			chromeEvent{Name: "process_sort_index", Ph: "M", Pid: p, Args: map[string]any{"sort_index": p}})
		return p
	}
	tids := map[int]int{}
	thread := func(pid int, name string) int {
		tids[pid]++
		tid := tids[pid]
		evs = append(evs,
			chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": name}},
			chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"sort_index": tid}})
		return tid
	}
	for _, d := range r.Devices {
		pid := pidOf("devices")
		tid := thread(pid, fmt.Sprintf("gpu %d busy", d.Device))
		for _, iv := range r.busy[d.Device] {
			if !in(iv.Start) {
				break
			}
			evs = append(evs, chromeEvent{Name: "busy", Cat: "device", Ph: "X", Ts: us(iv.Start), Dur: float64(iv.dur().Nanoseconds()) / 1e3, Pid: pid, Tid: tid})
		}
		for _, g := range d.Gaps {
			s := r.Start.Add(g.Offset)
			if !in(s) {
				break
			}
			evs = append(evs, chromeEvent{Name: "idle", Cat: "device", Ph: "X", Ts: us(s), Dur: float64(g.Duration.Nanoseconds()) / 1e3, Pid: pid, Tid: tid,
				Args: map[string]any{"running": strings.Join(g.Running, ", ")}})
		}
	}
	groupNames := map[string]string{"locks": "locks (holders)", "waits": "lock waits", "workers": "stage workers", "kernels": "kernels", "jobs": "jobs"}
	for _, tr := range tracks(r.t) {
		pid := pidOf(groupNames[tr.Group])
		for li, lane := range tr.Lanes {
			name := tr.Name
			if len(tr.Lanes) > 1 {
				name = fmt.Sprintf("%s #%d", tr.Name, li)
			}
			tid := thread(pid, name)
			for _, s := range lane {
				evs = append(evs, chromeEvent{Name: eventName(tr.Group, s), Cat: tr.Group, Ph: "X", Ts: us(s.Start),
					Dur: float64(s.Duration().Nanoseconds()) / 1e3, Pid: pid, Tid: tid, Args: args(s)})
			}
		}
	}
	// A counter per resource: its holders over time, from the same holds
	// as the resource table's mean and max holders.
	if len(r.holds) > 0 {
		pid := pidOf("lock holders")
		type edge struct {
			at    time.Time
			delta int
		}
		by := map[string][]edge{}
		for _, h := range r.holds {
			by[h.Resource] = append(by[h.Resource], edge{h.Granted, +1}, edge{h.Released, -1})
		}
		for _, x := range r.Resources {
			edges := by[x.Resource]
			sort.Slice(edges, func(i, j int) bool {
				if !edges[i].at.Equal(edges[j].at) {
					return edges[i].at.Before(edges[j].at)
				}
				return edges[i].delta < edges[j].delta
			})
			n := 0
			for i, e := range edges {
				if !in(e.at) {
					break
				}
				n += e.delta
				if i+1 < len(edges) && edges[i+1].at.Equal(e.at) {
					continue // one sample per instant
				}
				evs = append(evs, chromeEvent{Name: x.Resource, Ph: "C", Ts: us(e.at), Pid: pid, Args: map[string]any{"holders": n}})
			}
		}
	}
	doc := map[string]any{"traceEvents": evs, "displayTimeUnit": "ms"}
	if note := r.timelineNote(); note != "" {
		doc["otherData"] = map[string]any{"note": note}
	}
	return json.NewEncoder(w).Encode(doc)
}

func eventName(group string, s *tracefile.Span) string {
	if group == "locks" {
		return fmt.Sprintf("%s p%d", stageName(s), s.IntOr("prooflane.partition", -1))
	}
	return s.Name
}

func args(s *tracefile.Span) map[string]any {
	a := make(map[string]any, len(s.Attrs)+2)
	for k, v := range s.Attrs {
		a[k] = v
	}
	a["status"] = s.Status
	if s.StatusMessage != "" {
		a["status_message"] = s.StatusMessage
	}
	return a
}
