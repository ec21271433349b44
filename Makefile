# prooflane: run `make` for the list of targets.
GO ?= go
PKGS := ./...

.DEFAULT_GOAL := help
.PHONY: help build test lint fmt generate bench cuda cuda-toolchain cuda-check jaeger jaeger-stop solc demo clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-15s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# The checkout's git describe goes into the binary as the version that
# --version prints (go install's builds print the module version instead).
# With the cuda tag the library's hash goes in too: Go's build cache does
# not notice libprooflane_cuda.a changing, and would link a stale one.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null)

build: ## build bin/prooflane (CPU backend; add TAGS=cuda after `make cuda` for GPUs)
	$(GO) build $(if $(TAGS),-tags $(TAGS)) -ldflags "-X main.version=$(VERSION)$(if $(TAGS), -X github.com/prooflane/prooflane/cuda.libHash=$$(sha1sum cuda/build/libprooflane_cuda.a | cut -c1-16))" -o bin/prooflane ./cmd/prooflane

# go test -json through internal/testreport: the usual result lines, the
# output of failing tests, and a closing list of skipped tests with their
# reasons (the Jaeger, Chromium and solcjs checks skip when their tools are absent).
test: ## go vet, gofmt check, go test -race ./... with a list of skipped tests (what CI runs)
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) build -o bin/testreport ./internal/testreport
	$(GO) test -race -timeout 20m -json $(PKGS) | bin/testreport

lint: ## go vet and gofmt check only
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

fmt: ## gofmt -w every Go file
	gofmt -w $$(git ls-files '*.go')

generate: ## write the BN254 copies of the curve-specific packages from their BLS12-381 source (internal/curvegen)
	$(GO) generate ./...

bench: ## scheduler, lock and prover benchmarks (CPU)
	$(GO) test -run '^$$' -bench . -benchtime 5x ./runtime ./resources
	$(GO) test -run '^$$' -bench . -benchtime 1x ./stages/groth16/...

cuda-toolchain: ## install nvcc 11.8 and g++-11 from Debian (root; ~1.6 GB)
	bash scripts/install-cuda.sh

cuda: ## build the CUDA kernels library cuda/build/libprooflane_cuda.a (needs nvcc)
	$(MAKE) -C cuda -j$$(nproc)

cuda-check: cuda ## compile-check the cgo side with -tags cuda and link the GPU binaries (no GPU needed)
	$(GO) vet -tags cuda $(PKGS)
	$(GO) build -tags cuda -o /dev/null ./cmd/prooflane
	$(GO) build -tags cuda -o /dev/null ./cmd/cudabench

jaeger: ## build Jaeger v2 from the Go module proxy and start it on loopback
	bash scripts/jaeger.sh start

jaeger-stop: ## stop the local Jaeger
	bash scripts/jaeger.sh stop

solc: ## install solcjs (npm solc, pinned in tools/solc/install.sh) into bin/solc; set PROOFLANE_SOLC to the path it prints
	bash tools/solc/install.sh

demo: ## run the simulated Groth16 pipeline and analyse its trace
	$(GO) run ./cmd/prooflane run --jobs 3 --inflight 3 pipelines/sim-groth16.yaml
	$(GO) run ./cmd/prooflane analyze trace.jsonl

clean: ## remove build outputs
	rm -rf bin cuda/build
