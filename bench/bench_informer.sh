#!/usr/bin/env bash
# Informer initial sync of N pods (default 10,000) on the local cluster, next to kubectl listing
# the same pods in the same run. See bench/README.md ("Informer initial sync").
#
#   bench/bench_informer.sh [--pods N] [--runs R] [--keep]
#
# Starts a cluster in build/bench/informer/cluster (cluster/up.sh), creates N pods in namespace
# `bench` (kubectl create of generated Lists, four at a time; pods need no node), then R times
# each (default 3), alternating:
#   kubectl   `kubectl get pods -n bench -o json >/dev/null` (pages of 500, as kubectl does)
#   curl      one unpaged GET of the same list with curl (the server's and the wire's share;
#             with a User-Agent that is not curl's, or kube-apiserver would pretty-print it)
#   informer  build/bench/bench_informer: time from start to has_synced and VmRSS growth per
#             cached pod, pages of 500: with client-go's default client-side limit (5 qps,
#             burst 10); without it (--qps 0); and without it caching compact copies without
#             metadata.managedFields (--strip-managed-fields); and that, kept serialized
#             (--packed, VC_CACHE_PACKED: vc-controller's pod cache)
# and prints the median of each. --keep leaves the cluster running (stop it with
# cluster/down.sh build/bench/informer/cluster). BENCH_LIB (default build/libcaldera.a, made by
# `make build`) is the library the bench program links.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
PODS=10000
RUNS=3
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--pods) PODS=$2 && shift ;;
	--runs) RUNS=$2 && shift ;;
	--keep) KEEP=1 ;;
	*) echo "usage: bench/bench_informer.sh [--pods N] [--runs R] [--keep]" >&2 && exit 2 ;;
	esac
	shift
done

LIB=${BENCH_LIB:-build/libcaldera.a}
WORK=build/bench/informer
BIN=build/bench/bench_informer
mkdir -p "$WORK"
[ -f "$LIB" ] || { echo "bench: $LIB is missing: run make build (or set BENCH_LIB)" >&2; exit 1; }
read -r -a PKGS <<<"$(make -s --no-print-directory print-pkgs)" # the Makefile's list
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -O2 -g -D_GNU_SOURCE -Icommon -Wall -Wextra -Werror \
	$(pkg-config --cflags "${PKGS[@]}") bench/bench_informer.c "$LIB" \
	$(pkg-config --libs "${PKGS[@]}") -lpthread -lm -o "$BIN"

CLUSTER=$WORK/cluster
cleanup() {
	[ "$KEEP" = 1 ] || cluster/down.sh "$CLUSTER" --purge >/dev/null 2>&1 || true
}
trap cleanup EXIT
if [ -f "$CLUSTER/.caldera-cluster" ]; then
	cluster/down.sh "$CLUSTER" --purge >/dev/null 2>&1 || true
fi
CALDERA_KUBE_BIN=$(cluster/build.sh | tail -n 1)
export CALDERA_KUBE_BIN
cluster/up.sh "$CLUSTER" >/dev/null 2>"$WORK/up.log" || { cat "$WORK/up.log" >&2; exit 1; }
export KUBECONFIG=$CLUSTER/kubeconfig KUBECACHEDIR=$CLUSTER/kubectl-cache
PORT=$(sed -n 's/^APISERVER_PORT=//p' "$CLUSTER/cluster.env")
TOKEN=$(awk -F, '$2 == "admin" { print $1 }' "$CLUSTER/tokens.csv")

