#!/usr/bin/env bash
# install.sh: install solcjs, the Solidity compiler of the npm package
# solc, at the version pinned here, into bin/solc (ignored by git), and
# print the path of its solcjs.
#
# Usage: bash tools/solc/install.sh
#
# The tests that compile the Ethereum verifier contracts and check proofs
# on an in-process chain read it from PROOFLANE_SOLC, and skip without it:
#
#   export PROOFLANE_SOLC=$(bash tools/solc/install.sh | tail -1)
#   go test ./solidity ./cmd/prooflane -run 'EVM'
#
# Needs node and npm (Debian: apt-get install nodejs npm). A second run
# with the pinned version in place installs nothing.
set -euo pipefail

version=0.8.37
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$root/bin/solc
solcjs=$prefix/node_modules/.bin/solcjs

if [[ -x $solcjs ]] && "$solcjs" --version 2>/dev/null | grep -q "^$version+"; then
	echo "solcjs $version already in $prefix" >&2
else
	command -v npm >/dev/null 2>&1 || { echo "install.sh: npm not found (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "solc@$version" >&2
	"$solcjs" --version >&2
fi
echo "$solcjs"
