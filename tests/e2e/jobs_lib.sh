# shellcheck shell=bash
# What the Job controller's end-to-end tests (tests/e2e/test_jobs*.sh) share: a cluster with
# Volcano's CRDs, vc-webhook registered by URL on 127.0.0.1, vc-nodesim playing the nodes and
# vc-controller with every controller and the bundled scheduler; helpers to apply jobs and wait
# for them; diagnostics printed by every failing check (the namespace's jobs, pods, PodGroups,
# events and the end of vc-controller's log).
#
#   jobs_setup [NODES]   the whole stack (NODES: vc-nodesim --nodes, default 4 nodes of 8 CPUs)
#   ctrl_start / ctrl_stop / ctrl_kill9   vc-controller (healthz on 127.0.0.1)
#   ns NAME              a fresh namespace for a scenario (diagnostics follow it)
#   apply_job FILE|-     kubectl apply into the scenario's namespace
#   wait_phase JOB PHASE [TIMEOUT]
#   status JOB / status_is JOB "PHASE RETRYCOUNT VERSION" / running_pods JOB N
#   jfield JOB JSONPATH  / pfield POD JSONPATH    kubectl get -o jsonpath in the namespace
#   check WHAT CONDITION...   run CONDITION; fail with WHAT and the diagnostics when false
#   sched_conf <FILE         the scheduler configuration for vc-controller / vc-scheduler (CONF)
#
# E2E_BIN_DIR (default build/) holds vc-controller, vc-webhook, vc-nodesim and vcctl;
# E2E_CTRL_ARGS adds flags to vc-controller (e.g. --v=4).
#
# E2E_IMPL=volcano runs the same scenario against real Volcano: its vc-webhook-manager,
# vc-controller-manager and vc-scheduler (from VOLCANO_BIN, default: what build.sh in
# VOLCANO_SHARED, default ../shared/volcano, prints) take the places of vc-webhook and vc-controller; the
# cluster, the CRDs and vc-nodesim stay. A scenario's expectation that holds under both is
# Volcano's behaviour, checked. Checks of Caldera's own extras are guarded with
# `is_caldera &&`. E2E_SCHED_CONF names a scheduler configuration file for vc-scheduler.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BIN=${E2E_BIN_DIR:-$E2E_ROOT/build}
CTRL=$BIN/vc-controller
HOOK=$BIN/vc-webhook
SIM=$BIN/vc-nodesim
VCCTL=$BIN/vcctl
for b in "$CTRL" "$HOOK" "$SIM" "$VCCTL"; do
	[ -x "$b" ] || fail "$b is missing (make build, or set E2E_BIN_DIR)"
done
E2E_IMPL=${E2E_IMPL:-caldera}
case $E2E_IMPL in
caldera) ;;
volcano)
	VOLCANO_SHARED=${VOLCANO_SHARED:-$E2E_ROOT/../shared/volcano}
	if [ -z "${VOLCANO_BIN:-}" ]; then
		[ -x "$VOLCANO_SHARED/build.sh" ] ||
			fail "E2E_IMPL=volcano: set VOLCANO_SHARED (the folder of Volcano's build.sh) or VOLCANO_BIN"
		VOLCANO_BIN=$("$VOLCANO_SHARED/build.sh") || fail "$VOLCANO_SHARED/build.sh failed"
	fi
	[ -f "$VOLCANO_SHARED/volcano-development.yaml" ] ||
		fail "E2E_IMPL=volcano: $VOLCANO_SHARED/volcano-development.yaml is missing (set VOLCANO_SHARED)"
	for b in vc-webhook-manager vc-controller-manager vc-scheduler; do
		[ -x "$VOLCANO_BIN/$b" ] || fail "E2E_IMPL=volcano: $VOLCANO_BIN/$b is missing"
	done
	;;
*) fail "E2E_IMPL is caldera or volcano, not '$E2E_IMPL'" ;;
esac
# is_caldera: the stack under test is Caldera's (guards checks of Caldera's own extras).
is_caldera() { [ "$E2E_IMPL" = caldera ]; }
command -v curl >/dev/null || fail "curl is missing"

# --- diagnostics ---------------------------------------------------------------------------------

