package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/prooflane/prooflane/device/cpu"
	"github.com/prooflane/prooflane/runtime"
	pb "github.com/prooflane/prooflane/service/gen/prooflanev1"
	"github.com/prooflane/prooflane/service/gen/prooflanev1/prooflanev1connect"
)

// clusterReport is the cluster test's finding, printed after the tests
// (a line `go test` shows, passing or not).
var clusterReport string

// natsNodeEnv, set in a test process's environment, makes it a member
// of a test cluster instead of running tests (see TestMain): the member
// is a process of its own, so that the test can kill it outright.
const natsNodeEnv = "PROOFLANE_TEST_NATS_NODE"

// natsNode is a cluster member's configuration, passed in natsNodeEnv.
type natsNode struct {
	Name        string   `json:"name"`
	Port        int      `json:"port"`
	ClusterPort int      `json:"cluster_port"`
	Routes      []string `json:"routes"`
	StoreDir    string   `json:"store_dir"`
	User        string   `json:"user"`
}

// runNATSNode runs the cluster member cfg describes until the process is
// killed; it returns only on a failure to start.
func runNATSNode(cfg string) error {
	var n natsNode
	if err := json.Unmarshal([]byte(cfg), &n); err != nil {
		return err
	}
	var routes []*url.URL
	for _, r := range n.Routes {
		u, err := url.Parse(r)
		if err != nil {
			return err
		}
		routes = append(routes, u)
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: n.Name, Host: "127.0.0.1", Port: n.Port,
		JetStream: true, StoreDir: n.StoreDir, NoSigs: true, NoLog: true,
		Nkeys:   []*server.NkeyUser{{Nkey: n.User}},
		Cluster: server.ClusterOpts{Name: "prooflane-test", Host: "127.0.0.1", Port: n.ClusterPort},
		Routes:  routes,
	})
	if err != nil {
		return err
	}
	ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		return fmt.Errorf("nats server %s not ready", n.Name)
	}
	select {}
}

// clusterNode is a cluster member's process.
type clusterNode struct {
	name, url string
	cmd       *exec.Cmd
}

// kill ends the member at once (SIGKILL): no leadership handed over, its
// raft groups elect anew once their timeouts pass.
func (c *clusterNode) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

// startCluster starts n NATS servers with JetStream, each a process of
// its own (this test binary, see natsNodeEnv), a cluster on loopback
// (ports picked free, each server given routes to all), each wanting the
// secret's nkey user; it returns them once the cluster's JetStream
// answers with every server a peer.
func startCluster(t *testing.T, secret Secret, n int) []*clusterNode {
	t.Helper()
	user, err := secret.NATSUser()
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]natsNode, n)
	var routes []string
	for i := range nodes {
		nodes[i] = natsNode{Name: fmt.Sprintf("n%d", i), Port: freePort(t), ClusterPort: freePort(t), StoreDir: t.TempDir(), User: user}
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", nodes[i].ClusterPort))
	}
	var out []*clusterNode
	var urls []string
	for i := range nodes {
		nodes[i].Routes = routes
		cfg, _ := json.Marshal(nodes[i])
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), natsNodeEnv+"="+string(cfg))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := &clusterNode{name: nodes[i].Name, url: fmt.Sprintf("nats://127.0.0.1:%d", nodes[i].Port), cmd: cmd}
		t.Cleanup(func() {
			if c.cmd.ProcessState == nil {
				_ = c.cmd.Process.Kill()
				_ = c.cmd.Wait()
			}
		})
		out = append(out, c)
		urls = append(urls, c.url)
	}
	waitFor(t, "the cluster's JetStream with every server a peer", func() bool {
		nc, err := Connect(strings.Join(urls, ","), nil, secret, "test-cluster-up")
		if err != nil {
			return false
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// Every server a peer: a stream of n replicas can be placed.
		probe := fmt.Sprintf("probe-%d", time.Now().UnixNano())
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: probe, Subjects: []string{probe}, Replicas: n, Storage: jetstream.MemoryStorage}); err != nil {
			return false
		}
		_ = js.DeleteStream(ctx, probe)
		return true
	})
	return out
}

