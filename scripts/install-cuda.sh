#!/usr/bin/env bash
# install-cuda.sh installs the CUDA toolchain that builds cuda/ (nvcc 11.8
# from Debian bookworm's non-free component, plus g++-11, which nvcc 11.8
# accepts as host compiler). Idempotent: does nothing when nvcc and g++-11
# are already present. Needs root (or sudo).
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

list=/etc/apt/sources.list.d/prooflane-nonfree.list
if ! grep -rqsE "non-free( |$)" /etc/apt/sources.list /etc/apt/sources.list.d/ || [ -f "$list" ]; then
	# deb822 sources already name the archive keyring; a one-line entry for
	# the same archive must name the same key or apt refuses both.
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	opt=""
	if [ -f "$keyring" ]; then
		opt="[signed-by=$keyring] "
	fi
	echo "deb ${opt}http://deb.debian.org/debian bookworm main contrib non-free" | $SUDO tee "$list" >/dev/null
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit g++-11
nvcc --version | tail -n 2