CUR_NS=
CTRL_NAME= # daemon name of the running vc-controller (Volcano's controller-manager)
CTRL_DAEMONS=() # every daemon ctrl_start started: vc-controller, or Volcano's two
diag() {
	[ -n "$CUR_NS" ] || return 0
	printf '\n===== vcjobs in %s\n' "$CUR_NS"
	kube get vcjob -n "$CUR_NS" -o custom-columns='NAME:.metadata.name,PHASE:.status.state.phase,VERSION:.status.version,RETRY:.status.retryCount,PENDING:.status.pending,RUNNING:.status.running,SUCCEEDED:.status.succeeded,FAILED:.status.failed,TERMINATING:.status.terminating' 2>&1 | head -n 40
	printf '\n===== pods in %s\n' "$CUR_NS"
	kube get pods -n "$CUR_NS" -o custom-columns='NAME:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName,VERSION:.metadata.annotations.volcano\.sh/job-version,RETRY:.metadata.annotations.volcano\.sh/job-retry-count,DELETING:.metadata.deletionTimestamp' 2>&1 | head -n 60
	printf '\n===== podgroups in %s\n' "$CUR_NS"
	kube get podgroups.scheduling.volcano.sh -n "$CUR_NS" -o custom-columns='NAME:.metadata.name,PHASE:.status.phase,MIN:.spec.minMember,QUEUE:.spec.queue' 2>&1 | head -n 20
	printf '\n===== last events in %s\n' "$CUR_NS"
	kube get events -n "$CUR_NS" --sort-by=.lastTimestamp 2>&1 | tail -n 25
	local d
	for d in "${CTRL_DAEMONS[@]}"; do
		[ -f "$E2E_DIR/daemons/$d.log" ] || continue
		printf '\n===== last lines of %s\n' "$d"
		tail -n 30 "$E2E_DIR/daemons/$d.log"
	done
}

# check WHAT CMD...: CMD must succeed.
check() {
	local what=$1 out
	shift
	out=$("$@" 2>&1) || fail "$what" "$out"
}

# eq WHAT GOT WANT
eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# --- the stack ------------------------------------------------------------------------------------


