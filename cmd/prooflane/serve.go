package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/prooflane/prooflane/admission"
	"github.com/prooflane/prooflane/device"
	"github.com/prooflane/prooflane/internal/regfile"
	"github.com/prooflane/prooflane/runtime"
	"github.com/prooflane/prooflane/service"
	"github.com/prooflane/prooflane/stages/family"
)

func init() {
	register("serve", command{summary: "run the proving service: the API, a durable queue (embedded NATS JetStream) and workers", run: runServe})
	register("worker", command{summary: "run a worker of a proving service: take jobs from its NATS queue and prove them", run: runWorker})
}

// tokenEnv names the environment variable holding the bearer token.
const tokenEnv = "PROOFLANE_TOKEN"

// maxTokenFile bounds a --token-file.
const maxTokenFile = 4 << 10

// readToken reads the token from file (when set) or the environment.
func readToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(tokenEnv)), nil
	}
	b, err := regfile.ReadFile(file, maxTokenFile)
	if errors.Is(err, regfile.ErrTooLarge) {
		return "", fmt.Errorf("--token-file %q: more than %d bytes", file, maxTokenFile)
	}
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("--token-file %q: empty", file)
	}
	return tok, nil
}

// isLoopback reports whether a listen host is a loopback address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// workerFlags are the flags serve and worker share.
type workerFlags struct {
	keys, backend, budget, name string
	deviceBudget                string
	budgetBytes, deviceBytes    uint64
	devices, slots              int
	maxDeliveries, replicas     int
	ackWait                     time.Duration
}

func (w *workerFlags) register(fs *flag.FlagSet, slotsDefault int, slotsHelp string) {
	fs.StringVar(&w.keys, "keys", family.DefaultKeyDir(), "key cache directory")
	fs.StringVar(&w.backend, "backend", "cpu", "device backend: cpu, cuda (needs a -tags cuda build and a GPU) or auto")
	fs.IntVar(&w.devices, "devices", 1, "devices the worker's engines run on")
	fs.IntVar(&w.slots, "workers", slotsDefault, slotsHelp)
	fs.StringVar(&w.budget, "mem-budget", "machine", "host memory the worker's admitted jobs and key setups may hold: a size (4096, 2^30, 8GiB), machine (its memory, or $"+admission.HostEnv+") or none (admit anything)")
	fs.StringVar(&w.deviceBudget, "device-mem-budget", "machine", "memory of each device the worker's admitted jobs may hold, from the family's device estimate: a size (80GiB), machine (the smallest device's, or $"+admission.DeviceEnv+"; none when the devices report none) or none")
	fs.StringVar(&w.name, "name", "", "the worker's name in job records (default: host and process id)")
	fs.IntVar(&w.maxDeliveries, "max-deliveries", 5, "fail a job handed to workers this many times without an end")
	fs.DurationVar(&w.ackWait, "ack-wait", 30*time.Second, "a job whose worker sent no heartbeat for this long goes to another worker (when this process creates the queue)")
	fs.IntVar(&w.replicas, "replicas", 0, "copies of the queue's streams and stores on a NATS cluster, 1 to 5, when this process creates them (default: 3 on a cluster of three or more servers, else 1)")
}

// parseBytes reads 4096, 2^30, 512MiB or 8GiB.
func parseBytes(s string) (uint64, error) {
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := parseSize(n)
			if err != nil {
				return 0, err
			}
			if uint64(v) > (1<<62)/u.mult {
				return 0, fmt.Errorf("%q: too large", s)
			}
			return uint64(v) * u.mult, nil
		}
	}
	if s == "0" {
		return 0, nil
	}
	v, err := parseSize(s)
	return uint64(v), err
}

// startWorker opens the backend and runner and binds a worker on nc; the
// returned close frees them (after the worker's Run has returned).
// check checks the flags before anything starts; min is the least
// --workers.
func (w *workerFlags) check(fs *flag.FlagSet, min int) error {
	if w.slots < min || w.slots > maxInFlight {
		return usageErrorf(fs, "--workers %d: want %d to %d", w.slots, min, maxInFlight)
	}
	if err := checkBackend(w.backend); err != nil {
		return usageErrorf(fs, "%w", err)
	}
	if w.devices < 1 || w.devices > runtime.MaxDevices {
		return usageErrorf(fs, "--devices %d: want 1 to %d", w.devices, runtime.MaxDevices)
	}
	if w.maxDeliveries < 1 || w.maxDeliveries > 1000 {
		return usageErrorf(fs, "--max-deliveries %d: want 1 to 1000", w.maxDeliveries)
	}
	if w.ackWait < time.Second || w.ackWait > time.Hour {
		return usageErrorf(fs, "--ack-wait %s: want 1s to 1h", w.ackWait)
	}
	if w.replicas < 0 || w.replicas > service.MaxReplicas {
		return usageErrorf(fs, "--replicas %d: want 1 to %d", w.replicas, service.MaxReplicas)
	}
	var err error
	if w.budgetBytes, err = parseBudget(w.budget); err != nil {
		return usageErrorf(fs, "--mem-budget: %w", err)
	}
	if w.deviceBytes, err = parseBudget(w.deviceBudget); err != nil {
		return usageErrorf(fs, "--device-mem-budget: %w", err)
	}
	return nil
}

