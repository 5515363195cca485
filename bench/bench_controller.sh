#!/usr/bin/env bash
# bench_controller.sh - how fast a Job controller turns Jobs into pods: kube-controller-manager's
# Job controller (batch/v1 Jobs), Volcano v1.7.0's vc-controller-manager with its vc-scheduler,
# and Caldera's vc-controller (both from the same Volcano Jobs), in one invocation, each in a
# fresh local cluster of its own (so that none lists or caches another's pods). All get the same
# client rate limits (--kube-api-qps/--kube-api-burst) and the same number of jobs and pods; the
# jobs are created while the controller is stopped, then the controller starts and the clock
# runs until every pod exists. Reported per run: pods created per second, when the first pod,
# 10%, 50% and 90% of them existed, the CPU seconds and RSS (3 s and 15 s after the last pod) of
# each process, the API server's and etcd's CPU seconds, and the API requests by verb and
# resource (the API server's apiserver_request_total before and after). Then the floors of
# issue 18, each PASS or FAIL.
#
# Both Volcano Job controllers run with a scheduler limited to the enqueue action (PodGroups are
# admitted so pods can be created; nothing is bound), as kube-controller-manager's pods are not
# bound either. No nodes are needed. Volcano's pair runs as jobs_lib.sh's E2E_IMPL=volcano
# starts it (with Volcano's Numatopology CRD, which v1.7's scheduler waits for).
#
#   bench/bench_controller.sh [JOBS] [PODS_PER_JOB] [QPS]     (defaults 1000 10 1000)
#   VC_CONTROLLER=path/to/vc-controller (default build/vc-controller)
#   VOLCANO_BIN=folder of Volcano's binaries (default: what build.sh in VOLCANO_SHARED prints;
#   VOLCANO_SHARED defaults to ../shared/volcano beside the repository or one level up).
#   BENCH_WORKERS=N: vc-controller syncs N jobs at a time (--worker-threads; default 3, Volcano's).
#   kube-controller-manager v1.20 always runs 5 Job workers (ConcurrentJobSyncs has no flag).
#   BENCH_VC_ARGS="...": more vc-controller flags (e.g. --schedule-period 5s).
#   BENCH_ONLY=RUN[,RUN]: only these runs of kcm, volcano, vc (e.g. BENCH_ONLY=vc for profiling;
#   floors that need a skipped run are not printed).
#   BENCH_KEEP=DIR: keep the pod count timelines (seconds, pods) and the controllers' logs there.
#   BENCH_PERF=FILE: record vc-controller with `perf record -g` into FILE during its run.
#   BENCH_BOUND=1: afterwards, price each request kind with bench_api_cost.sh (one more fresh
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
if [ -z "${VOLCANO_SHARED:-}" ]; then
	VOLCANO_SHARED=$ROOT/../shared/volcano
	[ -d "$VOLCANO_SHARED" ] || VOLCANO_SHARED=$ROOT/../../shared/volcano
