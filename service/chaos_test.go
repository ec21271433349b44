package service

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"connectrpc.com/connect"

	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// The service's chaos run: 200 jobs through two worker processes while
// serve is killed (SIGKILL) twice and restarted on its data, a worker is
// killed mid-job and replaced, a result without the queue's MAC is
// written for a job before any worker reaches it, and a Preload far above
// every worker's budget is sent. Every job ends done exactly once, its
// proof verified by gnark against the key cache and its public inputs
// the seed's; the forged result never comes out; the processes' memory
// stays bounded.
func TestChaosTwoHundredJobsSurviveKillsAForgedResultAndAHugePreload(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	const jobs = 200
	dir, keysDir := t.TempDir(), t.TempDir()
	natsPort := freePort(t)
	nats := "nats://127.0.0.1:" + strconv.Itoa(natsPort)
	serve, cl := serveProc(t, dir, natsPort)
	ids, specs := submitJobs(t, cl, 7000, jobs)

	// The forged result: written by a client of the queue for the last
	// job submitted (the workers reach it last), with no MAC.
	forged := ids[jobs-1]
	secret, err := ReadSecret(filepath.Join(dir, SecretFile))
	if err != nil {
		t.Fatal(err)
	}
	nc, err := Connect(nats, nil, secret, "intruder")
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStore(context.Background(), nc, QueueConfig{}, secret)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(result{Worker: "intruder", Proofs: zeroProofs()})
	if _, err := st.results.Put(context.Background(), forged, b); err != nil {
		t.Fatal(err)
	}
	nc.Close()

	worker := func(name string) *proc {
		return startProc(t, "worker", "--nats", nats, "--data", dir, "--keys", keysDir, "--workers", "2", "--name", name, "--ack-wait", "2s")
	}
	victim := worker("w1")
	workers := []*proc{victim, worker("w2")}

	// The oversized Preload: refused at once, serve no larger for it.
	waitFor(t, "the workers' reports", func() bool {
		h, err := cl.Health(context.Background(), connect.NewRequest(&pb.HealthRequest{}))
		return err == nil && h.Msg.Workers == 2
	})
	before := rss(t, serve.cmd.Process.Pid)
	refusedAtOnce(t, "preload", func() error {
		_, err := cl.Preload(context.Background(), connect.NewRequest(&pb.KeyRequest{Pipeline: "groth16", Size: hugeSize}))
		return err
	}, "needs about ", " GiB of host memory, more than ")
	if after := rss(t, serve.cmd.Process.Pid); after > before+64<<20 {
		t.Errorf("serve grew from %d to %d bytes refusing the preload", before, after)
	}

	done := func(cl prooflanev1connect.ProverServiceClient, id string) bool {
		st, err := cl.Status(context.Background(), connect.NewRequest(&pb.StatusRequest{JobId: id}))
		return err == nil && st.Msg.Status.State == pb.JobState_JOB_STATE_DONE
	}
	restart := func(after string) {
		waitFor(t, "job "+after+" done", func() bool { return done(cl, after) })
		serve.kill(t)
		serve, cl = serveProc(t, dir, natsPort)
	}
	restart(ids[30])
	// The victim killed while it runs a job: that job goes to another
	// worker once the victim's heartbeats stop.
	held := victim.killHolding(t, func() []string { return runningOn(t, cl, "w1") })
	workers = append(workers[1:], worker("w3"))
	restart(ids[110])

	redelivered := 0
	for _, id := range ids {
		res := awaitDoneOnce(t, cl, keysDir, specs[id], id)
		if res.Status.Worker == "intruder" {
			t.Fatalf("job %s: the forged result came out", id)
		}
		if res.Status.Deliveries > 1 {
			redelivered++
		}
	}
	// Done exactly once: one result a job, and the service counts 200.
	health, err := cl.Health(context.Background(), connect.NewRequest(&pb.HealthRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chaos: %d jobs done, %d held by w1 when it died, %d proved again by another worker; health %v", jobs, len(held), redelivered, health.Msg)
	list, err := cl.List(context.Background(), connect.NewRequest(&pb.ListRequest{Limit: jobs + 10}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Msg.Jobs); n != jobs {
		t.Errorf("list: %d jobs, want %d", n, jobs)
	}
	for _, j := range list.Msg.Jobs {
		if j.State != pb.JobState_JOB_STATE_DONE {
			t.Errorf("job %s: %s, want done", j.JobId, j.State)
		}
	}
	// Memory stays bounded: a small key and 2^6-constraint jobs need a
	// few hundred MiB at most, whatever the number of jobs.
	const bound = 1 << 30
	for _, p := range append(workers, serve) {
		if m := rss(t, p.cmd.Process.Pid); m > bound {
			t.Errorf("%v: %d bytes resident, over %d", p.cmd.Args[1:3], m, bound)
		}
	}
}
