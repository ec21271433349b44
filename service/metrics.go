package service

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/prooflane/prooflane/runtime"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// Metrics are the service's OpenTelemetry metrics, exported for
// Prometheus by Handler. One Metrics serves a process: its server, its
// worker and the worker's runner report to it. The instruments:
//
//	prooflane_service_queue_depth{lane}          jobs waiting on a lane (server)
//	prooflane_service_jobs_total{state}           jobs submitted, done, failed, cancelled
//	prooflane_service_jobs_active{state}          jobs admitting or running (worker)
//	prooflane_service_job_latency_seconds         submit to proofs stored, per job (worker)
//	prooflane_service_lock_wait_seconds{resource} a stage's wait for a lock or worker (worker)
//	prooflane_service_device_busy_seconds_total{device}  time a busy stage ran on a device
//	prooflane_service_resident_key_bytes          bytes of the keys the runner holds
type Metrics struct {
	reg      *prometheus.Registry
	provider *sdkmetric.MeterProvider

	jobs     metric.Int64Counter
	latency  metric.Float64Histogram
	lockWait metric.Float64Histogram
	busy     metric.Float64Counter

	mu       sync.Mutex
	active   map[pb.JobState]int64
	started  map[stageKey]time.Time
	lanes    func(context.Context) ([]*pb.LaneDepth, error)
	resident func() uint64
}

type stageKey struct {
	job       string
	partition int
	stage     string
}

// NewMetrics makes the instruments on a registry of their own.
func NewMetrics() (*Metrics, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	m := &Metrics{reg: reg, active: map[pb.JobState]int64{}, started: map[stageKey]time.Time{}}
	m.provider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithView(sdkmetric.NewView(
		sdkmetric.Instrument{Name: "prooflane.service.job.latency"},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{
			Boundaries: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800},
		}})))
	meter := m.provider.Meter("github.com/prooflane/prooflane/service")
	if m.jobs, err = meter.Int64Counter("prooflane.service.jobs", metric.WithDescription("jobs by the state they reached")); err != nil {
		return nil, err
	}
	if m.latency, err = meter.Float64Histogram("prooflane.service.job.latency", metric.WithUnit("s"),
		metric.WithDescription("a job's time from submit to its proofs stored")); err != nil {
		return nil, err
	}
	if m.lockWait, err = meter.Float64Histogram("prooflane.service.lock.wait", metric.WithUnit("s"),
		metric.WithDescription("a stage instance's wait for a lock or a worker")); err != nil {
		return nil, err
	}
	if m.busy, err = meter.Float64Counter("prooflane.service.device.busy", metric.WithUnit("s"),
		metric.WithDescription("time stages that keep the device busy ran on it")); err != nil {
		return nil, err
	}
	depth, err := meter.Int64ObservableGauge("prooflane.service.queue.depth", metric.WithDescription("jobs waiting on a lane"))
	if err != nil {
		return nil, err
	}
	active, err := meter.Int64ObservableGauge("prooflane.service.jobs.active", metric.WithDescription("jobs a worker of this process admits or runs"))
	if err != nil {
		return nil, err
	}
	keyBytes, err := meter.Int64ObservableGauge("prooflane.service.resident_key", metric.WithUnit("By"), metric.WithDescription("bytes of the keys the runner holds"))
	if err != nil {
		return nil, err
	}
	_, err = meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		m.mu.Lock()
		lanes, resident := m.lanes, m.resident
		for _, s := range []pb.JobState{pb.JobState_JOB_STATE_ADMITTING, pb.JobState_JOB_STATE_RUNNING} {
			o.ObserveInt64(active, m.active[s], metric.WithAttributes(attribute.String("state", LaneState(s))))
		}
		m.mu.Unlock()
		if resident != nil {
			o.ObserveInt64(keyBytes, int64(resident()))
		}
		if lanes != nil {
			ds, err := lanes(ctx)
			if err != nil {
				return err
			}
			for _, d := range ds {
				o.ObserveInt64(depth, int64(d.Queued), metric.WithAttributes(attribute.String("lane", LaneName(d.Priority))))
			}
		}
		return nil
	}, depth, active, keyBytes)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Close stops the meter provider.
func (m *Metrics) Close() error { return m.provider.Shutdown(context.Background()) }

// ObserveResident makes the resident key gauge read f at each scrape.
func (m *Metrics) ObserveResident(f func() uint64) {
	if m != nil {
		m.mu.Lock()
		m.resident = f
		m.mu.Unlock()
	}
}

// job counts a job reaching state.
func (m *Metrics) job(state pb.JobState) {
	if m != nil {
		m.jobs.Add(context.Background(), 1, metric.WithAttributes(attribute.String("state", LaneState(state))))
	}
}

// activeDelta moves a job into (+1) or out of (-1) state.
func (m *Metrics) activeDelta(state pb.JobState, d int64) {
	if m != nil {
		m.mu.Lock()
		m.active[state] += d
		m.mu.Unlock()
	}
}

func (m *Metrics) jobLatency(submitted int64) {
	if m != nil && submitted > 0 {
		m.latency.Record(context.Background(), time.Since(time.UnixMilli(submitted)).Seconds())
	}
}

// event records an engine event of pipeline p: lock waits, and the time
// the stages that keep their device busy ran.
func (m *Metrics) event(p *runtime.Pipeline, ev runtime.Event) {
	if m == nil {
		return
	}
	ctx := context.Background()
	switch ev.Kind {
	case runtime.LockGranted:
		m.lockWait.Record(ctx, ev.Wait.Seconds(), metric.WithAttributes(attribute.String("resource", ev.Resource)))
	case runtime.StageStarted, runtime.StageDone:
		busy := false
		for _, s := range p.Stages {
			if s.Name == ev.Stage {
				busy = s.DeviceBusy
				break
			}
		}
		if !busy {
			return
		}
		k := stageKey{ev.Job, ev.Partition, ev.Stage}
		m.mu.Lock()
		defer m.mu.Unlock()
		if ev.Kind == runtime.StageStarted {
			m.started[k] = ev.Time
			return
		}
		if t, ok := m.started[k]; ok {
			delete(m.started, k)
			m.busy.Add(ctx, ev.Time.Sub(t).Seconds(), metric.WithAttributes(attribute.Int("device", ev.Device)))
		}
	}
}
