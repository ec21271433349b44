package analyze

import (
	"encoding/json"
	"io"
	"time"
)

// JSONSchema names the layout WriteJSON writes; it changes when a field
// changes meaning or goes away (fields may be added within one version).
const JSONSchema = "prooflane.analyze/v1"

// JSONReport is the report as `prooflane analyze --json` writes it and the
// HTML report embeds it. Times are RFC 3339; durations are float
// milliseconds (fields ending in _ms); shares are 0 to 1 except the *_pct
// fields, which are percent. docs/observability.md documents each field.
type JSONReport struct {
	Schema          string         `json:"schema"`
	Start           time.Time      `json:"start"`
	End             time.Time      `json:"end"`
	MakespanMS      float64        `json:"makespan_ms"`
	Spans           int            `json:"spans"`
	Jobs            int            `json:"jobs"`
	JobsFailed      int            `json:"jobs_failed"`
	Partitions      int            `json:"partitions"`
	ProofsPerMinute float64        `json:"proofs_per_minute"`
	JobsPerMinute   float64        `json:"jobs_per_minute"`
	Stages          []JSONStage    `json:"stages"`
	Kernels         []JSONKernel   `json:"kernels"`
	Resources       []JSONResource `json:"resources"`
	BusyRule        string         `json:"busy_rule"`
	Devices         []JSONDevice   `json:"devices"`
	Critical        *JSONCritical  `json:"critical_path"` // null without job spans
	Warnings        []string       `json:"warnings"`
}

// JSONStage is one row of the stages table.
type JSONStage struct {
	Name       string  `json:"name"`
	Type       string  `json:"type"`
	Count      int     `json:"count"`
	Errors     int     `json:"errors"`
	MeanMS     float64 `json:"mean_ms"`
	P50MS      float64 `json:"p50_ms"`
	P95MS      float64 `json:"p95_ms"`
	MaxMS      float64 `json:"max_ms"`
	TotalMS    float64 `json:"total_ms"`
	MeanWaitMS float64 `json:"mean_wait_ms"`
}

// JSONKernel is one row of the kernels table.
type JSONKernel struct {
	Name      string  `json:"name"`
	Count     int     `json:"count"`
	MeanMS    float64 `json:"mean_ms"`
	P95MS     float64 `json:"p95_ms"`
	MaxMS     float64 `json:"max_ms"`
	TotalMS   float64 `json:"total_ms"`
	GPUTimeMS float64 `json:"gpu_time_ms"`
}

// JSONResource is one lock or worker pool (package lockstats defines the
// figures).
type JSONResource struct {
	Resource    string  `json:"resource"`
	Device      int     `json:"device"`   // the resource's device (prooflane.resource_device), -1 for the machine's
	Capacity    int64   `json:"capacity"` // 0 when the trace does not say
	Holds       int     `json:"holds"`
	HeldMS      float64 `json:"held_ms"`
	Utilization float64 `json:"utilization"`
	MeanHolders float64 `json:"mean_holders"`
	MaxHolders  int     `json:"max_holders"`
	Waits       int     `json:"waits"`
	Contention  float64 `json:"contention"`
	WaitTotalMS float64 `json:"wait_total_ms"`
	WaitMeanMS  float64 `json:"wait_mean_ms"`
	WaitMaxMS   float64 `json:"wait_max_ms"`
}

// JSONDevice is one device's busy time and idle gaps.
type JSONDevice struct {
	Device    int       `json:"device"`
	BusyMS    float64   `json:"busy_ms"`
	BusyPct   float64   `json:"busy_pct"`
	IdleMS    float64   `json:"idle_ms"`
	KernelPct float64   `json:"kernel_pct"`
	Gaps      []JSONGap `json:"gaps"`
}

// JSONGap is one idle gap of a device.
type JSONGap struct {
	OffsetMS   float64  `json:"offset_ms"`
	DurationMS float64  `json:"duration_ms"`
	Running    []string `json:"running"`
}

