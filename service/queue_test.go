package service

import (
	"context"
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