// countingRunner counts the runs of each job that returned proofs.
type countingRunner struct {
	Runner
	mu   sync.Mutex
	runs map[string]int
	n    atomic.Int64
}

func (c *countingRunner) Run(ctx context.Context, spec Spec, onEvent func(runtime.Event)) (*Output, error) {
	out, err := c.Runner.Run(ctx, spec, onEvent)
	if err == nil {
		c.mu.Lock()
		c.runs[spec.JobID]++
		c.mu.Unlock()
		c.n.Add(1)
	}
	return out, err
}

// The queue on a three-server JetStream cluster (replicas detected: 3)
// survives the loss of the server leading the queue's stream mid-run:
// 200 jobs through two workers, every one done with one result that
// gnark verifies, none lost, the API taking jobs again once a new leader
// is elected. The time submits went unanswered is reported.
func TestTheQueueOnAThreeServerClusterSurvivesLosingTheStreamLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster and proves 200 jobs")
	}
	const jobs, early = 200, 150
	began := time.Now()
	logf := func(format string, args ...any) {
		t.Logf("%6.1fs: %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	secret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	servers := startCluster(t, secret, 3)
	var urls []string
	for _, c := range servers {
		urls = append(urls, c.url)
	}
	all := strings.Join(urls, ",")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	dial := func(name, urls string) *nats.Conn {
		nc, err := Connect(urls, nil, secret, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	q := QueueConfig{AckWait: 3 * time.Second}

	// More replicas than servers is refused, saying so, and makes nothing.
	if _, err := openStore(ctx, dial("test-replicas", all), QueueConfig{Replicas: 5}, secret); err == nil || !strings.Contains(err.Error(), `5 replicas: more than NATS cluster "prooflane-test" can place`) {
		t.Fatalf("5 replicas on 3 servers: %v", err)
	}
	// The server is given one URL: it learns of the others from the
	// cluster, counts three servers and makes every store with 3 replicas.
	nc := dial("test-server", urls[0])
	srv, err := NewServer(ctx, nc, ServerConfig{Secret: secret, Queue: q})
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	streamInfo := func() (*jetstream.StreamInfo, error) {
		ictx, icancel := context.WithTimeout(ctx, 5*time.Second)
		defer icancel()
		st, err := js.Stream(ictx, queueStream)
		if err != nil {
			return nil, err
		}
		return st.Info(ictx)
	}
	for _, name := range []string{queueStream, submitsStream, "KV_" + jobsBucket, "KV_" + resultsBucket, "KV_" + workersBucket, "OBJ_" + objectsBucket} {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if n := st.CachedInfo().Config.Replicas; n != 3 {
			t.Errorf("stream %s made with %d replicas on a 3-server cluster, want 3 (detected)", name, n)
		}
	}
	var info *jetstream.StreamInfo
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cl := prooflanev1connect.NewProverServiceClient(hs.Client(), hs.URL)

	// submit submits job i (its idempotency key makes a retry after an
	// unanswered submit safe), trying until it is accepted.
	specs := make([]*pb.JobSpec, jobs)
	ids := make([]string, jobs)
	submit := func(i int) {
		specs[i] = testSpec(uint64(5000 + i))
		req := &pb.SubmitRequest{Spec: specs[i], IdempotencyKey: fmt.Sprintf("cluster-%d", i)}
		giveUp := time.Now().Add(2 * time.Minute)
		for {
			sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
			resp, err := cl.Submit(sctx, connect.NewRequest(req))
			scancel()
			if err == nil {
				ids[i] = resp.Msg.JobId
				return
			}
			if time.Now().After(giveUp) {
				t.Errorf("job %d: not accepted within 2 minutes: %v", i, err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	logf("cluster up, queue made with 3 replicas")
	for i := range early {
		submit(i)
	}
	logf("%d jobs submitted", early)

	keysDir := t.TempDir()
	be, err := cpu.New(1)
	if err != nil {
		t.Fatal(err)
	}
	inner := &EngineRunner{KeysDir: keysDir, Backend: be}
	t.Cleanup(func() { inner.Close(); be.Close() })
	runner := &countingRunner{Runner: inner, runs: map[string]int{}}
	for _, name := range []string{"w1", "w2"} {
		w, err := NewWorker(ctx, WorkerConfig{Conn: dial(name, all), Name: name, Runner: runner, Secret: secret, Queue: q, MaxDeliveries: 100})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				t.Error(err)
			}
		}()
	}

	// Mid-run, the server leading the queue's stream is killed (SIGKILL:
	// no leadership handed over; the stream's raft group elects a leader
	// once its timeout passes); the rest of the jobs are submitted from
	// then on.
	waitFor(t, "a quarter of the jobs proved", func() bool { return runner.n.Load() >= jobs/4 })
	waitFor(t, "the queue stream's leader", func() bool {
		info, err = streamInfo()
		return err == nil && info.Cluster != nil && info.Cluster.Leader != ""
	})
	leader := slices.IndexFunc(servers, func(c *clusterNode) bool { return c.name == info.Cluster.Leader })
	if leader < 0 {
		t.Fatalf("stream leader %q is none of the servers", info.Cluster.Leader)
	}
	logf("%d jobs proved; killing the stream leader's server %s", runner.n.Load(), info.Cluster.Leader)
	killed := time.Now()
	servers[leader].kill(t)
	var slowest time.Duration
	for i := early; i < jobs; i++ {
		start := time.Now()
		submit(i)
		slowest = max(slowest, time.Since(start))
		if i == early {
			// The first submit after the loss: accepted once the queue's
			// stream has a leader again.
			clusterReport = fmt.Sprintf("queue on a 3-server NATS cluster: the stream leader's server %s was killed (SIGKILL); the queue took its next job %s after the kill",
				servers[leader].name, time.Since(killed).Round(time.Millisecond))
		}
	}
	logf("the other %d jobs submitted", jobs-early)
	waitFor(t, "a new leader of the queue stream", func() bool {
		info, err = streamInfo()
		return err == nil && info.Cluster != nil && info.Cluster.Leader != "" && info.Cluster.Leader != servers[leader].name
	})

	// Every job done, once: one result each (a second await returns the
	// same bytes), verified by gnark.
	seen := map[string]bool{}
	for i, id := range ids {
		if id == "" || seen[id] {
			t.Fatalf("job %d: id %q (empty or repeated)", i, id)
		}
		seen[id] = true
		first := awaitRetrying(t, cl, id)
		verifyProofs(t, keysDir, specs[i], first.Proofs)
		again := awaitRetrying(t, cl, id)
		for p := range first.Proofs {
			if !bytes.Equal(first.Proofs[p].Proof, again.Proofs[p].Proof) {
				t.Errorf("job %s: two different results", id)
			}
		}
	}
	logf("every job awaited twice and verified")
	lctx, lcancel := context.WithTimeout(ctx, time.Minute)
	defer lcancel()
	lister, err := srv.st.results.ListKeys(lctx)
	if err != nil {
		t.Fatal(err)
	}
	results := 0
	for range lister.Keys() {
		results++
	}
	if results != jobs {
		t.Errorf("%d results stored for %d jobs", results, jobs)
	}
	twice := 0
	runner.mu.Lock()
	for _, n := range runner.runs {
		if n > 1 {
			twice++
		}
	}
	runner.mu.Unlock()
	clusterReport += fmt.Sprintf(" (slowest submit %s); %d jobs done with one verified result each, %d of them proved more than once",
		slowest.Round(time.Millisecond), jobs, twice)
	t.Log(clusterReport)
}

// awaitRetrying awaits a job to its end, trying again while the API
// answers unavailable (the queue electing a leader), within two minutes.
func awaitRetrying(t *testing.T, cl prooflanev1connect.ProverServiceClient, id string) *pb.AwaitResponse {
	t.Helper()
	giveUp := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := awaitCtx(ctx, cl, id)
		cancel()
		if err == nil && res != nil && res.Status.State == pb.JobState_JOB_STATE_DONE {
			return res
		}
		if err != nil && connect.CodeOf(err) != connect.CodeUnavailable || time.Now().After(giveUp) {
			t.Fatalf("job %s: %v (last %v)", id, err, res)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