// parseBudget reads a budget flag: a size, "machine" (0: the worker takes
// the machine's) or "none" (service.NoBudget).
func parseBudget(s string) (uint64, error) {
	switch s {
	case "machine":
		return 0, nil
	case "none":
		return service.NoBudget, nil
	}
	b, err := parseBytes(s)
	if err == nil && b == 0 {
		err = errors.New("0: want a size, machine or none (admit anything)")
	}
	return b, err
}

// deviceBudget is the smallest device's memory of be's first n devices
// (or PROOFLANE_DEVICE_MEMORY), the default device budget; 0 (none) when
// they report none.
func deviceBudget(be device.Backend, n int) (uint64, error) {
	var least uint64
	for i, d := range be.Devices() {
		if i == n {
			break
		}
		b, err := admission.Device(d.Index, d.Name, d.MemTotal)
		if err != nil {
			return 0, err
		}
		if b.Bytes > 0 && (least == 0 || b.Bytes < least) {
			least = b.Bytes
		}
	}
	return least, nil
}

// queue is the queue's configuration from the flags.
func (w *workerFlags) queue() service.QueueConfig {
	return service.QueueConfig{AckWait: w.ackWait, Replicas: w.replicas}
}

func (w *workerFlags) start(ctx context.Context, cmd string, fs *flag.FlagSet, m *service.Metrics, connect func() (service.WorkerConfig, error), stderr io.Writer) (*service.Worker, func(), error) {
	budget := w.budgetBytes
	be, err := openBackend(cmd, w.backend, w.devices, stderr)
	if err != nil {
		return nil, nil, err
	}
	deviceBytes := w.deviceBytes
	if deviceBytes == 0 {
		if deviceBytes, err = deviceBudget(be, w.devices); err != nil {
			be.Close()
			return nil, nil, err
		}
	}
	runner := &service.EngineRunner{KeysDir: w.keys, Backend: be, Devices: w.devices, Log: stderr, Metrics: m}
	m.ObserveResident(runner.ResidentBytes)
	cfg, err := connect()
	if err != nil {
		if cfg.Conn != nil {
			cfg.Conn.Close()
		}
		be.Close()
		return nil, nil, err
	}
	cfg.Runner, cfg.Slots, cfg.Budget, cfg.MaxDeliveries, cfg.Log, cfg.Metrics = runner, w.slots, budget, w.maxDeliveries, stderr, m
	cfg.DeviceBudget = deviceBytes
	cfg.Name = w.name
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	wk, err := service.NewWorkerRetrying(ctx, cfg)
	if err != nil {
		cfg.Conn.Close()
		runner.Close()
		be.Close()
		return nil, nil, err
	}
	return wk, func() { runner.Close(); be.Close(); cfg.Conn.Close() }, nil
}

// serveFlags are serve's flags, checked.
type serveFlags struct {
	fs                               *flag.FlagSet
	addr, tokenFile, tlsCert, tlsKey string
	token                            string // read from --token-file or the environment
	qf                               queueFlags
	wf                               workerFlags
}