fi
VOLCANO_BIN=${VOLCANO_BIN:-}
[ -n "$VOLCANO_BIN" ] || [ -x "$VOLCANO_SHARED/build.sh" ] || [[ -n "${BENCH_ONLY:-}" && ",$BENCH_ONLY," != *",volcano,"* ]] ||
	{ echo "bench: set VOLCANO_SHARED (the folder of Volcano's build.sh) or VOLCANO_BIN" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench_controller.XXXXXX")
cluster=$scratch/cluster
pids=() names=()
stop() { # the processes of the current run
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=() names=()
}
cleanup() {
	stop
	if [ -n "${BENCH_KEEP:-}" ]; then
		mkdir -p "$BENCH_KEEP"
		cp "$scratch"/timeline.* "$scratch"/*.log "$BENCH_KEEP"/ 2>/dev/null || true
	fi
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
	token=$(awk -F, '$2 == "admin" { print $1 }' "$cluster/tokens.csv")
	port=$(sed -n 's/^APISERVER_PORT=//p' "$cluster/cluster.env")
	k apply -f "$ROOT/crds/" >/dev/null
	for _ in $(seq 60); do
		k wait --for condition=established --timeout=5s crd --all >/dev/null && break
		sleep 1
	done
}

# Pods in namespace NS, from one cheap request (remainingItemCount of a 1-item page), with curl
# and the admin token (cluster/README.md): a kubectl process per sample took about a second of
# CPU on a loaded machine, which blurred the milestones and took CPU from the runs.
count_pods() {
	local out r
	out=$(curl -sS --max-time 5 --cacert "$cluster/pki/ca.crt" -H "Authorization: Bearer $token" \
		"https://127.0.0.1:$port/api/v1/namespaces/$1/pods?limit=1") || { echo 0; return; }
	out=$(tr -d ' \n' <<<"$out") # the API server indents JSON for clients other than kubectl
	r=$(sed -n 's/.*"remainingItemCount":\([0-9]*\).*/\1/p' <<<"$out")
	if grep -q '"items":\[\]' <<<"$out"; then echo 0; else echo $((${r:-0} + 1)); fi
}
# shellcheck source=bench/lib_server.sh
. "$ROOT/bench/lib_server.sh"
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
time_until_all() { # NS -> seconds since t0 (set when the run's processes were started)
	local n p
	: >"$scratch/timeline.$1"
	while :; do
		n=$(count_pods "$1")
		echo "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }') $n" >>"$scratch/timeline.$1"
		[ "$n" -ge "$TOTAL" ] && break
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || died "$1"; done
		sleep 0.2
	done
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'
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

# --- the runs --------------------------------------------------------------------------------
# Each run starts its processes (names in names[], PIDs in pids[]) on a fresh cluster holding the
# jobs, then measure() times it and records, per run R: secs[R], the CPU seconds and RSS of each
# process (cpu[R], rss3[R], rss15[R]: "name value, ..."), the API server's and etcd's CPU
# seconds (api[R], etcd[R]), the request counters before and after ($scratch/req{0,1}.R) and the
# pod count every 0.2 s ($scratch/timeline.R).
a0=0 e0=0 t0=0
declare -A secs cpu cpusum rss3 rss15 rss15_vc api etcd load
want() { # RUN: is RUN among BENCH_ONLY (default every run; "vc" alone is the old BENCH_ONLY=vc)
	[ -z "${BENCH_ONLY:-}" ] || [[ ",$BENCH_ONLY," == *",$1,"* ]]
}
rss_of() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "?"; }
proc_list() { # FN: "name value, ..." for every process of the run
	local i out=
	for i in "${!pids[@]}"; do
		out+="${out:+, }${names[$i]} $("$1" "${pids[$i]}")"
	done
	echo "$out"
}
# begin RUN, just before the run's processes start: the counters before; then t0=$(now) right
# after they started, then measure RUN NS.
begin() {
	load[$1]=$(cut -d' ' -f1 /proc/loadavg)
	read -r a0 e0 < <(server_cpu "$cluster")
	server_requests "$scratch/req0.$1"
}
measure() { # RUN NS
	local a1 e1 i s
	s=$(time_until_all "$2")
	read -r a1 e1 < <(server_cpu "$cluster")
	server_requests "$scratch/req1.$1"
	secs[$1]=$s
	load[$1]+=" -> $(cut -d' ' -f1 /proc/loadavg)"
	cpu[$1]=$(proc_list proc_cpu_s)
	cpusum[$1]=0
	for i in "${pids[@]}"; do
		cpusum[$1]=$(awk -v a="${cpusum[$1]}" -v b="$(proc_cpu_s "$i")" 'BEGIN { print a + b }')
	done
	api[$1]=$(awk -v a="$a0" -v b="$a1" 'BEGIN { print b - a }')
	etcd[$1]=$(awk -v a="$e0" -v b="$e1" 'BEGIN { print b - a }')
	sleep 3 # let the informers take in the last pods and their updates
	rss3[$1]=$(proc_list rss_of)
	sleep 12 # and 15 s after: what the periodic trim could hand back by then
	rss15[$1]=$(proc_list rss_of)
	rss15_vc[$1]=$(rss_of "${pids[0]}")
	if [ -n "${BENCH_KEEP:-}" ]; then # the Events of the run by source and reason
		mkdir -p "$BENCH_KEEP"
		k get events -n "$2" -o jsonpath='{range .items[*]}{.source.component} {.reason} {.count}{"\n"}{end}' |
			awk '{ n[$1 " " $2] += $3 } END { for (r in n) print n[r], r }' | sort -rn >"$BENCH_KEEP/events.$1"
	fi
}
queue_default() {
	k apply -f - >/dev/null <<'Q'
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1, reclaimable: true}
Q
}
# The scheduler configuration of both Volcano Job controllers: only the enqueue action, which
# moves the PodGroups to Inqueue so that pods may be created; nothing is bound.
cat >"$scratch/enqueue.conf" <<'CONF'
actions: "enqueue"
tiers:
- plugins:
  - name: priority
  - name: gang
CONF

