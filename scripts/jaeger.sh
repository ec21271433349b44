#!/usr/bin/env bash
# jaeger.sh: build and run a local Jaeger v2 (all-in-one, in-memory,
# loopback only) to look at prooflane traces.
#
# Usage: bash scripts/jaeger.sh build|start|stop|status
#
#   scripts/jaeger.sh build    build bin/jaeger from tools/jaeger/go.mod (first time: ~8 min on 2 cores)
#   scripts/jaeger.sh start    start it in the background (building it first if needed);
#                              OTLP on 127.0.0.1:4317 (gRPC) and :4318 (HTTP),
#                              query API on http://127.0.0.1:16686
#   scripts/jaeger.sh stop     stop it
#   scripts/jaeger.sh status   say whether it runs
#
# Then: OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317 prooflane prove ... --trace otlp
# Ports move with PROOFLANE_JAEGER_OTLP_GRPC, _OTLP_HTTP, _QUERY, _QUERY_GRPC, _HEALTH
# (see tools/jaeger/config.yaml). The binary built from the Go module has no
# web UI (16686 serves a placeholder); the query API works. For the UI, run
# Jaeger's own release with the same OTLP settings (docs/observability.md).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PROOFLANE_JAEGER:-$root/bin/jaeger}
config=$root/tools/jaeger/config.yaml
pidfile=$root/bin/jaeger.pid
logfile=$root/bin/jaeger.log
health=${PROOFLANE_JAEGER_HEALTH:-127.0.0.1:13133}
query=${PROOFLANE_JAEGER_QUERY:-127.0.0.1:16686}

running() { [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

build() {
	mkdir -p "$(dirname "$bin")"
	echo "building $bin (github.com/jaegertracing/jaeger/cmd/jaeger, pinned in tools/jaeger/go.mod)"
	(cd "$root/tools/jaeger" && go build -o "$bin" github.com/jaegertracing/jaeger/cmd/jaeger)
	echo "built $bin"
}

case ${1:-} in
build)
	build
	;;
start)
	if running; then
		echo "jaeger already running (pid $(cat "$pidfile"))"
		exit 0
	fi
	[[ -x $bin ]] || build
	mkdir -p "$root/bin"
	nohup "$bin" --config "$config" >"$logfile" 2>&1 &
	echo $! >"$pidfile"
	for _ in $(seq 100); do
		if curl -fsS "http://$health/status" 2>/dev/null | grep -q '"healthy":true'; then
			echo "jaeger up (pid $(cat "$pidfile")): OTLP gRPC ${PROOFLANE_JAEGER_OTLP_GRPC:-127.0.0.1:4317}, OTLP HTTP ${PROOFLANE_JAEGER_OTLP_HTTP:-127.0.0.1:4318}, query http://$query/api/services; log $logfile"
			exit 0
		fi
		if ! running; then
			echo "jaeger exited; log:" >&2
			cat "$logfile" >&2
			rm -f "$pidfile"
			exit 1
		fi
		sleep 0.2
	done
	echo "jaeger not healthy after 20s; log: $logfile" >&2
	exit 1
	;;
stop)
	if running; then
		kill "$(cat "$pidfile")"
		echo "stopped jaeger (pid $(cat "$pidfile"))"
	else
		echo "jaeger not running"
	fi
	rm -f "$pidfile"
	;;
status)
	if running; then echo "jaeger running (pid $(cat "$pidfile"))"; else echo "jaeger not running"; exit 1; fi
	;;
*)
	awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
	exit 2
	;;
esac
