#!/usr/bin/env bash
# bench_controller.sh - how fast vc-controller turns Jobs into pods, next to kube-controller-
# manager's Job controller doing the same from batch/v1 Jobs, in one run, each controller in a
# fresh local cluster of its own (so that neither lists or caches the other's pods). Both get the same client rate limits (--kube-api-qps/--kube-api-burst) and the same
# number of jobs and pods; the jobs are created while the controller is stopped, then the
# controller starts and the clock runs until every pod exists. Reported: pods created per
# second, CPU seconds of the controller process, and vc-controller's RSS with every pod cached.
#
# vc-controller runs with its scheduler limited to the enqueue action (PodGroups are admitted
# so pods can be created; nothing is bound), as kube-controller-manager's pods are not bound
# either. No nodes are needed.
#
#   bench/bench_controller.sh [JOBS] [PODS_PER_JOB] [QPS]     (defaults 1000 10 1000)
#   VC_CONTROLLER=path/to/vc-controller (default build/vc-controller)
#   BENCH_WORKERS=N: vc-controller syncs N jobs at a time (--worker-threads; default 3, Volcano's).
#   kube-controller-manager v1.20 always runs 5 Job workers (ConcurrentJobSyncs has no flag).
#   BENCH_VC_ARGS="...": more vc-controller flags (e.g. --schedule-period 5s).
#   BENCH_ONLY=vc: skip kube-controller-manager's run (no ratio then; for profiling).
#   BENCH_PERF=FILE: record vc-controller with `perf record -g` into FILE during its run.
#   BENCH_BOUND=1: afterwards, price each request kind with bench_api_cost.sh (a third fresh
#   cluster) and print the best ratio any Volcano Job controller could reach on this machine:
#   the API server and etcd on every CPU, nothing else running, and per Job only the requests
#   Volcano's contract needs (PER pod creations, a PodGroup creation, its Inqueue update, one
#   Job status write), scaled from kube-controller-manager's measured server CPU per Job by the
#   ratio of the two price lists.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${1:-1000}
PER=${2:-10}
QPS=${3:-1000}
TOTAL=$((JOBS * PER))
CTRL=${VC_CONTROLLER:-$ROOT/build/vc-controller}
CACHE=${CALDERA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}
KCM=${CALDERA_KUBE_BIN:-$CACHE/kubernetes-1.20.2/bin}/kube-controller-manager
[ -x "$CTRL" ] || { echo "bench: run make first" >&2; exit 1; }
[ -x "$KCM" ] || { echo "bench: run cluster/build.sh first" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench_controller.XXXXXX")
cluster=$scratch/cluster
pid=
stop() {
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
}
cleanup() {
	stop
	"$ROOT/cluster/down.sh" "$cluster" --purge >/dev/null 2>&1 || true
	rm -rf "$scratch"
}
trap cleanup EXIT
export KUBECONFIG=$cluster/kubeconfig
k() { kubectl "$@" 2>/dev/null; }
now() { date +%s.%N; }
# A fresh cluster with Volcano's CRDs (the previous one, if any, is purged first).
fresh_cluster() {
	"$ROOT/cluster/down.sh" "$cluster" --purge >/dev/null 2>&1 || true
	"$ROOT/cluster/up.sh" "$cluster" >/dev/null 2>"$scratch/up.log"
	k apply -f "$ROOT/crds/" >/dev/null
	for _ in $(seq 60); do
		k wait --for condition=established --timeout=5s crd --all >/dev/null && break
		sleep 1
	done
}

# Pods in namespace NS, from one cheap request (remainingItemCount of a 1-item page).
count_pods() {
	k get --raw "/api/v1/namespaces/$1/pods?limit=1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d.get("items", [])) + d.get("metadata", {}).get("remainingItemCount", 0))'
}
cpu_seconds() { # PID: user + system time
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"
}
# Start the clock when the process starts, stop it when NS has TOTAL pods.
# CPU seconds of the API server and etcd so far ("apiserver etcd").
server_cpu() {
	echo "$(cpu_seconds "$(cat "$cluster/run/kube-apiserver.pid")") $(cpu_seconds "$(cat "$cluster/run/etcd.pid")")"
}
# The API server's request counters (apiserver_request_total by verb and resource) into FILE.
requests() { k get --raw /metrics | grep '^apiserver_request_total{' >"$1" || true; }
# The requests made between two snapshots of requests(), most first.
request_diff() { # BEFORE AFTER
	python3 - "$1" "$2" <<'PY'
import re, sys
def load(path):
    out = {}
    for line in open(path):
        m = re.match(r'apiserver_request_total\{(.*)\} (\S+)', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        res = labels.get("resource", "")
        if labels.get("subresource"):
            res += "/" + labels["subresource"]
        key = (labels.get("verb", ""), res)
        out[key] = out.get(key, 0) + float(m.group(2))
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
d = sorted(((v - a.get(k, 0), k) for k, v in b.items() if v - a.get(k, 0) >= 10), reverse=True)
print("  ".join("%s %s %d" % (k[0], k[1], n) for n, k in d))
PY
}
# The controller of namespace NS exited before its pods were made: keep its log (and a core
# file, if the system wrote one into the scratch directory) for a post-mortem.
died() {
	local keep
	keep=$(mktemp -d "${TMPDIR:-/tmp}/bench_controller.died.XXXXXX")
	cp "$scratch"/*.log "$keep"/ 2>/dev/null || true
	mv "$scratch"/core* "$keep"/ 2>/dev/null || true
	echo "bench: the controller of namespace $1 died; its log is in $keep" >&2
	exit 1
}
time_until_all() { # NS -> "seconds cpu"
	local t0 n
	t0=$(now)
	: >"$scratch/timeline.$1"
	while :; do
		n=$(count_pods "$1")
		echo "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }') $n" >>"$scratch/timeline.$1"
		[ "$n" -ge "$TOTAL" ] && break
		kill -0 "$pid" 2>/dev/null || died "$1"
		sleep 0.2
	done
	echo "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }') $(cpu_seconds "$pid")"
}

gen() { # KIND NS -> a List of JOBS objects
	python3 - "$1" "$2" "$JOBS" "$PER" <<'PY'
import json, sys
kind, ns, jobs, per = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
items = []
pod = {"containers": [{"name": "c", "image": "busybox",
                       "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
       "restartPolicy": "Never"}
for i in range(jobs):
    name = "job-%04d" % i
    if kind == "batch":
        items.append({"apiVersion": "batch/v1", "kind": "Job",
                      "metadata": {"name": name, "namespace": ns},
                      "spec": {"parallelism": per, "completions": per,
                               "template": {"spec": pod}}})
    else:
        items.append({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                      "metadata": {"name": name, "namespace": ns},
                      "spec": {"minAvailable": per, "schedulerName": "volcano",
                               "tasks": [{"name": "w", "replicas": per,
                                          "template": {"spec": pod}}]}})
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
PY
}

# --- kube-controller-manager's Job controller -----------------------------------------------
kcm_s=0 kcm_cpu=0 a0=0 a1=0 e0=0 e1=0
if [ "${BENCH_ONLY:-}" != vc ]; then
fresh_cluster
k create namespace kcm >/dev/null
gen batch kcm >"$scratch/batch.json"
k create -f "$scratch/batch.json" >/dev/null
"$KCM" --kubeconfig="$cluster/kube-controller-manager.kubeconfig" --controllers=job \
	--leader-elect=false --secure-port=0 --port=0 --kube-api-qps="$QPS" \
	--kube-api-burst="$QPS" >"$scratch/kcm.log" 2>&1 &
pid=$!
read -r a0 e0 < <(server_cpu)
requests "$scratch/req0"
read -r kcm_s kcm_cpu < <(time_until_all kcm)
read -r a1 e1 < <(server_cpu)
requests "$scratch/req1"
stop
fi

# --- vc-controller -------------------------------------------------------------------------
fresh_cluster
cat >"$scratch/enqueue.conf" <<'CONF'
actions: "enqueue"
tiers:
- plugins:
  - name: priority
  - name: gang
CONF
k create namespace vc >/dev/null
k apply -f - >/dev/null <<'Q'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1, reclaimable: true}
Q
gen volcano vc >"$scratch/vc.json"
k create -f "$scratch/vc.json" >/dev/null
ulimit -c unlimited 2>/dev/null || true
(cd "$scratch" && exec "$CTRL" --kubeconfig "$KUBECONFIG" --leader-elect=false --kube-api-qps "$QPS" \
	--kube-api-burst "$QPS" --scheduler-conf "$scratch/enqueue.conf" \
	--controllers=-gc-controller,-pg-controller ${BENCH_WORKERS:+--worker-threads "$BENCH_WORKERS"} \
	${BENCH_VC_ARGS:-}) >"$scratch/vc.log" 2>&1 &
pid=$!
perf_pid=
if [ -n "${BENCH_PERF:-}" ]; then
	perf record -g -o "$BENCH_PERF" -p "$pid" >/dev/null 2>&1 &
	perf_pid=$!
fi
read -r a2 e2 < <(server_cpu)
requests "$scratch/req2"
read -r vc_s vc_cpu < <(time_until_all vc)
read -r a3 e3 < <(server_cpu)
requests "$scratch/req3"
sleep 3 # let the informers take in the last pods and their updates
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
sleep 12 # and 15 s after: what the periodic trim could hand back by then
rss15=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
if [ -n "$perf_pid" ]; then
	kill -INT "$perf_pid" 2>/dev/null || true
	wait "$perf_pid" 2>/dev/null || true
fi
stop

awk -v jobs="$JOBS" -v per="$PER" -v total="$TOTAL" -v qps="$QPS" -v ks="$kcm_s" \
	-v kc="$kcm_cpu" -v vs="$vc_s" -v vcpu="$vc_cpu" -v rss="$rss" -v rss15="$rss15" \
	-v kapi="$(awk -v a="$a0" -v b="$a1" 'BEGIN { print b - a }')" -v ketcd="$(awk -v a="$e0" -v b="$e1" 'BEGIN { print b - a }')" \
	-v vapi="$(awk -v a="$a2" -v b="$a3" 'BEGIN { print b - a }')" -v vetcd="$(awk -v a="$e2" -v b="$e3" 'BEGIN { print b - a }')" \
	-v cpu="$(lscpu | sed -n 's/^Model name: *//p')" -v n="$(nproc)" \
	-v workers="vc ${BENCH_WORKERS:-3}, kcm 5" -v extra="${BENCH_VC_ARGS:+, vc-controller $BENCH_VC_ARGS}" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
	printf "machine: %s, %d CPUs; load average at the end %s\n", cpu, n, load
	printf "workload: %d jobs x %d pods = %d pods, client qps/burst %d, job workers %s%s\n", jobs, per, total, qps, workers, extra
	printf "                                  time     pods/s   CPU s  (apiserver, etcd CPU s)\n"
	if (ks > 0) printf "kube-controller-manager (job): %6.1f s  %7.0f  %6.2f  (%.1f, %.1f)\n", ks, total / ks, kc, kapi, ketcd
	printf "vc-controller:                 %6.1f s  %7.0f  %6.2f  (%.1f, %.1f)\n", vs, total / vs, vcpu, vapi, vetcd
	if (ks > 0) printf "ratio (vc / kcm pods/s):       %.2f   (floor 2.0)\n", ks / vs
	printf "vc-controller RSS with %d pods cached: %.1f MiB 3 s after the last pod, %.1f MiB 15 s after (floor 64 MB)\n", total, rss / 1024, rss15 / 1024
}'
[ "${BENCH_ONLY:-}" = vc ] ||
	echo "API requests during kube-controller-manager's run: $(request_diff "$scratch/req0" "$scratch/req1")"
# When the first pod, a tenth, half and nine tenths of them existed.
milestones() { # NS
	awk -v total="$TOTAL" '{
		if (!f && $2 > 0) { f = 1; printf "first pod %.1f s", $1 }
		if (!t && $2 >= total / 10) { t = 1; printf ", 10%% %.1f s", $1 }
		if (!h && $2 >= total / 2) { h = 1; printf ", 50%% %.1f s", $1 }
		if (!n && $2 >= total * 9 / 10) { n = 1; printf ", 90%% %.1f s", $1 }
	} END { print "" }' "$scratch/timeline.$1"
}
[ "${BENCH_ONLY:-}" = vc ] || echo "kube-controller-manager's pods: $(milestones kcm)"
echo "vc-controller's pods: $(milestones vc)"
echo "API requests during vc-controller's run: $(request_diff "$scratch/req2" "$scratch/req3")"

# --- the bound (BENCH_BOUND=1) ------------------------------------------------------------
if [ "${BENCH_BOUND:-}" = 1 ] && [ "${BENCH_ONLY:-}" != vc ]; then
	"$ROOT/bench/bench_api_cost.sh" 2000 8 >"$scratch/prices" 2>&1 ||
		{ cat "$scratch/prices" >&2; exit 1; }
	kcm_events=$(request_diff "$scratch/req0" "$scratch/req1" | grep -o 'POST events [0-9]*' | awk '{ print $3 }')
	awk -v jobs="$JOBS" -v per="$PER" -v ks="$kcm_s" -v kc="$kcm_cpu" -v n="$(nproc)" -v ev="${kcm_events:-0}" \
		-v kserver="$(awk -v a="$a0" -v b="$a1" -v c="$e0" -v d="$e1" 'BEGIN { print b - a + d - c }')" '
	$2 ~ /^[0-9.]+$/ && $3 == "ms" { price[$1] = $6 }
	END {
		vc = per * price["pod-create"] + price["podgroup-create"] + price["podgroup-update"] + price["vcjob-status"]
		kcm = per * price["pod-create"] + price["batchjob-status"] + ev / jobs * price["event-create"]
		per_job = kserver * 1000 / jobs * vc / kcm
		printf "prices (API server + etcd ms): pod %.2f, PodGroup create %.2f, update %.2f, Volcano Job status %.2f, batch Job status %.2f, Event %.2f\n", price["pod-create"], price["podgroup-create"], price["podgroup-update"], price["vcjob-status"], price["batchjob-status"], price["event-create"]
		printf "minimum per %d-pod Job: Volcano %.1f ms, batch/v1 %.1f ms; kcm run: %.1f ms of server CPU per Job, %.2f of %d CPUs busy\n", per, vc, kcm, kserver * 1000 / jobs, (kc + kserver) / ks, n
		printf "bound: a Volcano Job controller at best %.0f pods/s here = %.2f x kube-controller-manager (floor 2.0)\n", n * 1000 / per_job * per, n * 1000 / per_job * per / (jobs * per / ks)
	}' "$scratch/prices"
fi
