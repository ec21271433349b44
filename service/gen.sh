#!/usr/bin/env bash
# Regenerates service/gen from service/proto. Needs protoc (Debian's
# protobuf-compiler) and the two plugins, at the versions go.mod pins:
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   go install connectrpc.com/connect/cmd/protoc-gen-connect-go@v1.21.1
# Building prooflane does not need any of them: the output is committed.
set -euo pipefail
cd "$(dirname "$0")"
PATH="$(go env GOPATH)/bin:$PATH"
rm -rf gen
mkdir -p gen
protoc -I proto \
  --go_out=gen --go_opt=module=github.com/prooflane/prooflane/service/gen \
  --connect-go_out=gen --connect-go_opt=module=github.com/prooflane/prooflane/service/gen \
  prooflane/service/v1/service.proto
