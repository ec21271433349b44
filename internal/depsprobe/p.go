package depsprobe

import (
	_ "github.com/cenkalti/backoff/v4"
	_ "github.com/consensys/gnark"
	_ "github.com/consensys/gnark-crypto/ecc/bls12-381"
	_ "github.com/samber/lo"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	_ "go.opentelemetry.io/otel/sdk/trace"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
)
