package service

import (
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"testing"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/stages/groth16/bls12381/keys"
)

func TestMetricsEndpointCountsAJobsLifeInPrometheusFormat(t *testing.T) {
	m, err := NewMetrics()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h := newHarnessWith(t, "", m)
	h.start(WorkerConfig{Name: "w1"})
	id := h.submit(testSpec(5), pb.Priority_PRIORITY_HIGH)
	res, err := h.await(id)
	if err != nil {
		t.Fatal(err)
	}
	verifyProofs(t, h.keys, testSpec(5), res.Proofs)
	resp, err := http.Get(h.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	value := func(series string) float64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
		if m == nil {
			t.Errorf("no series %s in:\n%s", series, body)
			return 0
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	var keyBytes float64
	r1cs, pk, vk := keys.Cache{Dir: h.keys}.Paths(testCircuit, testSize)
	for _, f := range []string{r1cs, pk, vk} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		keyBytes += float64(st.Size())
	}
	for series, want := range map[string]float64{
		`prooflane_service_jobs_total{state="queued"}`:   1,
		`prooflane_service_jobs_total{state="done"}`:     1,
		`prooflane_service_job_latency_seconds_count`:    1,
		`prooflane_service_queue_depth{lane="high"}`:     0,
		`prooflane_service_jobs_active{state="running"}`: 0,
		`prooflane_service_resident_key_bytes`:           keyBytes,
	} {
		if got := value(series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if value(`prooflane_service_device_busy_seconds_total{device="0"}`) <= 0 {
		t.Error("no device busy time recorded")
	}
	if !regexp.MustCompile(`(?m)^prooflane_service_lock_wait_seconds_count\{resource="[^"]+"\} [1-9]`).Match(body) {
		t.Errorf("no lock wait recorded:\n%s", body)
	}
}