// parseServe parses and checks serve's flags before anything starts.
func parseServe(args []string, stderr io.Writer) (*serveFlags, error) {
	f := &serveFlags{fs: newFlags("serve", "", stderr)}
	fs := f.fs
	fs.StringVar(&f.addr, "addr", "127.0.0.1:7450", "address of the API (Connect, gRPC and HTTP/JSON); any other than loopback needs a token")
	fs.StringVar(&f.tokenFile, "token-file", "", "file holding the bearer token API clients must send (default: $"+tokenEnv+"); required off loopback")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate file (with --tls-key): serve HTTPS")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS key file")
	f.qf.register(fs)
	f.wf.register(fs, 1, "jobs the in-process worker runs at once; 0 runs none (use prooflane worker processes)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != 0 {
		return nil, usageErrorf(fs, "serve takes no arguments, got %q", fs.Args())
	}
	if err := f.wf.check(fs, 0); err != nil {
		return nil, err
	}
	if err := f.qf.check(fs, f.wf.replicas); err != nil {
		return nil, err
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return nil, usageErrorf(fs, "--tls-cert and --tls-key go together")
	}
	var err error
	if f.token, err = readToken(f.tokenFile); err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(f.addr)
	if err != nil {
		return nil, usageErrorf(fs, "--addr %q: %w", f.addr, err)
	}
	if !isLoopback(host) && f.token == "" {
		return nil, usageErrorf(fs, "--addr %q is not loopback: a bearer token is required (--token-file or $%s)", f.addr, tokenEnv)
	}
	return f, nil
}

func runServe(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	f, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	qf, wf := f.qf, f.wf
	// Both ports are taken before anything starts: one in use fails at
	// once, naming its flag.
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--addr %q: the API cannot listen there: %w (is another prooflane serve running? give --addr another address)", f.addr, err)
	}
	defer ln.Close() // when serveAPI is not reached; closing twice is harmless
	ctx, stop := signalContext()
	defer stop()
	q, err := qf.open(stderr)
	if err != nil {
		return err
	}
	defer q.close()
	metrics, err := service.NewMetrics()
	if err != nil {
		return err
	}
	defer metrics.Close()
	srv, err := service.NewServer(ctx, q.nc, service.ServerConfig{Token: f.token, Secret: q.secret, Queue: qf.config(wf), Metrics: metrics,
		UploadDir: filepath.Join(qf.data, "uploads")})
	if err != nil {
		return err
	}
	var (
		wk      *service.Worker
		wkClose func()
		wkDone  = make(chan error, 1)
	)
	if wf.slots > 0 {
		wk, wkClose, err = wf.start(ctx, "serve", f.fs, metrics, func() (service.WorkerConfig, error) {
			wnc, err := q.connect("prooflane-serve-worker")
			return service.WorkerConfig{Conn: wnc, Queue: qf.config(wf), Secret: q.secret}, err
		}, stderr)
		if err != nil {
			return err
		}
		go func() { wkDone <- wk.Run(ctx) }()
	} else {
		wkDone <- nil
	}
	err = serveAPI(ctx, srv, ln, f.tlsCert, f.tlsKey, stderr)
	stop() // the API ended (a signal, or it failed): so does the worker
	if werr := <-wkDone; err == nil {
		err = werr
	}
	if wkClose != nil {
		wkClose()
	}
	return err
}

// serveAPI serves the API on ln (HTTPS with a certificate) until ctx is
// done.
func serveAPI(ctx context.Context, srv *service.Server, ln net.Listener, tlsCert, tlsKey string, stderr io.Writer) error {
	var err error
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(tlsCert, tlsKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, hs.TLSConfig)
		scheme = "https"
	}
	fmt.Fprintf(stderr, "prooflane serve: listening on %s://%s\n", scheme, ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// queueFlags are serve's flags of the queue: its NATS (embedded or not),
// its store and its secret.
type queueFlags struct {
	data, natsURL, natsListen, secretFile string
	retain                                time.Duration
	syncAlways                            bool
}

func (q *queueFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.data, "data", "prooflane-data", "directory of the durable queue (the embedded NATS JetStream store) and of the queue's secret ("+service.SecretFile+")")
	fs.StringVar(&q.natsURL, "nats", "", "URLs of an external NATS server or cluster with JetStream, comma-separated (default: embedded)")
	fs.StringVar(&q.natsListen, "nats-listen", "127.0.0.1:4250", "address the embedded NATS listens on for workers of other processes ('none': in-process only)")
	fs.StringVar(&q.secretFile, "nats-secret", "", "file holding the queue's secret, which serve and its workers share (default: "+service.SecretFile+" in --data, made on first start; required with --nats)")
	fs.DurationVar(&q.retain, "retain", 24*time.Hour, "how long a job's record and proofs are kept (when this process creates the queue)")
	fs.BoolVar(&q.syncAlways, "sync-always", false, "write every queued job to disk before acknowledging it (survives a power cut too; slower)")
}