webhook_start() {
	local certs=$E2E_DIR/certs started='' port hport
	"$HOOK" --generate-certs "$certs" --webhook-service-name volcano-admission-service \
		--webhook-namespace volcano-system >/dev/null || fail "vc-webhook --generate-certs failed"
	hook_ok() {
		[ "$(curl -sS --cacert "$certs/ca.crt" "https://127.0.0.1:$1/healthz" 2>/dev/null)" = ok ] &&
			kube get validatingwebhookconfiguration volcano-admission-service-jobs-validate \
				-o jsonpath='{.webhooks[0].clientConfig.url}' 2>/dev/null |
			grep -qx "https://127.0.0.1:$1/jobs/validate"
	}
	for _ in 1 2 3 4 5; do
		port=$(free_port)
		hport=$(free_port)
		[ "$port" != "$hport" ] || continue
		start_daemon webhook "$HOOK" --kubeconfig "$KUBECONFIG" --listen-address 127.0.0.1 \
			--port "$port" --tls-cert-file "$certs/tls.crt" --tls-private-key-file "$certs/tls.key" \
			--ca-cert-file "$certs/ca.crt" --webhook-url "https://127.0.0.1:$port" \
			--enable-healthz --healthz-address "127.0.0.1:$hport"
		for _ in $(seq 1 100); do
			if hook_ok "$port"; then
				started=1
				break
			fi
			daemon_running webhook || break
			sleep 0.2
		done
		[ -n "$started" ] && break
		if ! daemon_running webhook && grep -q 'Address already in use' "$E2E_DIR/daemons/webhook.log"; then
			stop_daemon webhook
			continue
		fi
		fail "vc-webhook did not become healthy and registered" "$(tail -20 "$E2E_DIR/daemons/webhook.log")"
	done
	[ -n "$started" ] || fail "vc-webhook lost the race for a free port 5 times"
	is_caldera || volcano_webhook_swap "$port"
}

# volcano_webhook_swap PORT: Volcano's vc-webhook-manager in vc-webhook's place. v1.7 only
# updates the caBundle of configurations its Helm chart made, so vc-webhook's registration (the
# same names and rules, clientConfig.url on PORT) stays, and Volcano serves on that PORT.
volcano_webhook_swap() {
	local certs=$E2E_DIR/certs
	stop_daemon webhook
	start_daemon webhook "$VOLCANO_BIN/vc-webhook-manager" --kubeconfig "$KUBECONFIG" \
		--listen-address 127.0.0.1 --port "$1" --tls-cert-file "$certs/tls.crt" \
		--tls-private-key-file "$certs/tls.key" --ca-cert-file "$certs/ca.crt" \
		--webhook-url "https://127.0.0.1:$1"
	# Any HTTP answer over TLS with our CA: it serves (there is no /healthz in v1.7).
	serving() { curl -sS --cacert "$certs/ca.crt" -o /dev/null "https://127.0.0.1:$1/healthz"; }
	wait_for "Volcano's vc-webhook-manager serving on 127.0.0.1:$1" 30 serving "$1"
}

CTRL_RUNS=0
HEALTHZ_PORT=
SCHED_HEALTHZ_PORT=
ctrl_healthy() {
	curl -fsS --max-time 2 "http://127.0.0.1:$HEALTHZ_PORT/healthz" || return 1
	is_caldera || curl -fsS --max-time 2 "http://127.0.0.1:$SCHED_HEALTHZ_PORT/healthz"
}
# ctrl_start [flags]: start vc-controller (every controller, the scheduler) with extra flags;
# under E2E_IMPL=volcano, Volcano's vc-controller-manager and vc-scheduler (flags ignored).
# shellcheck disable=SC2120 # test_jobs_crash.sh passes flags
ctrl_start() {
	HEALTHZ_PORT=$(free_port)
	# /metrics: vc-controller's with --enable-metrics (E2E_CTRL_ARGS), Volcano's vc-scheduler's.
	METRICS_PORT=$(free_port)
	CTRL_RUNS=$((CTRL_RUNS + 1))
	if ! is_caldera; then
		[ $# -eq 0 ] || echo "ctrl_start: E2E_IMPL=volcano ignores the flags $*" >&2
		volcano_ctrl_start
		return
	fi
	CTRL_NAME=vc-controller-$CTRL_RUNS
	CTRL_DAEMONS=("$CTRL_NAME")
	# shellcheck disable=SC2086 # E2E_CTRL_ARGS may hold several flags
	start_daemon "$CTRL_NAME" "$CTRL" --kubeconfig "$KUBECONFIG" --leader-elect=false \
		--controllers='*' --kube-api-qps 500 --kube-api-burst 1000 --schedule-period 500ms \
		--enable-healthz=true --healthz-address "127.0.0.1:$HEALTHZ_PORT" \
		--listen-address "127.0.0.1:$METRICS_PORT" ${E2E_CTRL_ARGS:+$E2E_CTRL_ARGS} "$@"
	wait_for "$CTRL_NAME healthy on 127.0.0.1:$HEALTHZ_PORT" 30 ctrl_healthy
}
volcano_ctrl_start() {
	SCHED_HEALTHZ_PORT=$(free_port)
	CTRL_NAME=volcano-controllers-$CTRL_RUNS
	CTRL_DAEMONS=("$CTRL_NAME" "volcano-scheduler-$CTRL_RUNS")
	start_daemon "$CTRL_NAME" "$VOLCANO_BIN/vc-controller-manager" --kubeconfig "$KUBECONFIG" \
		--leader-elect=false --kube-api-qps 500 --kube-api-burst 1000 \
		--enable-healthz --healthz-address "127.0.0.1:$HEALTHZ_PORT"
	start_daemon "volcano-scheduler-$CTRL_RUNS" "$VOLCANO_BIN/vc-scheduler" \
		--kubeconfig "$KUBECONFIG" --leader-elect=false --kube-api-qps 500 --kube-api-burst 1000 \
		--schedule-period 500ms --enable-healthz --healthz-address "127.0.0.1:$SCHED_HEALTHZ_PORT" \
		--enable-metrics --listen-address "127.0.0.1:$METRICS_PORT" ${E2E_SCHED_CONF:+--scheduler-conf "$E2E_SCHED_CONF"}
	wait_for "Volcano's controller-manager and scheduler healthy" 30 ctrl_healthy
}
ctrl_stop() {
	local d
	for d in "${CTRL_DAEMONS[@]}"; do
		stop_daemon "$d"
	done
	CTRL_DAEMONS=()
}
# ctrl_kill9: SIGKILL the running vc-controller (or Volcano's two) by PID file and forget it.
ctrl_kill9() {
	local d f pid
	for d in "${CTRL_DAEMONS[@]}"; do
		f=$E2E_DIR/daemons/$d.pid
		read -r pid _ <"$f" || fail "no PID file for $d"
		_daemon_alive "$f" || fail "$d is not running"
		kill -KILL "$pid"
		for _ in $(seq 1 50); do
			_daemon_alive "$f" 2>/dev/null || break
			sleep 0.1
		done
		! _daemon_alive "$f" 2>/dev/null || fail "$d survived SIGKILL"
		wait "$pid" 2>/dev/null || true
		rm -f "$f"
	done
	CTRL_DAEMONS=()
}

queue_open() { [ "$(kube get queue default -o jsonpath='{.status.state}')" = Open ]; }
nodes_ready() {
	local want=$1 out
	out=$(kube get nodes -l caldera.dev/simulated=true --no-headers 2>&1) || { echo "$out"; return 1; }
	[ "$(grep -c ' Ready ' <<<"$out")" = "$want" ] || { echo "$out"; return 1; }
}

# jobs_setup [NODES [COUNT]]: cluster, CRDs, webhook, nodes, controller, the default queue Open.
jobs_setup() {
	local nodes=${1:-4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110} count
	count=${nodes%%:*}
	# shellcheck disable=SC2119 # no up.sh flags
	e2e_cluster_up
	kube apply -f "$E2E_ROOT/crds" >/dev/null || fail "kubectl apply -f crds failed"
	# A CRD has no conditions for a moment after its creation, which kubectl wait takes as an
	# error: retry.
	established() { kube wait --for condition=established --timeout=5s crd --all; }
	if ! is_caldera; then
		# vc-scheduler v1.7 waits for its Numatopology informer: Volcano's own install has the CRD.
		awk -v RS='\n---\n' '/name: numatopologies.nodeinfo.volcano.sh/' \
			"$VOLCANO_SHARED/volcano-development.yaml" | kube apply -f - >/dev/null ||
			fail "cannot apply Volcano's numatopologies CRD ($VOLCANO_SHARED/volcano-development.yaml)"
	fi
	wait_for "the CRDs to be established" 60 established
	webhook_start
	start_daemon nodesim "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix node --nodes "$nodes" \
		--fast-delete --heartbeat-period 5s
	wait_for "$count Ready nodes" 30 nodes_ready "$count"
	ctrl_start
	wait_for "the default queue Open" 30 queue_open
	pass "stack up: CRDs, vc-webhook, $count simulated nodes, vc-controller (queue default Open)"
}

# sched_conf: the scheduler configuration read from stdin, in $E2E_DIR/volcano-scheduler.conf
# (CONF), for vc-controller (--scheduler-conf in E2E_CTRL_ARGS) and, under E2E_IMPL=volcano,
# Volcano's vc-scheduler (E2E_SCHED_CONF). Call it before jobs_setup / ctrl_start; writing CONF
# again later makes a running vc-controller reload it.
sched_conf() {
	e2e_dir
	CONF=$E2E_DIR/volcano-scheduler.conf
	cat >"$CONF.new" && mv "$CONF.new" "$CONF"
	export E2E_SCHED_CONF=$CONF
	case " ${E2E_CTRL_ARGS:-} " in
	*" --scheduler-conf=$CONF "*) ;;
	*) E2E_CTRL_ARGS="${E2E_CTRL_ARGS:+$E2E_CTRL_ARGS }--scheduler-conf=$CONF" ;;
	esac
}

