package analyze

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prooflane/prooflane/otel/lockstats"
	pl "github.com/prooflane/prooflane/otel/semconv"
	"github.com/prooflane/prooflane/otel/tracefile"
)

// Timeline geometry, in SVG pixels.
const (
	labelW   = 230
	plotW    = 1120
	laneH    = 14
	laneGap  = 2
	trackGap = 6
	axisH    = 24
)

// palette colours stages in the order they first ran, so neighbours in
// the pipeline differ.
var palette = []string{
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
	"#ff9da7", "#9c755f", "#e15759", "#bab0ac", "#1f77b4", "#8c564b",
}

// stageColors maps each stage of the report to its colour.
func (r *Report) stageColors() func(string) string {
	m := map[string]string{}
	for i, s := range r.Stages {
		m[s.Name] = palette[i%len(palette)]
	}
	return func(name string) string {
		if c, ok := m[name]; ok {
			return c
		}
		return "#999999"
	}
}

type svgBar struct {
	X, Y, W, H float64
	Fill       string
	Class      string // "run", "wait", "busy", "idle", "job", "err"
	Tip        string
}

type svgRow struct {
	Label  string
	Group  string
	Y, H   float64
	LabelY float64
	Shade  bool
}

type svgTick struct {
	X     float64
	Label string
}

type legendItem struct{ Name, Color string }

type htmlPage struct {
	Title    string
	Subtitle string
	Note     string // what a partial timeline leaves out
	R        *Report
	W, H     float64
	PlotX    float64
	PlotW    float64
	Rows     []svgRow
	Bars     []svgBar
	Ticks    []svgTick
	Legend   []legendItem
	Resource []string
	// LockLegend defines the resource table's columns; Data is the
	// report as analyze --json writes it, for scripts reading the page.
	LockLegend string
	Data       template.JS
}

// WriteHTML writes a self-contained page: the timeline (a row per device,
// resource, resource waiters and stage worker; stage runs coloured by
// stage, lock waits hatched, hover for attributes) and the report's
// tables. title heads the page. A partial timeline (Report.Timeline) draws
// the stretch it holds whole, and the page says so.
func (r *Report) WriteHTML(w io.Writer, title string) error {
	stageColor := r.stageColors()
	pg := &htmlPage{Title: title, R: r, PlotX: labelW, PlotW: plotW, W: labelW + plotW + 20, LockLegend: lockstats.Legend}
	// encoding/json escapes <, > and &, so the data cannot close the
	// script element it sits in.
	data, err := json.Marshal(r.JSON())
	if err != nil {
		return err
	}
	pg.Data = template.JS(data)
	pg.Subtitle = resourceLine(r.t)
	pg.Note = r.timelineNote()
	// A partial timeline draws its window: what starts in it, cut at its
	// end.
	end, partial := r.window()
	origin, span := r.Start, end.Sub(r.Start)
	if span <= 0 {
		span = time.Millisecond
	}
	x := func(t time.Time) float64 { return labelW + plotW*float64(t.Sub(origin))/float64(span) }
	width := func(a, b time.Time) float64 { return math.Max(0.75, x(b)-x(a)) }

	y := float64(axisH)
	addRow := func(label, group string, lanes int, shade bool) (top float64) {
		h := float64(lanes)*(laneH+laneGap) - laneGap
		pg.Rows = append(pg.Rows, svgRow{Label: label, Group: group, Y: y - trackGap/2, H: h + trackGap, LabelY: y + math.Min(h, laneH) - 3, Shade: shade})
		top = y
		y += h + trackGap
		return top
	}
	shade := false
	for _, d := range r.Devices {
		shade = !shade
		top := addRow(fmt.Sprintf("gpu %d busy %.0f%%", d.Device, d.BusyPct), "devices", 1, shade)
		for _, iv := range r.busy[d.Device] {
			if partial && !iv.Start.Before(end) {
				break
			}
			pg.Bars = append(pg.Bars, svgBar{X: x(iv.Start), Y: top, W: width(iv.Start, minTime(iv.End, end)), H: laneH, Fill: "#2e7d32", Class: "busy",
				Tip: fmt.Sprintf("gpu %d busy\n+%s for %s", d.Device, lockstats.Dur(iv.Start.Sub(origin)), lockstats.Dur(iv.dur()))})
		}
		for _, g := range d.Gaps {
			s := origin.Add(g.Offset)
			if partial && !s.Before(end) {
				break
			}
			pg.Bars = append(pg.Bars, svgBar{X: x(s), Y: top, W: width(s, minTime(s.Add(g.Duration), end)), H: laneH, Fill: "#ffcdd2", Class: "idle",
				Tip: fmt.Sprintf("gpu %d idle %s at +%s\nrunning meanwhile: %s", d.Device, lockstats.Dur(g.Duration), lockstats.Dur(g.Offset), orNone(g.Running))})
		}
	}
	stagesSeen := map[string]bool{}
	lastGroup := ""
	for _, tr := range tracks(r.t) {
		if tr.Group != "waits" {
			shade = !shade
		}
		label := tr.Name
		if tr.Group != lastGroup && (tr.Group == "workers" || tr.Group == "kernels" || tr.Group == "jobs") {
			y += trackGap
		}
		lastGroup = tr.Group
		top := addRow(label, tr.Group, len(tr.Lanes), shade)
		for li, lane := range tr.Lanes {
			ly := top + float64(li)*(laneH+laneGap)
			for _, s := range lane {
				b := svgBar{X: x(s.Start), Y: ly, W: width(s.Start, minTime(s.End, end)), H: laneH, Tip: tooltip(s, origin), Class: "run"}
				switch tr.Group {
				case "waits":
					b.Class, b.Fill = "wait", "url(#hatch)"
					b.Y, b.H = ly+3, laneH-6
				case "jobs":
					b.Class, b.Fill = "job", "#cfd8dc"
				case "kernels":
					b.Fill = kernelColor(s.Str("prooflane.kernel"))
				default:
					n := stageName(s)
					b.Fill = stageColor(n)
					stagesSeen[n] = true
				}
				if s.Status == tracefile.StatusError {
					b.Class += " err"
				}
				pg.Bars = append(pg.Bars, b)
			}
		}
	}
	pg.H = y + 8
	for _, s := range r.Stages {
		if stagesSeen[s.Name] {
			pg.Legend = append(pg.Legend, legendItem{s.Name, stageColor(s.Name)})
		}
	}
	// Counting ticks rather than adding steps: near the longest Duration
	// (a trace whose timestamps are centuries apart) t += step overflows.
	step := tickStep(span)
	for i := range int64(span/step) + 1 {
		t := time.Duration(i) * step
		pg.Ticks = append(pg.Ticks, svgTick{X: x(origin.Add(t)), Label: lockstats.Dur(t)})
	}
	tmpl, err := pageTmpl.Clone()
	if err != nil {
		return err
	}
	return tmpl.Funcs(template.FuncMap{"color": stageColor}).Execute(w, pg)
}