// check checks the queue's flags (and --replicas) before anything starts.
func (q *queueFlags) check(fs *flag.FlagSet, replicas int) error {
	if q.natsURL == "" {
		if replicas > 1 {
			return usageErrorf(fs, "--replicas %d: the embedded NATS is one server, holding one copy; run a NATS cluster and give --nats", replicas)
		}
		if err := checkNATSListen(q.natsListen); err != nil {
			return usageErrorf(fs, "%w", err)
		}
		return nil
	}
	if q.secretFile == "" {
		return usageErrorf(fs, "--nats needs --nats-secret FILE: the queue's secret, the same file for serve and every worker (openssl rand -hex 32 makes one)")
	}
	return nil
}

func (q *queueFlags) config(wf workerFlags) service.QueueConfig {
	c := wf.queue()
	c.Retain = q.retain
	return c
}

// queue is serve's connection to its queue.
type queue struct {
	secret   service.Secret
	url      string
	embedded *embeddedNATS
	nc       *nats.Conn
}

// open reads (or makes) the secret, starts the embedded NATS unless
// --nats names one, and connects to it.
func (q *queueFlags) open(stderr io.Writer) (*queue, error) {
	out := &queue{url: q.natsURL}
	var err error
	if q.natsURL == "" {
		if err := portFree(q.natsListen); err != nil {
			return nil, err
		}
	}
	if q.natsURL == "" || q.secretFile == "" {
		if err := os.MkdirAll(q.data, 0o700); err != nil {
			return nil, fmt.Errorf("--data: %w", err)
		}
	}
	if q.secretFile != "" {
		if out.secret, err = service.ReadSecret(q.secretFile); err != nil {
			return nil, fmt.Errorf("--nats-secret: %w", err)
		}
	} else if out.secret, _, err = service.LoadOrCreateSecret(q.data); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	if q.natsURL == "" {
		if out.embedded, err = startEmbedded(q.natsListen, q.data, out.secret, q.syncAlways); err != nil {
			return nil, err
		}
		if out.embedded.url != "" {
			fmt.Fprintf(stderr, "prooflane serve: queue in %s; workers join with --nats %s and the secret %s\n",
				filepath.Join(q.data, "jetstream"), out.embedded.url, q.secretPath())
		}
	} else if user, err := out.secret.NATSUser(); err == nil {
		fmt.Fprintf(stderr, "prooflane serve: connecting to %s as the --nats-secret's nkey user %s\n", q.natsURL, user)
	}
	if out.nc, err = out.connect("prooflane-serve"); err != nil {
		out.close()
		return nil, err
	}
	return out, nil
}

// secretPath names the secret's file.
func (q *queueFlags) secretPath() string {
	if q.secretFile != "" {
		return q.secretFile
	}
	return filepath.Join(q.data, service.SecretFile)
}

// connect opens a connection of serve's to the queue.
func (q *queue) connect(name string) (*nats.Conn, error) {
	nc, err := service.Connect(q.url, q.embedded.server(), q.secret, name)
	if err != nil && isAuthError(err) {
		return nil, fmt.Errorf("--nats: %w (the server refused the queue's secret, --nats-secret: list its nkey user in the server's authorization)", err)
	}
	return nc, err
}

func (q *queue) close() {
	if q.nc != nil {
		q.nc.Close()
	}
	if q.embedded != nil {
		q.embedded.ns.Shutdown()
	}
}

func runWorker(args []string, stdout, stderr io.Writer) error {
	quietGnark()
	fs := newFlags("worker", "", stderr)
	natsURL := fs.String("nats", "nats://127.0.0.1:4250", "URLs of the service's NATS, comma-separated (what serve prints)")
	secretFile := fs.String("nats-secret", "", "file holding the queue's secret: a copy of serve's (default: "+service.SecretFile+" in --data, when --data is given)")
	data := fs.String("data", "", "serve's --data, when serve runs on this machine: the queue's secret is read from it")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics on this address's /metrics (loopback only; default: none)")
	var wf workerFlags
	wf.register(fs, 1, "jobs the worker runs at once")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "worker takes no arguments, got %q", fs.Args())
	}
	if err := wf.check(fs, 1); err != nil {
		return err
	}
	if err := checkMetricsAddr(fs, *metricsAddr); err != nil {
		return err
	}
	secretFlag := "--nats-secret"
	if *secretFile == "" {
		if *data == "" {
			return usageErrorf(fs, "the queue's secret is needed: --nats-secret FILE (a copy of serve's %s) or --data DIR (serve's --data on this machine)", filepath.Join("DATA", service.SecretFile))
		}
		*secretFile, secretFlag = filepath.Join(*data, service.SecretFile), "--data"
	}
	secret, err := service.ReadSecret(*secretFile)
	if err != nil {
		return fmt.Errorf("%s: %w", secretFlag, err)
	}
	metrics, err := service.NewMetrics()
	if err != nil {
		return err
	}
	defer metrics.Close()
	if *metricsAddr != "" {
		closeMetrics, err := serveMetrics(*metricsAddr, metrics, stderr)
		if err != nil {
			return err
		}
		defer closeMetrics()
	}
	ctx, stop := signalContext()
	defer stop()
	wk, closeAll, err := wf.start(ctx, "worker", fs, metrics, func() (service.WorkerConfig, error) {
		nc, err := connectRetrying(ctx, *natsURL, secret, fmt.Sprintf("%s (%s)", secretFlag, *secretFile), stderr)
		return service.WorkerConfig{Conn: nc, Queue: wf.queue(), Secret: secret}, err
	}, stderr)
	if err != nil {
		return err
	}
	defer closeAll()
	fmt.Fprintf(stderr, "prooflane worker %s: taking jobs from %s\n", wk.Name(), *natsURL)
	return wk.Run(ctx)
}

