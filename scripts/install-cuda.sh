#!/usr/bin/env bash
# install-cuda.sh installs the CUDA toolchain that builds cuda/ (nvcc 11.8
# from Debian bookworm's non-free component, plus g++-11, which nvcc 11.8
# accepts as host compiler). Idempotent: does nothing when nvcc and g++-11
# are already present. Needs root (or sudo); `make cuda-toolchain` runs it.
#
# Usage: bash scripts/install-cuda.sh
set -euo pipefail

if command -v nvcc >/dev/null 2>&1 && command -v g++-11 >/dev/null 2>&1; then
	echo "install-cuda: nvcc and g++-11 already installed:"
	nvcc --version | tail -n 2
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

# The archive and release this machine's apt already uses, read from its
# sources (deb822 files or one-line entries), so that the script names no
# mirror of its own.
archive() {
	local uri suite
	uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	suite=$(awk '/^Suites:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [ -z "$uri" ]; then
		read -r uri suite < <(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i, $(i+1); exit } }' /etc/apt/sources.list 2>/dev/null || true)
	fi
	if [ -z "$uri" ] || [ -z "$suite" ]; then
		echo "install-cuda: no Debian archive found in /etc/apt/sources.list*; add one with the non-free component and run again" >&2
		exit 1
	fi
	echo "$uri $suite"
}

list=/etc/apt/sources.list.d/prooflane-nonfree.list
if ! grep -rqsE "non-free( |$)" /etc/apt/sources.list /etc/apt/sources.list.d/ || [ -f "$list" ]; then
	read -r uri suite < <(archive)
	# deb822 sources already name the archive keyring; a one-line entry for
	# the same archive must name the same key or apt refuses both.
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	opt=""
	if [ -f "$keyring" ]; then
		opt="[signed-by=$keyring] "
	fi
	echo "deb ${opt}${uri} ${suite} main contrib non-free" | $SUDO tee "$list" >/dev/null
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit g++-11
nvcc --version | tail -n 2