# --- jobs ------------------------------------------------------------------------------------------

# ns NAME: a fresh namespace for the scenario.
ns() {
	CUR_NS=$1
	kube create namespace "$CUR_NS" >/dev/null || fail "cannot create namespace $CUR_NS"
}
k() { kube -n "$CUR_NS" "$@"; }
# apply_job FILE|-: apply into the scenario's namespace.
apply_job() {
	local out
	out=$(k apply -f "$1" 2>&1) || fail "kubectl apply -f $1 failed" "$out"
}
jfield() { k get vcjob "$1" -o jsonpath="$2"; }
pfield() { k get pod "$1" -o jsonpath="$2"; }
phase_is() {
	local got
	got=$(jfield "$1" '{.status.state.phase}') || return 1
	[ "$got" = "$2" ] || { echo "job $1 is '$got'"; return 1; }
}
# wait_phase JOB PHASE [TIMEOUT]
wait_phase() { wait_for "job $1 to be $2" "${3:-60}" phase_is "$1" "$2"; }
# pods_of JOB: names of the job's pods, sorted.
pods_of() { k get pods -l "volcano.sh/job-name=$1" -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | sort; }
# npods JOB [PHASE]: how many pods the job has (in PHASE).
npods() {
	if [ $# -gt 1 ]; then
		k get pods -l "volcano.sh/job-name=$1" --field-selector "status.phase=$2" --no-headers 2>/dev/null | wc -l
	else
		k get pods -l "volcano.sh/job-name=$1" --no-headers 2>/dev/null | wc -l
	fi
}
npods_is() {
	local n
	n=$(npods "$@" | tail -n 1)
	[ "$n" = "${!#}" ] 2>/dev/null
}
# pods_are JOB N [PHASE]: exactly N pods (in PHASE).
pods_are() {
	local job=$1 n=$2 got
	got=$(if [ $# -gt 2 ]; then npods "$job" "$3"; else npods "$job"; fi)
	[ "$got" = "$n" ] || { echo "job $job has $got pods${3:+ in $3}, want $n"; return 1; }
}
# status JOB: "phase retryCount version" (absent numbers, omitted when 0, print 0)
status() {
	local p r v
	IFS=, read -r p r v < <(jfield "$1" '{.status.state.phase},{.status.retryCount},{.status.version}{"\n"}')
	echo "$p ${r:-0} ${v:-0}"
}
status_is() {
	local got
	got=$(status "$1")
	[ "$got" = "$2" ] || { echo "job $1: '$got' (phase retryCount version), want '$2'"; return 1; }
}
# running_pods JOB N: N pods, all Running.
running_pods() { pods_are "$1" "$2" && pods_are "$1" "$2" Running; }
# uids JOB: "name=uid" of the job's pods, sorted.
uids() { k get pods -l "volcano.sh/job-name=$1" -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.uid}{"\n"}{end}' | sort; }
uid_of() { pfield "$1" '{.metadata.uid}'; }
# env_of POD CONTAINER_INDEX NAME: the literal value of env NAME.
env_of() {
	pfield "$1" "{.spec.containers[$2].env[?(@.name==\"$3\")].value}"
}
# set_exit POD CODE: make vc-nodesim end the running pod's containers with CODE.
set_exit() {
	k annotate pod "$1" --overwrite "sandbox.caldera.dev/exit-code=$2" >/dev/null ||
		fail "cannot annotate pod $1"
}
# job_yaml NAME SPEC: a Job with that spec (YAML indented two spaces) in the namespace.
job_yaml() {
	printf 'apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n%s\n' \
		"$1" "$CUR_NS" "$2"
}
# task_yaml NAME REPLICAS RUN_SECONDS [EXTRA]: one task; RUN_SECONDS "" runs until deleted.
task_yaml() {
	printf '  - name: %s\n    replicas: %s\n%s' "$1" "$2" "${4:+$4
}"
	printf '    template:\n      metadata:\n        annotations:\n'
	[ -z "$3" ] || printf '          sandbox.caldera.dev/run-seconds: "%s"\n' "$3"
	printf '      spec:\n        restartPolicy: Never\n        terminationGracePeriodSeconds: 1\n'
	printf '        containers:\n        - name: main\n          image: busybox\n'
	printf '          resources: {requests: {cpu: 100m, memory: 64Mi}}\n'
}
# job_events JOB [TEMPLATE]: the job's Events, one a line, each as the jsonpath TEMPLATE
# (default "{.reason}: {.message}").
job_events() {
	local tpl='{.reason}: {.message}'
	[ $# -lt 2 ] || tpl=$2
	k get events --field-selector "involvedObject.name=$1,involvedObject.kind=Job" \
		-o jsonpath="{range .items[*]}$tpl{\"\\n\"}{end}"
}