// checkMetricsAddr checks --metrics-addr: empty, or a loopback address.
func checkMetricsAddr(fs *flag.FlagSet, addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf(fs, "--metrics-addr %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return usageErrorf(fs, "--metrics-addr %q: want a loopback address (put a proxy with TLS and a token in front to expose it)", addr)
	}
	return nil
}

// serveMetrics serves the worker's metrics on addr (checked).
func serveMetrics(addr string, metrics *service.Metrics, stderr io.Writer) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler())
	ms := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go ms.Serve(ln)
	fmt.Fprintf(stderr, "prooflane worker: metrics on http://%s/metrics\n", ln.Addr())
	return func() { ms.Close() }, nil
}

// embeddedNATS is serve's own NATS server.
type embeddedNATS struct {
	ns  *server.Server
	url string // for workers of other processes; empty when in-process only
}

// server is the embedded server, nil for none (an external --nats).
func (e *embeddedNATS) server() *server.Server {
	if e == nil {
		return nil
	}
	return e.ns
}

// startEmbedded starts the embedded NATS on listen ("none": in-process
// only), its store under data, its one user the secret's.
func startEmbedded(listen, data string, secret service.Secret, syncAlways bool) (*embeddedNATS, error) {
	cfg := service.NATSConfig{DataDir: data, Secret: secret, SyncAlways: syncAlways, Port: -1}
	if listen != "none" {
		host, port, _ := net.SplitHostPort(listen)
		cfg.Host = host
		cfg.Port, _ = strconv.Atoi(port)
	}
	ns, err := service.StartNATS(cfg)
	if err != nil {
		return nil, fmt.Errorf("--data %q: %w", data, err)
	}
	e := &embeddedNATS{ns: ns}
	if listen != "none" {
		e.url = ns.ClientURL()
	}
	return e, nil
}

// portFree fails at once when the embedded NATS's --nats-listen address
// is taken: the server would otherwise retry it unseen until its start
// times out.
func portFree(listen string) error {
	if listen == "none" {
		return nil
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("--nats-listen %q: the embedded NATS cannot listen there: %w (is another prooflane serve running? give --nats-listen another address, or none for in-process workers only)", listen, err)
	}
	return ln.Close()
}

// checkNATSListen checks --nats-listen: "none", or a host and port. Off
// loopback too, every client must hold the queue's secret.
func checkNATSListen(listen string) error {
	if listen == "none" {
		return nil
	}
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--nats-listen %q: %w", listen, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("--nats-listen %q: port %q: want 0 to 65535", listen, port)
	}
	return nil
}

// isAuthError reports a NATS server refusing a client's credentials.
func isAuthError(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization violation")
}

// connectRetrying connects a worker to NATS, trying again every second
// while the server is not up yet (a worker started before its serve); a
// refused secret ends it at once, naming the flag it came from.
func connectRetrying(ctx context.Context, url string, secret service.Secret, from string, stderr io.Writer) (*nats.Conn, error) {
	for {
		nc, err := service.Connect(url, nil, secret, "prooflane-worker")
		if err == nil {
			return nc, nil
		}
		if isAuthError(err) {
			return nil, fmt.Errorf("--nats: %w: the queue refused the secret from %s; give serve's with --nats-secret FILE (its --data/%s), or --data DIR on serve's machine", err, from, service.SecretFile)
		}
		fmt.Fprintf(stderr, "prooflane worker: %v; trying again\n", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("--nats: %w", err)
		case <-time.After(time.Second):
		}
	}
}