kubectl create namespace bench >/dev/null
# Pods shaped like a Volcano job's: labels, annotations, requests, env, a scheduler name.
gen() {
	local from=$1 to=$2 i
	printf '{"apiVersion":"v1","kind":"List","items":['
	for ((i = from; i < to; i++)); do
		[ "$i" = "$from" ] || printf ','
		printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"job-%d-task-%d",' $((i / 10)) $((i % 10))
		printf '"labels":{"volcano.sh/job-name":"job-%d","volcano.sh/task-spec":"task","volcano.sh/queue-name":"default"},' $((i / 10))
		printf '"annotations":{"scheduling.k8s.io/group-name":"job-%d-pg","volcano.sh/task-index":"%d"}},' $((i / 10)) $((i % 10))
		printf '"spec":{"schedulerName":"volcano","restartPolicy":"Never","containers":[{"name":"main","image":"busybox:1.36",'
		printf '"command":["sh","-c","sleep 3600"],"env":[{"name":"VC_TASK_INDEX","value":"%d"}],' $((i % 10))
		printf '"resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}}}]}}'
	done
	printf ']}\n'
}
rm -f "$WORK"/pods-*.json
t0=$(date +%s.%N)
chunk=500
for ((s = 0; s < PODS; s += chunk)); do
	e=$((s + chunk < PODS ? s + chunk : PODS))
	gen "$s" "$e" >"$WORK/pods-$s.json"
done
find "$WORK" -name 'pods-*.json' -print0 |
	xargs -0 -P 4 -n 1 kubectl create -n bench -o name -f >/dev/null
created=$(kubectl get pods -n bench --no-headers 2>/dev/null | wc -l)
[ "$created" = "$PODS" ] || { echo "bench: $created pods exist, expected $PODS" >&2; exit 1; }
rm -f "$WORK"/pods-*.json
printf 'created %d pods in %.1f s\n' "$PODS" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"

# time_of CMD...: wall seconds of CMD.
time_of() {
	local a b
	a=$(date +%s.%N)
	"$@" >/dev/null
	b=$(date +%s.%N)
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }

kubectl_s=() curl_s=() def=() fast=() strip=() packed=()
# kube-apiserver pretty-prints JSON for a User-Agent starting with "curl": ask as a program.
CURL=(curl -fsS -A caldera-bench --cacert "$CLUSTER/pki/ca.crt" -H "Authorization: Bearer $TOKEN")
size=$("${CURL[@]}" "https://127.0.0.1:$PORT/api/v1/namespaces/bench/pods" | wc -c)
for ((r = 1; r <= RUNS; r++)); do
	kubectl_s+=("$(time_of kubectl get pods -n bench -o json)")
	curl_s+=("$(time_of "${CURL[@]}" "https://127.0.0.1:$PORT/api/v1/namespaces/bench/pods")")
	def+=("$("$BIN" --kubeconfig "$KUBECONFIG" --namespace bench --expect "$PODS")")
	fast+=("$("$BIN" --kubeconfig "$KUBECONFIG" --namespace bench --expect "$PODS" --qps 0)")
	strip+=("$("$BIN" --kubeconfig "$KUBECONFIG" --namespace bench --expect "$PODS" --qps 0 \
		--strip-managed-fields)")
	packed+=("$("$BIN" --kubeconfig "$KUBECONFIG" --namespace bench --expect "$PODS" --qps 0 \
		--strip-managed-fields --packed)")
done
echo "runs: $RUNS, medians; the pod list is $size bytes of JSON ($((size / PODS)) per pod)"
printf 'kubectl get pods -o json (pages of 500)        %6.3f s\n' "$(printf '%s\n' "${kubectl_s[@]}" | median)"
printf 'curl, one unpaged GET                          %6.3f s\n' "$(printf '%s\n' "${curl_s[@]}" | median)"
for set in def fast strip packed; do
	declare -n runs=$set
	case $set in
	def) label="informer, 5 qps / burst 10 (client-go default)" ;;
	fast) label="informer, no client-side limit" ;;
	strip) label="informer, no limit, managedFields stripped" ;;
	packed) label="informer, stripped and packed" ;;
	esac
	printf '%-46s %6.3f s to has_synced (list alone %.3f s), RSS +%s KiB = %s B/pod (JSON %s B/pod)\n' \
		"$label" \
		"$(printf '%s\n' "${runs[@]}" | field sync_s | median)" \
		"$(printf '%s\n' "${runs[@]}" | field list_only_s | median)" \
		"$(printf '%s\n' "${runs[@]}" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } print f["rss_after_kib"] - f["rss_before_kib"] }' | median)" \
		"$(printf '%s\n' "${runs[@]}" | field rss_per_pod_bytes | median)" \
		"$(printf '%s\n' "${runs[@]}" | field json_per_pod_bytes | median)"
done
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
