package service

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// NATSConfig configures the embedded NATS server.
type NATSConfig struct {
	// Host and Port it listens on for workers of other processes (Port
	// 0 picks a free one; -1 listens on none: in-process only).
	Host string
	Port int
	// DataDir holds the JetStream store (DataDir/jetstream).
	DataDir string
	// Secret is the queue's secret: every NATS client must prove it
	// (Connect with the same secret), on loopback too.
	Secret Secret
	// SyncAlways writes every message to disk before it is acknowledged
	// (survives a power cut, not only a killed process; slower).
	SyncAlways bool
}

// StartNATS starts an embedded NATS server with JetStream.
func StartNATS(cfg NATSConfig) (*server.Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("nats: a data directory is required")
	}
	user, err := cfg.Secret.NATSUser()
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	opts := &server.Options{
		ServerName: "prooflane", Host: cfg.Host, Port: cfg.Port, JetStream: true,
		StoreDir: filepath.Join(cfg.DataDir, "jetstream"), NoSigs: true, NoLog: true,
		Nkeys: []*server.NkeyUser{{Nkey: user}}, SyncAlways: cfg.SyncAlways, MaxPayload: 1 << 20,
	}
	if cfg.Port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	if cfg.Port < 0 {
		opts.DontListen = true
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats: not ready within 30s (store %q)", opts.StoreDir)
	}
	return ns, nil
}

// Connect connects to NATS at url (a comma-separated list for a cluster;
// or to ns in process when ns is set) as the secret's nkey user; once
// connected it reconnects for ever, so a restarted server (or another of
// the cluster) is picked up again. A server that cannot be reached or
// refuses the secret is an error at once.
func Connect(url string, ns *server.Server, secret Secret, name string) (*nats.Conn, error) {
	kp, err := secret.natsUser()
	if err != nil {
		return nil, err
	}
	user, _ := kp.PublicKey()
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.Nkey(user, kp.Sign)}
	if ns != nil {
		opts = append(opts, nats.InProcessServer(ns))
		url = ""
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats %q: %w", url, err)
	}
	return nc, nil
}
