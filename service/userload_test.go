package service

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/consensys/gnark/backend/witness"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// userLoadReport is the user circuit load test's figures, printed after
// the tests like clusterReport.
var userLoadReport string

// doneLine is a worker's line for a job it proved and stored.
var doneLine = regexp.MustCompile(`(?m)^worker \S+: job (\S+): done, \d+ proofs$`)

// 1,000 jobs of a user's circuit (defined in the test, its keys from
// gnark's setup), each carrying its own witness, in all four lanes,
// through `serve --workers 0` and two `prooflane worker` processes, one of
// them SIGKILLed while it runs jobs: no job is lost (the load test awaits
// every one to its proofs, and gnark's verifier accepts each against the
// test's verifying key and the public witness the test recomputes), none
// is proved twice (each job's "done" line appears at most once across the
// workers' logs, and awaiting it again returns the same proofs), and the
// load test's p50, p99 and throughput are reported.
func TestLoadTestOfAUsersCircuitLosesNoJobAndProvesNoneTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and runs 1,000 jobs")
	}
	const jobs = 1000
	dir, keysDir := t.TempDir(), t.TempDir()
	natsPort := freePort(t)
	// A 10 s ack wait: a live worker's heartbeats (every third of it) are
	// never late on a busy machine, so only the killed worker's jobs go
	// to another.
	p := startProc(t, "serve", "--workers", "0", "--addr", "127.0.0.1:0", "--data", dir,
		"--nats-listen", "127.0.0.1:"+strconv.Itoa(natsPort), "--ack-wait", "10s")
	cl := prooflanev1connect.NewProverServiceClient(http.DefaultClient, p.awaitURL(t, "http"))
	worker := func(name string) *proc {
		return startProc(t, "worker", "--nats", "nats://127.0.0.1:"+strconv.Itoa(natsPort), "--data", dir, "--keys", keysDir,
			"--workers", "2", "--name", name, "--ack-wait", "10s")
	}
	victim, survivor := worker("victim"), worker("survivor")
	u := newUserCircuit(t, "groth16", &userCubic{})
	added, err := AddCircuit(context.Background(), cl, CircuitFiles{CCS: u.ccs, PK: u.pk, VK: u.vk})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	pubs := map[string]witness.Witness{}
	cfg := LoadConfig{
		Jobs: jobs, Concurrency: 16, Spec: &pb.JobSpec{CircuitId: added.Circuit.CircuitId},
		Priorities: []pb.Priority{pb.Priority_PRIORITY_CRITICAL, pb.Priority_PRIORITY_HIGH, pb.Priority_PRIORITY_NORMAL, pb.Priority_PRIORITY_LOW},
		Witnesses: func(i int) []*pb.Witness {
			full, pub := cubicWitness(t, int64(i)+2, int64(i%7))
			mu.Lock()
			pubs[string(full)] = pub
			mu.Unlock()
			return []*pb.Witness{{Source: &pb.Witness_Data{Data: full}}}
		},
		Verify: func(spec *pb.JobSpec, proofs []*pb.Proof) error {
			mu.Lock()
			pub := pubs[string(spec.Witnesses[0].GetData())]
			mu.Unlock()
			if len(proofs) != 1 {
				return fmt.Errorf("%d proofs, want 1", len(proofs))
			}
			if err := checkPublic(proofs[0], pub); err != nil {
				return err
			}
			return gnarkVerify("groth16", proofs[0].Proof, u.vkey, pub)
		},
	}
	type result struct {
		rep *LoadReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := LoadTest(context.Background(), cl, cfg)
		done <- result{rep, err}
	}()
	logOf := func(w *proc) string {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.log.String()
	}
	waitFor(t, "the victim proving 50 jobs", func() bool { return len(doneLine.FindAllString(logOf(victim), -1)) >= 50 })
	// The victim dies holding a job, however the timing falls.
	held := victim.killHolding(t, func() []string { return runningOn(t, cl, "victim") })
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	rep := res.rep
	proved := map[string]int{}
	for _, w := range []*proc{victim, survivor} {
		for _, m := range doneLine.FindAllStringSubmatch(logOf(w), -1) {
			proved[m[1]]++
		}
	}
	isHeld := map[string]bool{}
	for _, id := range held {
		isHeld[id] = true
	}
	redelivered := 0
	for _, id := range rep.IDs {
		if proved[id] > 1 {
			t.Errorf("job %s proved %d times", id, proved[id])
		}
		first, err := awaitJob(cl, id)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		again, err := awaitJob(cl, id)
		if err != nil || string(again.Proofs[0].Proof) != string(first.Proofs[0].Proof) {
			t.Errorf("job %s: awaited again: %v, or another proof", id, err)
		}
		if first.Status.Deliveries > 1 {
			redelivered++
		}
		// A job the victim held is the survivor's: proved again, or,
		// where the victim stored its result before it died, finished.
		if isHeld[id] && first.Status.Deliveries < 2 && first.Status.Worker != "victim" {
			t.Errorf("job %s, held by the victim when it died: done by %s after %d deliveries", id, first.Status.Worker, first.Status.Deliveries)
		}
	}
	if len(rep.Lanes) != 4 || rep.Lanes[0].Lane != "critical" || rep.Lanes[0].Jobs != jobs/4 {
		t.Errorf("lanes: %+v, want the four, %d jobs each", rep.Lanes, jobs/4)
	}
	var lanes []string
	for _, l := range rep.Lanes {
		lanes = append(lanes, fmt.Sprintf("%s p50 %.0f ms, p99 %.0f ms", l.Lane, ms(l.P50), ms(l.P99)))
	}
	userLoadReport = fmt.Sprintf("user circuit load test: %d jobs of %s (%d constraints, a witness each, four lanes) through serve and two workers, one SIGKILLed after 50 jobs: "+
		"%.1fs, %.1f jobs/s, p50 %.0f ms, p99 %.0f ms, max %.0f ms (%s); %d jobs held by the victim when it died, %d proved again by the survivor, none lost, none proved twice",
		jobs, added.Circuit.CircuitId, added.Circuit.Constraints, rep.Elapsed.Seconds(), rep.JobsPerSecond,
		ms(rep.P50), ms(rep.P99), ms(rep.Max), strings.Join(lanes, "; "), len(held), redelivered)
	t.Log(userLoadReport)
	// Every job's record says done.
	list, err := cl.List(context.Background(), connect.NewRequest(&pb.ListRequest{Limit: MaxListJobs}))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range list.Msg.Jobs {
		if j.State != pb.JobState_JOB_STATE_DONE {
			t.Errorf("job %s: %s", j.JobId, LaneState(j.State))
		}
	}
}
