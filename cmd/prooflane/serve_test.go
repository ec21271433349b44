package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prooflane/prooflane/service"
)

// The service commands check their flags before they start anything: a
// mistake exits 2 naming the flag, a refused setting (a public address
// without a token) too.
func TestServiceCommandsRefuseBadFlagsBeforeStarting(t *testing.T) {
	t.Setenv(tokenEnv, "")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "0.0.0.0:0", "--data", dir}, `--addr "0.0.0.0:0" is not loopback: a bearer token is required`},
		{[]string{"serve", "--addr", "localhost", "--data", dir}, `--addr "localhost": address localhost: missing port in address`},
		{[]string{"serve", "--tls-cert", "c.pem", "--data", dir}, "--tls-cert and --tls-key go together"},
		{[]string{"serve", "--workers", "-1", "--data", dir}, "--workers -1: want 0 to 256"},
		{[]string{"serve", "--mem-budget", "lots", "--data", dir}, "--mem-budget: "},
		{[]string{"serve", "--mem-budget", "0", "--data", dir}, "--mem-budget: 0: want a size, machine or none"},
		{[]string{"worker", "--device-mem-budget", "0"}, "--device-mem-budget: 0: want a size, machine or none"},
		{[]string{"serve", "--backend", "tpu", "--data", dir}, `--backend "tpu": want cpu, cuda or auto`},
		{[]string{"serve", "--ack-wait", "10ms", "--data", dir}, "--ack-wait 10ms: want 1s to 1h"},
		{[]string{"serve", "--data", dir, "--nats-listen", "4250"}, `--nats-listen "4250": address 4250: missing port in address`},
		{[]string{"serve", "--data", dir, "--nats", "nats://127.0.0.1:1"}, "--nats needs --nats-secret FILE: the queue's secret"},
		{[]string{"serve", "--data", dir, "--replicas", "3"}, "--replicas 3: the embedded NATS is one server"},
		{[]string{"serve", "--data", dir, "--replicas", "6"}, "--replicas 6: want 1 to 5"},
		{[]string{"worker", "--workers", "0"}, "--workers 0: want 1 to 256"},
		{[]string{"worker"}, "the queue's secret is needed: --nats-secret FILE (a copy of serve's DATA/nats-secret) or --data DIR"},
		{[]string{"worker", "--metrics-addr", "0.0.0.0:9464"}, `--metrics-addr "0.0.0.0:9464": want a loopback address`},
		{[]string{"submit", "--priority", "urgent"}, `--priority: priority "urgent": want critical, high, normal or low`},
		{[]string{"submit", "--await"}, "--await needs --out"},
		{[]string{"submit", "--size", "2^x"}, "--size: "},
		{[]string{"await"}, "await takes one job id, got 0 arguments"},
		{[]string{"cancel", "a", "b"}, "cancel takes one job id, got 2 arguments"},
		{[]string{"status", "--limit", "0"}, "--limit 0: want 1 to 1000"},
		{[]string{"keys", "drop"}, `keys takes nothing, preload or evict, got ["drop"]`},
		{[]string{"loadtest", "--jobs", "0"}, "--jobs 0: want 1 to 100000"},
	} {
		rc, _, stderr := prooflane(t, c.args...)
		if rc != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, rc, stderr, c.want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("a refused serve left %v in its --data", left)
	}
}

// A client's errors name the command and what the service said (or why
// there is no service).
func TestClientCommandsSayWhatWentWrong(t *testing.T) {
	t.Setenv(tokenEnv, "")
	rc, _, stderr := prooflane(t, "status", "--addr", "ftp://127.0.0.1:1")
	if rc != exitFailure || !strings.Contains(stderr, `--addr "ftp://127.0.0.1:1": want an http:// or https:// URL`) {
		t.Errorf("ftp address: exit %d, %q", rc, stderr)
	}
	rc, _, stderr = prooflane(t, "status", "--addr", "http://127.0.0.1:1", "j000000000000000000000000")
	if rc != exitFailure || !strings.Contains(stderr, "prooflane status: status: ") || !strings.Contains(stderr, "unavailable") {
		t.Errorf("no service: exit %d, %q", rc, stderr)
	}
	rc, _, stderr = prooflane(t, "status", "--token-file", filepath.Join(t.TempDir(), "missing"))
	if rc != exitFailure || !strings.Contains(stderr, "--token-file: open ") {
		t.Errorf("missing token file: exit %d, %q", rc, stderr)
	}
}

// A budget flag is a size, machine (the worker takes the machine's
// memory) or none.
func TestParseBudget(t *testing.T) {
	for in, want := range map[string]uint64{"machine": 0, "none": service.NoBudget, "8GiB": 8 << 30, "2^20": 1 << 20} {
		if got, err := parseBudget(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
}

// Something else listening at --addr (a web server, an older API without
// the procedure) is named as such, not reported as a protocol puzzle.
func TestClientCommandsSayWhenAddrIsNoProoflaneAPI(t *testing.T) {
	t.Setenv(tokenEnv, "")
	for name, h := range map[string]http.HandlerFunc{
		"404": http.NotFound,
		"html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintln(w, "<html>a web server</html>")
		},
	} {
		srv := httptest.NewServer(h)
		for _, args := range [][]string{{"status"}, {"status", "j1"}, {"submit"}, {"cancel", "j1"}, {"keys"}} {
			rc, _, stderr := prooflane(t, append(args, "--addr", srv.URL)...)
			want := fmt.Sprintf("--addr %q is not a prooflane API: ", srv.URL)
			if rc != exitFailure || !strings.Contains(stderr, want) || !strings.Contains(stderr, "/prooflane.service.v1.ProverService/") {
				t.Errorf("%s: %v: exit %d, stderr %q; want exit 1 and %q", name, args, rc, stderr, want)
			}
		}
		srv.Close()
	}
}

// serve checks that its two ports are free before it starts anything: a
// port in use fails at once naming the flag and the address, with
// nothing written to --data.
func TestServeFailsAtOnceNamingAPortInUse(t *testing.T) {
	t.Setenv(tokenEnv, "")
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nats-listen", addr}, fmt.Sprintf("--nats-listen %q: the embedded NATS cannot listen there: ", addr)},
		{[]string{"--addr", addr, "--nats-listen", "127.0.0.1:0"}, fmt.Sprintf("--addr %q: the API cannot listen there: ", addr)},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		start := time.Now()
		rc, _, stderr := prooflane(t, append([]string{"serve", "--workers", "0", "--data", dir, "--addr", "127.0.0.1:0"}, c.args...)...)
		if rc != exitFailure || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "address already in use") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args, rc, stderr, c.want)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%v: took %s to fail", c.args, d)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v: --data made before the port was checked (%v)", c.args, err)
		}
	}
}
