#!/usr/bin/env bash
# Install the Debian packages Caldera needs, only those missing. Quiet when all are present.
# Runs apt-get through sudo when not root. Used by `make deps`, which `make` and `make test` run.
set -euo pipefail

PKGS=(
	# build
	gcc make pkg-config
	libmicrohttpd-dev libssl-dev libjansson-dev libyaml-dev libcurl4-openssl-dev libcmocka-dev zlib1g-dev
	# checks: format, lint, fuzz, sanitizers
	clang clang-format clang-tidy cppcheck libclang-rt-14-dev
	# the local cluster: etcd, certificate tools, the Kubernetes build
	etcd-server openssl curl rsync ca-certificates dpkg-dev
	# tests (prometheus: promtool checks the /metrics text in tests/e2e/test_metrics.sh)
	python3 procps iproute2 prometheus
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# The end-to-end tests drive the real kubectl. Machines of our kind have one (a client that
# matches the server's version); elsewhere Debian's kubernetes-client (1.20) matches the local
# control plane exactly.
command -v kubectl >/dev/null || missing+=(kubernetes-client)
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Debian's etcd-server starts a system etcd on install; policy-rc.d keeps it from starting.
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || {
	$SUDO apt-get update -q >&2
	$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}
