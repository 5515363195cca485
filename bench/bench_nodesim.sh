#!/usr/bin/env bash
# bench_nodesim.sh - vc-nodesim at scale: how long NODES simulated nodes take to become Ready,
# and how long PODS pods (created already bound, round robin over the nodes) take to be Running
# on them, in a fresh local cluster. Also reports vc-nodesim's RSS. Baseline in the same run:
# the time the API server alone takes to accept the same pod creations (itest_bulk's rate),
# since vc-nodesim can only be as fast as the server writes.
#
#   bench/bench_nodesim.sh [NODES] [PODS]      (defaults 5000 and 10000)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODES=${1:-5000}
PODS=${2:-10000}
SIM=$ROOT/build/vc-nodesim
BULK=$ROOT/build/itest/itest_bulk
[ -x "$SIM" ] && [ -x "$BULK" ] || { echo "bench: run make build first" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench_nodesim.XXXXXX")
cluster=$scratch/cluster
sim_pid=
cleanup() {
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
	"$ROOT/cluster/down.sh" "$cluster" --purge >/dev/null 2>&1 || true
	rm -rf "$scratch"
}
trap cleanup EXIT
"$ROOT/cluster/up.sh" "$cluster" >/dev/null 2>"$scratch/up.log"
export KUBECONFIG=$cluster/kubeconfig
k() { kubectl --kubeconfig "$KUBECONFIG" "$@" 2>/dev/null; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t0=$(now)
"$SIM" --kubeconfig "$KUBECONFIG" --nodes "$NODES:cpu=8,memory=32Gi,pods=110" \
	--heartbeat-period 600s --workers 8 >"$scratch/sim.log" 2>&1 &
sim_pid=$!
until grep -q "ready_nodes=$NODES " "$scratch/sim.log"; do
	kill -0 "$sim_pid" || { tail "$scratch/sim.log"; exit 1; }
	sleep 0.5
done
nodes_s=$(elapsed "$t0")
ready=$(k get nodes --no-headers | grep -c ' Ready ')

t0=$(now)
bulk=$("$BULK" --kubeconfig "$KUBECONFIG" --count "$PODS" --threads 8 --nodes "$NODES" \
	--node-prefix sim-node)
running() { k get pods --field-selector=status.phase=Running --no-headers | wc -l; }
until grep -q "pods=$PODS" <(tail -n 1 "$scratch/sim.log") && [ "$(running)" -ge "$PODS" ]; do
	sleep 1
done
pods_s=$(elapsed "$t0")
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$sim_pid/status")

cat <<EOT
machine:  $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs
nodes:    $NODES Ready in ${nodes_s}s (kubectl counts $ready Ready)
pods:     $PODS created bound and Running in ${pods_s}s
baseline: itest_bulk alone: $bulk
rss:      vc-nodesim $((rss / 1024)) MiB
EOT
