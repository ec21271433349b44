package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
)

// metricValue reads one series from the harness's /metrics.
func (h *harness) metricValue(series string) float64 {
	h.t.Helper()
	resp, err := http.Get(h.url + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		h.t.Fatalf("no series %s in:\n%s", series, body)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// List shows the newest jobs first and pages to the oldest.
func TestListShowsTheNewestJobsFirstAndPagesToTheOldest(t *testing.T) {
	h := newHarness(t, "")
	var ids []string
	for i := range 5 {
		ids = append(ids, h.submit(testSpec(uint64(i+1)), 0))
	}
	var got []string
	token := ""
	for page := 0; ; page++ {
		if page > 3 {
			t.Fatalf("more than 3 pages of 2 for 5 jobs: %v", got)
		}
		resp, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{Limit: 2, PageToken: token}))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Msg.Jobs) == 0 || len(resp.Msg.Jobs) > 2 {
			t.Fatalf("page %d: %d jobs, want 1 or 2", page, len(resp.Msg.Jobs))
		}
		for _, j := range resp.Msg.Jobs {
			got = append(got, j.JobId)
		}
		token = resp.Msg.NextPageToken
		if token == "" {
			break
		}
	}
	want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("listed %v, want the newest first %v", got, want)
	}
	_, err := h.client.List(context.Background(), connect.NewRequest(&pb.ListRequest{PageToken: "x1"}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), `page_token "x1": not a next_page_token`) {
		t.Errorf("bad page token: %v", err)
	}
}

// Cancelling a job that has already ended, cancelled included, is
// refused naming its state, and the job is counted cancelled once.
func TestCancellingAnEndedJobIsRefusedAndCountedOnce(t *testing.T) {
	m, err := NewMetrics()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h := newHarnessWith(t, "", m)
	id := h.submit(testSpec(1), 0)
	cancel := func() error {
		_, err := h.client.Cancel(context.Background(), connect.NewRequest(&pb.CancelRequest{JobId: id}))
		return err
	}
	if err := cancel(); err != nil {
		t.Fatal(err)
	}
	err = cancel()
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), `job "`+id+`" already ended: cancelled`) {
		t.Errorf("second cancel: %v, want failed_precondition naming the state", err)
	}
	if n := h.metricValue(`prooflane_service_jobs_total{state="cancelled"}`); n != 1 {
		t.Errorf("jobs_total{state=cancelled} = %v after two cancels of one job, want 1", n)
	}
}

// forge writes res as job id's result, as a process on the queue's NATS
// could, and (when done) marks the job done.
func (h *harness) forge(id string, res result, done bool) {
	h.t.Helper()
	ctx := context.Background()
	b, err := json.Marshal(res)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.srv.st.results.Put(ctx, id, b); err != nil {
		h.t.Fatal(err)
	}
	if !done {
		return
	}
	if _, err := h.srv.st.update(ctx, id, func(r *record) bool {
		r.State, r.Worker = pb.JobState_JOB_STATE_DONE, res.Worker
		return true
	}); err != nil {
		h.t.Fatal(err)
	}
}

// zeroProofs is an all-zero "result" of one partition.
func zeroProofs() []PartitionProof {
	return []PartitionProof{{Partition: 0, Proof: make([]byte, 384), Public: make([]byte, 12)}}
}

// A result written by something other than a worker of the queue, before
// the worker finished, does not stand: the worker's own replaces it and
// await returns that.
func TestAResultWithoutTheQueuesMACIsReplacedByTheWorkers(t *testing.T) {
	h := newHarness(t, "")
	id := h.submit(testSpec(3), 0)
	h.forge(id, result{Worker: "intruder", Proofs: zeroProofs()}, false)
	h.start(WorkerConfig{Name: "w1"})
	res, err := h.await(id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.Worker != "w1" {
		t.Errorf("job done by %q, want w1", res.Status.Worker)
	}
	verifyProofs(t, h.keys, testSpec(3), res.Proofs)
}

// Await refuses a result whose MAC is missing, made with another secret,
// or made for another job: the stream ends with data_loss naming the
// job, and no proof is sent.
func TestAwaitRefusesAResultWhoseMACIsMissingOrWrong(t *testing.T) {
	h := newHarness(t, "")
	stop := h.startStoppable(WorkerConfig{Name: "w1"})
	real := h.submit(testSpec(1), 0)
	good, err := h.await(real)
	if err != nil {
		t.Fatal(err)
	}
	stop() // no worker runs the jobs forged below
	stored, _, err := h.srv.st.result(context.Background(), &record{ID: real, SpecHash: testSpecHash(t, h, real)})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewSecret()
	for name, forge := range map[string]func(id, specHash string) result{
		"missing": func(string, string) result { return result{Worker: "w1", Proofs: zeroProofs()} },
		"another secret's": func(id, specHash string) result {
			return result{Worker: "w1", Proofs: zeroProofs(), MAC: other.resultMAC(id, "w1", specHash, zeroProofs())}
		},
		"another job's": func(string, string) result { return *stored },
	} {
		// A job of the same spec: another job's proofs would verify.
		id := h.submit(testSpec(1), 0)
		h.forge(id, forge(id, testSpecHash(t, h, id)), true)
		res, err := h.await(id)
		if connect.CodeOf(err) != connect.CodeDataLoss || !strings.Contains(err.Error(), `job "`+id+`": the result stored by "w1" fails its integrity check`) {
			t.Errorf("%s MAC: %v, want data_loss naming the job", name, err)
		}
		if res != nil && len(res.Proofs) > 0 {
			t.Errorf("%s MAC: %d proofs sent", name, len(res.Proofs))
		}
	}
	if len(good.Proofs) != 1 {
		t.Fatalf("the real job: %d proofs", len(good.Proofs))
	}
}

// testSpecHash is the spec hash in job id's record.
func testSpecHash(t *testing.T, h *harness, id string) string {
	t.Helper()
	r, _, err := h.srv.st.get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r.SpecHash
}