// resourceLine says what the run recorded about itself, without naming
// any attribute a command or a family sets: service.name, then every
// prooflane.* resource attribute (pipeline, its hash, backend, devices, and
// whatever the command adds, such as a family's circuit and size), then
// any other attribute every job span carries with one value, then
// host.name. The runtime's own bookkeeping on job spans (kind, job id,
// partitions, pipeline) is left out.
func resourceLine(t *trace) string {
	if t.spans == 0 {
		return ""
	}
	res := t.resource
	var parts []string
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s %s", k, attrText(v))) }
	if v, ok := res["service.name"]; ok {
		add("service.name", v)
	}
	shown := map[string]bool{}
	for _, k := range sortedKeys(res) {
		if strings.HasPrefix(k, "prooflane.") {
			add(k, res[k])
			shown[k] = true
		}
	}
	bookkeeping := map[string]bool{string(pl.KeyKind): true, string(pl.KeyJob): true, string(pl.KeyPartitions): true, string(pl.KeyPipeline): true}
	for _, k := range slices.Sorted(maps.Keys(t.jobAttrs)) {
		if !bookkeeping[k] && !shown[k] {
			parts = append(parts, k+" "+t.jobAttrs[k])
		}
	}
	if v, ok := res["host.name"]; ok {
		add("host.name", v)
	}
	return strings.Join(parts, " · ")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// attrText prints an attribute value; a list as [a, b].
func attrText(v any) string {
	if l, ok := v.([]any); ok {
		parts := make([]string, len(l))
		for i, x := range l {
			parts[i] = fmt.Sprint(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// tickStep picks 1, 2 or 5 × 10^k so the axis has 5 to 12 ticks.
func tickStep(span time.Duration) time.Duration {
	raw := float64(span) / 10
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return max(time.Duration(m*mag), time.Microsecond)
		}
	}
	return time.Duration(10 * mag)
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"dur": lockstats.Dur, "pct": pct, "color": func(string) string { return "" },
	"f":      func(x float64) string { return fmt.Sprintf("%.1f", x) },
	"pct100": func(x float64) string { return fmt.Sprintf("%.1f%%", x) },
}).Parse(pageHTML))

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "nothing"
	}
	return strings.Join(xs, ", ")
}

// kernelColor gives kernels greys and slate blues, apart from the stage
// colours.
func kernelColor(name string) string {
	shades := []string{"#546e7a", "#78909c", "#90a4ae", "#455a64", "#607d8b", "#37474f"}
	h := 0
	for _, c := range name {
		h = h*31 + int(c)
	}
	if h < 0 {
		h = -h
	}
	return shades[h%len(shades)]
}