# --- kube-controller-manager's Job controller (batch/v1 Jobs) ------------------------------
if want kcm; then
	fresh_cluster
	k create namespace kcm >/dev/null
	gen batch kcm >"$scratch/batch.json"
	k create -f "$scratch/batch.json" >/dev/null
	begin kcm
	"$KCM" --kubeconfig="$cluster/kube-controller-manager.kubeconfig" --controllers=job \
		--leader-elect=false --secure-port=0 --port=0 --kube-api-qps="$QPS" \
		--kube-api-burst="$QPS" >"$scratch/kcm.log" 2>&1 &
	pids=($!) names=(kube-controller-manager) t0=$(now)
	measure kcm kcm
	stop
fi

# --- Volcano v1.7.0: vc-controller-manager + vc-scheduler (enqueue only) --------------------
if want volcano; then
	[ -n "$VOLCANO_BIN" ] || VOLCANO_BIN=$("$VOLCANO_SHARED/build.sh")
	fresh_cluster
	# vc-scheduler v1.7 waits for its Numatopology informer: Volcano's own install has the CRD.
	awk -v RS='\n---\n' '/name: numatopologies.nodeinfo.volcano.sh/' \
		"$VOLCANO_SHARED/volcano-development.yaml" | k apply -f - >/dev/null
	for _ in $(seq 60); do
		k wait --for condition=established --timeout=5s crd --all >/dev/null && break
		sleep 1
	done
	k create namespace volcano >/dev/null
	queue_default
	gen volcano volcano >"$scratch/volcano.json"
	k create -f "$scratch/volcano.json" >/dev/null
	begin volcano
	# v1.7 has no --controllers: its job, queue, PodGroup and gc controllers all run; no
	# healthz or metrics listeners (off by default), 3 job workers (its default, as ours).
	"$VOLCANO_BIN/vc-controller-manager" --kubeconfig "$KUBECONFIG" --leader-elect=false \
		--kube-api-qps "$QPS" --kube-api-burst "$QPS" >"$scratch/volcano-cm.log" 2>&1 &
	pids=($!) t0=$(now)
	"$VOLCANO_BIN/vc-scheduler" --kubeconfig "$KUBECONFIG" --leader-elect=false \
		--kube-api-qps "$QPS" --kube-api-burst "$QPS" \
		--scheduler-conf "$scratch/enqueue.conf" >"$scratch/volcano-sched.log" 2>&1 &
	pids+=($!) names=(vc-controller-manager vc-scheduler)
	measure volcano volcano
	stop
fi

# --- Caldera's vc-controller ---------------------------------------------------------------
if want vc; then
	fresh_cluster
	k create namespace vc >/dev/null
	queue_default
	gen volcano vc >"$scratch/vc.json"
	k create -f "$scratch/vc.json" >/dev/null
	ulimit -c unlimited 2>/dev/null || true
	begin vc
	# shellcheck disable=SC2086 # BENCH_VC_ARGS may hold several flags
	(cd "$scratch" && exec "$CTRL" --kubeconfig "$KUBECONFIG" --leader-elect=false --kube-api-qps "$QPS" \
		--kube-api-burst "$QPS" --scheduler-conf "$scratch/enqueue.conf" \
		--controllers=-gc-controller,-pg-controller ${BENCH_WORKERS:+--worker-threads "$BENCH_WORKERS"} \
		${BENCH_VC_ARGS:-}) >"$scratch/vc.log" 2>&1 &
	pids=($!) names=(vc-controller) t0=$(now)
	perf_pid=
	if [ -n "${BENCH_PERF:-}" ]; then
		perf record -g -o "$BENCH_PERF" -p "${pids[0]}" >/dev/null 2>&1 &
		perf_pid=$!
	fi
	measure vc vc
	if [ -n "$perf_pid" ]; then
		kill -INT "$perf_pid" 2>/dev/null || true
		wait "$perf_pid" 2>/dev/null || true
	fi
	stop
fi

# --- the report ------------------------------------------------------------------------------
# When the first pod, a tenth, half and nine tenths of them existed ("first 10p 50p 90p").
milestones() { # RUN
	awk -v total="$TOTAL" '{
		if (!f && $2 > 0) { f = 1; first = $1 }
		if (!t && $2 >= total / 10) { t = 1; p10 = $1 }
		if (!h && $2 >= total / 2) { h = 1; p50 = $1 }
		if (!n && $2 >= total * 9 / 10) { n = 1; p90 = $1 }
	} END { print first + 0, p10 + 0, p50 + 0, p90 + 0 }' "$scratch/timeline.$1"
}
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workload: $JOBS jobs x $PER pods = $TOTAL pods, client qps/burst $QPS, job workers: vc-controller ${BENCH_WORKERS:-3}, vc-controller-manager 3, kcm 5${BENCH_VC_ARGS:+; vc-controller $BENCH_VC_ARGS}"
printf '%-26s %7s %7s %6s %6s %6s %6s %7s %15s\n' run "time s" "pods/s" first 10% 50% 90% "CPU s" "apiserver,etcd"
declare -A p10 rate first
for r in kcm volcano vc; do
	[ -n "${secs[$r]:-}" ] || continue
	read -r first[$r] p10[$r] p50 p90 < <(milestones "$r")
	rate[$r]=$(awk -v t="$TOTAL" -v s="${secs[$r]}" 'BEGIN { printf "%.1f", t / s }')
	case $r in
	kcm) label="kube-controller-manager" ;;
	volcano) label="Volcano v1.7.0" ;;
	vc) label="Caldera vc-controller" ;;
	esac
	printf '%-26s %7.1f %7.0f %6.1f %6.1f %6.1f %6.1f %7.1f %7.1f,%.1f\n' "$label" "${secs[$r]}" \
		"${rate[$r]}" "${first[$r]}" "${p10[$r]}" "$p50" "$p90" "${cpusum[$r]}" "${api[$r]}" "${etcd[$r]}"
