#!/usr/bin/env bash
# bench_rest.sh - requests per second of the REST client (common/vc_kube.c) against the local
# kube-apiserver, next to plain curl doing the same GETs with the same token and CA in the same
# run. Prints a small report (and the machine) for bench/README.md.
#
#   bench/bench_rest.sh [REQUESTS]         (default 4000)
#
#   BENCH_CLUSTER_DIR=DIR  use the cluster already running in DIR (cluster/up.sh DIR) instead of
#                          starting a fresh one in a scratch folder (stopped at exit)
#   ITEST_KUBE=PATH        the itest_kube program (default build/itest/itest_kube, `make build`)
#   BENCH_THREADS="1 2 4"  client thread counts to measure
#
# What is measured, all GET /api/v1/namespaces/default/configmaps/bench-cm over HTTPS:
#   vc_kube, K threads   one client, K threads, N/K GETs each (one easy handle per thread, shared
#                        connection cache; client-side rate limit off)
#   curl loop            `curl` started once per request, as a shell loop would (a new process,
#                        TCP and TLS handshake each time); N/10 requests, it is slow
#   curl keep-alive      one `curl` process given all N URLs (-K config): one connection reused
#   curl parallel K      the same with --parallel --parallel-max K
# curl is forced to HTTP/1.1 like the client (kube-apiserver would offer HTTP/2 over ALPN).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-4000}
THREADS=${BENCH_THREADS:-"1 2 4"}
ITEST=${ITEST_KUBE:-$ROOT/build/itest/itest_kube}
[ -x "$ITEST" ] || { echo "bench: $ITEST is missing: run make build" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench: curl is missing" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench_rest.XXXXXX")
cluster=${BENCH_CLUSTER_DIR:-}
cleanup() {
	if [ -z "${BENCH_CLUSTER_DIR:-}" ] && [ -n "$cluster" ]; then
		"$ROOT/cluster/down.sh" "$cluster" --purge >/dev/null 2>&1 || true
	fi
	rm -rf "$scratch"
}
trap cleanup EXIT
if [ -z "$cluster" ]; then
	cluster=$scratch/cluster
	CALDERA_KUBE_BIN=${CALDERA_KUBE_BIN:-$("$ROOT/cluster/build.sh" | tail -n 1)}
	export CALDERA_KUBE_BIN
	"$ROOT/cluster/up.sh" "$cluster" >/dev/null 2>"$scratch/up.log" ||
		{ cat "$scratch/up.log" >&2; exit 1; }
fi
KUBECONFIG=$cluster/kubeconfig
TOKEN=$(awk -F, '$2 == "admin" { print $1 }' "$cluster/tokens.csv")
PORT=$(sed -n 's/^APISERVER_PORT=//p' "$cluster/cluster.env")
CA=$cluster/pki/ca.crt
URL=https://127.0.0.1:$PORT/api/v1/namespaces/default/configmaps/bench-cm

now() { date +%s.%N; }
rate() { awk -v n="$1" -v t0="$2" -v t1="$3" 'BEGIN { printf "%.3f %.0f\n", t1 - t0, n / (t1 - t0) }'; }
rows=()
row() { rows+=("$(printf '%-22s %8s %9s %9s %9s' "$@")"); }

# Creates bench-cm and warms the server up.
"$ITEST" --kubeconfig "$KUBECONFIG" bench --requests 200 >/dev/null

for k in $THREADS; do
	out=$("$ITEST" --kubeconfig "$KUBECONFIG" bench --threads "$k" --requests "$N" | tail -n 1)
	case $out in *"failed=0"*) ;; *) echo "bench: vc_kube run failed: $out" >&2; exit 1 ;; esac
	secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$out")
	rps=$(sed -n 's/.*req_per_s=\([0-9]*\).*/\1/p' <<<"$out")
	row "vc_kube" "$k" "$N" "$secs" "$rps"
done

# curl, one process per request.
m=$((N / 10))
t0=$(now)
for ((i = 0; i < m; i++)); do
	curl -sf --http1.1 -o /dev/null --cacert "$CA" -H "Authorization: Bearer $TOKEN" "$URL"
done
t1=$(now)
read -r secs rps < <(rate "$m" "$t0" "$t1")
row "curl loop (process/req)" 1 "$m" "$secs" "$rps"

# curl, one process, all URLs over one kept-alive connection (and K in parallel).
{
	printf 'silent\nfail\nhttp1.1\ncacert = "%s"\nheader = "Authorization: Bearer %s"\n' "$CA" "$TOKEN"
	for ((i = 0; i < N; i++)); do
		printf 'url = "%s"\noutput = "/dev/null"\n' "$URL"
	done
} >"$scratch/curl.cfg"
t0=$(now)
curl -sS -K "$scratch/curl.cfg"
t1=$(now)
read -r secs rps < <(rate "$N" "$t0" "$t1")
row "curl keep-alive" 1 "$N" "$secs" "$rps"
for k in $THREADS; do
	[ "$k" -gt 1 ] || continue
	t0=$(now)
	curl -sS --no-progress-meter --parallel --parallel-max "$k" -K "$scratch/curl.cfg"
	t1=$(now)
	read -r secs rps < <(rate "$N" "$t0" "$t1")
	row "curl --parallel" "$k" "$N" "$secs" "$rps"
done

echo "bench_rest: GET $URL"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs; $(curl --version | head -n 1 | cut -d' ' -f1-3)"
printf '%-22s %8s %9s %9s %9s\n' "client" "threads" "requests" "seconds" "req/s"
printf '%s\n' "${rows[@]}"