// JSONCritical is the critical path of the slowest job.
type JSONCritical struct {
	Job        string     `json:"job"`
	DurationMS float64    `json:"duration_ms"`
	LeadMS     float64    `json:"lead_ms"`
	RunMS      float64    `json:"run_ms"`
	WaitMS     float64    `json:"wait_ms"`
	Steps      []JSONStep `json:"steps"`
}

// JSONStep is one stage run on the critical path.
type JSONStep struct {
	Stage     string   `json:"stage"`
	Partition int      `json:"partition"`
	Device    int      `json:"device"`
	Attempt   int      `json:"attempt"`
	OffsetMS  float64  `json:"offset_ms"`
	WaitMS    float64  `json:"wait_ms"`
	RunMS     float64  `json:"run_ms"`
	WaitedOn  []string `json:"waited_on"`
	Failed    bool     `json:"failed"`
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// JSON returns the report in the layout of JSONReport.
func (r *Report) JSON() *JSONReport {
	j := &JSONReport{Schema: JSONSchema, Start: r.Start.UTC(), End: r.End.UTC(), MakespanMS: msf(r.Makespan), Spans: r.Spans,
		Jobs: r.Jobs, JobsFailed: r.JobsFailed, Partitions: r.Partitions, ProofsPerMinute: r.ProofsPerMinute,
		JobsPerMinute: r.JobsPerMinute, BusyRule: r.BusyRule,
		Stages: []JSONStage{}, Kernels: []JSONKernel{}, Resources: []JSONResource{}, Devices: []JSONDevice{}, Warnings: []string{}}
	for _, s := range r.Stages {
		j.Stages = append(j.Stages, JSONStage{s.Name, s.Type, s.Count, s.Errors, msf(s.Mean), msf(s.P50), msf(s.P95), msf(s.Max), msf(s.Total), msf(s.MeanWait)})
	}
	for _, k := range r.Kernels {
		j.Kernels = append(j.Kernels, JSONKernel{k.Name, k.Count, msf(k.Mean), msf(k.P95), msf(k.Max), msf(k.Total), msf(k.GPUTime)})
	}
	for _, x := range r.Resources {
		j.Resources = append(j.Resources, JSONResource{Resource: x.Resource, Device: x.Device, Capacity: x.Capacity, Holds: x.Holds,
			HeldMS: msf(x.Held), Utilization: x.Utilization, MeanHolders: x.MeanHolders, MaxHolders: x.MaxHolders, Waits: x.Waits,
			Contention: x.Contention, WaitTotalMS: msf(x.WaitTotal), WaitMeanMS: msf(x.WaitMean), WaitMaxMS: msf(x.WaitMax)})
	}
	for _, d := range r.Devices {
		jd := JSONDevice{Device: d.Device, BusyMS: msf(d.Busy), BusyPct: d.BusyPct, IdleMS: msf(d.Idle), KernelPct: d.KernelPct, Gaps: []JSONGap{}}
		for _, g := range d.Gaps {
			jd.Gaps = append(jd.Gaps, JSONGap{msf(g.Offset), msf(g.Duration), append([]string{}, g.Running...)})
		}
		j.Devices = append(j.Devices, jd)
	}
	if cp := r.Critical; cp != nil {
		jc := &JSONCritical{Job: cp.Job, DurationMS: msf(cp.Duration), LeadMS: msf(cp.Lead), RunMS: msf(cp.Run), WaitMS: msf(cp.Wait), Steps: []JSONStep{}}
		for _, s := range cp.Steps {
			jc.Steps = append(jc.Steps, JSONStep{s.Stage, s.Partition, s.Device, s.Attempt, msf(s.Offset), msf(s.Wait), msf(s.Run),
				append([]string{}, s.WaitedOn...), s.Failed})
		}
		j.Critical = jc
	}
	j.Warnings = append(j.Warnings, r.Warnings...)
	return j
}

// WriteJSON writes the report as one indented JSON document (JSONReport).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