done
for r in kcm volcano vc; do
	[ -n "${secs[$r]:-}" ] || continue
	echo "$r: load ${load[$r]}; CPU s ${cpu[$r]}; RSS MiB 3 s after the last pod: ${rss3[$r]}; 15 s after: ${rss15[$r]}"
	echo "$r: API requests: $(server_request_diff "$scratch/req0.$r" "$scratch/req1.$r")"
done
# The floors (issue 18), each PASS or FAIL; a floor whose run was skipped is not printed.
floor() { # TEXT CONDITION(awk expression true = PASS)
	echo "floor: $1: $(awk "BEGIN { print ($2) ? \"PASS\" : \"FAIL\" }")"
}
if [ -n "${secs[vc]:-}" ]; then
	[ -z "${secs[volcano]:-}" ] ||
		floor "Caldera pods/s >= 3 x Volcano's ($(awk -v a="${rate[vc]}" -v b="${rate[volcano]}" 'BEGIN { printf "%.2f x", a / b }'))" "${rate[vc]} >= 3 * ${rate[volcano]}"
	floor "Caldera's first pod <= 2 s (${first[vc]} s)" "${first[vc]} <= 2"
	[ -z "${secs[kcm]:-}" ] ||
		floor "Caldera's 10% <= kube-controller-manager's (${p10[vc]} s vs ${p10[kcm]} s)" "${p10[vc]} <= ${p10[kcm]}"
	floor "vc-controller RSS 15 s after the storm <= 64 MB (${rss15_vc[vc]} MiB)" "${rss15_vc[vc]} * 1048576 <= 64000000"
fi

# --- the bound (BENCH_BOUND=1) ------------------------------------------------------------
if [ "${BENCH_BOUND:-}" = 1 ] && want kcm && [ -n "${secs[kcm]:-}" ]; then
	"$ROOT/bench/bench_api_cost.sh" 2000 8 >"$scratch/prices" 2>&1 ||
		{ cat "$scratch/prices" >&2; exit 1; }
	kcm_events=$(server_request_diff "$scratch/req0.kcm" "$scratch/req1.kcm" | grep -o 'POST events [0-9]*' | awk '{ print $3 }')
	awk -v jobs="$JOBS" -v per="$PER" -v ks="${secs[kcm]}" -v kc="${cpusum[kcm]}" -v n="$(nproc)" -v ev="${kcm_events:-0}" \
		-v kserver="$(awk -v a="${api[kcm]}" -v b="${etcd[kcm]}" 'BEGIN { print a + b }')" '
	$2 ~ /^[0-9.]+$/ && $3 == "ms" { price[$1] = $6 }
	END {
		vc = per * price["pod-create"] + price["podgroup-create"] + price["podgroup-update"] + price["vcjob-status"]
		kcm = per * price["pod-create"] + price["batchjob-status"] + ev / jobs * price["event-create"]
		per_job = kserver * 1000 / jobs * vc / kcm
		printf "prices (API server + etcd ms): pod %.2f, PodGroup create %.2f, update %.2f, Volcano Job status %.2f, batch Job status %.2f, Event %.2f\n", price["pod-create"], price["podgroup-create"], price["podgroup-update"], price["vcjob-status"], price["batchjob-status"], price["event-create"]
		printf "minimum per %d-pod Job: Volcano %.1f ms, batch/v1 %.1f ms; kcm run: %.1f ms of server CPU per Job, %.2f of %d CPUs busy\n", per, vc, kcm, kserver * 1000 / jobs, (kc + kserver) / ks, n
		printf "bound: a Volcano Job controller at best %.0f pods/s here = %.2f x kube-controller-manager\n", n * 1000 / per_job * per, n * 1000 / per_job * per / (jobs * per / ks)
	}' "$scratch/prices"
fi
