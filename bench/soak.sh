#!/usr/bin/env bash
# soak.sh - a chaos soak: vc-controller (two replicas with leader election), vc-webhook and
# vc-nodesim on the local cluster under a steady mixed workload while daemons are killed, the
# API server restarts, etcd stalls and nodes vanish; invariants are checked all along and at the
# end; a report is printed, and the exit status is non-zero on any violation.
#
#   bench/soak.sh [--minutes N] [--nodes N] [--groups G] [--settle S]
#       --minutes  length of the storm (workload and faults), default 20 (SOAK_MINUTES)
#       --nodes    simulated nodes (4 CPUs, 16 GiB each), default 50 (SOAK_NODES)
#       --groups   vc-nodesim processes sharing the nodes (one is lost and comes back), default 2
#       --settle   seconds the jobs get after the storm to reach their phase, default 300
#   make soak (20 minutes), make soak-short (SOAK_MINUTES=4)
#   SOAK_STRACE=1 records with strace how each daemon ends (daemons/NAME.strace.PID).
#   E2E_BIN_DIR=DIR runs the daemons from DIR (e.g. an ASan vc-controller next to the others).
#   SOAK_KEEP=1 keeps the scratch folder (build/soak/run.*) on success too; it is always kept
#   on a violation. SOAK_HOT_RPS (default 2): vc-controller or vc-webhook above it while idle is a hot loop.
#
# Workload (namespace soak, queues q-a and q-b, both reclaimable; the scheduler runs enqueue,
# allocate, backfill and reclaim): one job every SOAK_PERIOD seconds (default 3), in rotation:
# TensorFlow (ps + workers, env/svc/tensorflow), MPI (ssh/svc/mpi), PyTorch (pytorch), a gang of
# 3-CPU pods on 60 % of the nodes (larger than what is free), a job whose pod is made to fail
# once (PodFailed -> RestartJob: Completed at version >= 1), a job whose pods always fail
# (RestartJob, maxRetry 2: Failed), suspended and resumed (vcctl: Completed), suspended only
# (Aborted), elastic (minAvailable 2 of 4, patched to 6 then 3 replicas: Completed), a TTL job
# (ttlSecondsAfterFinished 5: deleted), a job deleted mid-run (deleted), long elastic fillers in
# q-a (reclaim victims). Every job but the last kinds has ttlSecondsAfterFinished 90, so the
# caches stay at a steady size (a leak check needs one); its phase is sampled before the TTL.
#
# Faults, one every storm/(2*6+1) seconds, in this order, twice (once if the storm is under 10
# minutes): vc-webhook kill -9 (with
# admission checks during the outage) and restart; kube-apiserver restart; etcd SIGSTOP for 5 s;
# both vc-controller replicas kill -9, restarted 5 s later; a vc-nodesim group kill -9, back 30 s
# later; the leader replica kill -9 (the standby takes over; the killed one comes back as the
# standby). A replica that exits with "leaderelection lost" (as Volcano's does when it cannot
# renew, e.g. while etcd is stopped) is restarted and counted; any other exit is a crash.
#
# Invariants: see bench/soak_check.py (the report lists them with their counts) and
# bench/README.md, "Chaos soak".
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MINUTES=${SOAK_MINUTES:-20}
NODES=${SOAK_NODES:-50}
NGROUPS=${SOAK_GROUPS:-2}
SETTLE=${SOAK_SETTLE:-300}
PERIOD=${SOAK_PERIOD:-3}
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) MINUTES=${2:?}; shift ;;
	--nodes) NODES=${2:?}; shift ;;
	--groups) NGROUPS=${2:?}; shift ;;
	--settle) SETTLE=${2:?}; shift ;;
	-h | --help) usage ;;
	*) echo "soak: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done
[[ $MINUTES =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "soak: --minutes wants a number" >&2; exit 2; }
[ "$NGROUPS" -ge 2 ] && [ "$NODES" -ge "$NGROUPS" ] || { echo "soak: want --groups >= 2 and --nodes >= --groups" >&2; exit 2; }
STORM=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }')

# The e2e harness: scratch folder, daemons by PID file, cluster teardown on exit, logs kept on
# failure (here: build/soak/run.XXXXXX).
export E2E_WORKDIR=${SOAK_WORKDIR:-$ROOT/build/soak}
[ "${SOAK_KEEP:-0}" != 1 ] || export E2E_KEEP=1
bin=$("$ROOT/cluster/build.sh" | tail -n 1)
export CALDERA_KUBE_BIN=$bin
# shellcheck source=tests/e2e/jobs_lib.sh
. "$ROOT/tests/e2e/jobs_lib.sh"
is_caldera || fail "the soak runs Caldera's daemons (E2E_IMPL=caldera)"
CHECK="python3 $ROOT/bench/soak_check.py"
now() { date +%s; }
e2e_dir
D=$E2E_DIR
# A daemon that dies of a signal leaves its core file here (core_pattern permitting).
cd "$D"
ulimit -c unlimited 2>/dev/null || true
mkdir -p "$D/snap"
: >"$D/jobs.tsv"
: >"$D/faults.log"
: >"$D/events.log"
: >"$D/rss.log"
: >"$D/samples.log"
: >"$D/phases.log"
# event KEY DETAIL: a counted line of the report (KEY VIOLATION-* is a violation).
event() {
	local detail="${*:2}"
	printf '%s %s %s\n' "$(now)" "$1" "${detail//$'\n'/ }" >>"$D/events.log"
}
fault() {
	printf '%s %s %s\n' "$(now)" "$1" "${*:2}" >>"$D/faults.log"
	step "fault: $*"
}
kq() { kube --request-timeout=20s "$@"; }
# retry SECONDS CMD...: run CMD until it succeeds (the API may be away for a fault).
retry() {
	local deadline=$(($(now) + $1)) out
	shift
	while :; do
		out=$("$@" 2>&1) && { printf '%s' "$out"; return 0; }
		[ "$(now)" -lt $deadline ] || { printf '%s' "$out"; return 1; }
		sleep 1
	done
}

# --- the cluster: audit log for the creation and rate checks ----------------------------------
cat >"$D/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Request
  verbs: [create]
  resources: [{group: "", resources: [pods]}]
- level: Metadata
EOF
CALDERA_APISERVER_ARGS="--audit-policy-file=$D/audit-policy.yaml --audit-log-path=$D/audit.log --audit-log-maxsize=0" \
	e2e_cluster_up
kube apply -f "$ROOT/crds" >/dev/null || fail "kubectl apply -f crds failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
kube create namespace volcano-system >/dev/null
kube create namespace $'soak' >/dev/null
CUR_NS=soak
webhook_start

# --- daemons that the faults kill and restart -------------------------------------------------
# An ASan build (E2E_BIN_DIR) reports an abort with its stack instead of dying silently.
export ASAN_OPTIONS="handle_abort=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# sd_traced NAME: with SOAK_STRACE=1, strace records the signals NAME gets and how it ends
# (daemons/NAME.strace: "+++ killed by SIGABRT +++", "+++ exited with 1 +++").
sd_traced() {
	local pid _
	[ "${SOAK_STRACE:-0}" = 1 ] || return 0
	read -r pid _ <"$D/daemons/$1.pid" || return 0
	strace -f -qq -e trace=none -e signal=all -o "$D/daemons/$1.strace.$pid" -p "$pid" 2>/dev/null &
}
# sd_start NAME CMD...: start_daemon, with the command kept for restarts (NAME.argv).
sd_start() {
	local name=$1
	shift
	printf '%s\0' "$@" >"$D/daemons/$name.argv"
	start_daemon "$name" "$@"
	sd_traced "$name"
}
# sd_kill9 NAME: SIGKILL and forget (the harness must not count it as a crash).
sd_kill9() {
	local f=$D/daemons/$1.pid pid start
	read -r pid start <"$f" 2>/dev/null || return 0
	# The PID file goes first, so the supervisor never takes the kill for a crash.
	rm -f "$f"
	echo "$pid $start" >"$f.killed"
	kill -KILL "$pid" 2>/dev/null || true
	for _ in $(seq 1 50); do
		_daemon_alive "$f.killed" 2>/dev/null || break
		sleep 0.1
	done
	{ wait "$pid" || true; } 2>/dev/null # no "Killed" line from bash for its own child
	rm -f "$f.killed"
}
# sd_restart NAME: start it again with the same command; the previous log is kept as NAME.N.log.
sd_restart() {
	local name=$1 n=1 argv
	while [ -e "$D/daemons/$name.$n.log" ]; do n=$((n + 1)); done
	mv "$D/daemons/$name.log" "$D/daemons/$name.$n.log" 2>/dev/null || true
	mapfile -d '' argv <"$D/daemons/$name.argv"
	start_daemon "$name" "${argv[@]}"
	sd_traced "$name"
}
# The webhook webhook_start started: take its command line for restarts.
read -r hpid _ <"$D/daemons/webhook.pid"
cp "/proc/$hpid/cmdline" "$D/daemons/webhook.argv"
HOOK_HPORT=$(tr '\0' '\n' <"$D/daemons/webhook.argv" | awk 'p { sub(/.*:/, ""); print; exit } $0 == "--healthz-address" { p = 1 }')
hook_healthy() { [ "$(curl -sS --max-time 2 --cacert "$D/certs/ca.crt" "https://127.0.0.1:$HOOK_HPORT/healthz" 2>/dev/null)" = ok ]; }

per=$((NODES / NGROUPS))
for g in $(seq 1 "$NGROUPS"); do
	n=$per
	[ "$g" != "$NGROUPS" ] || n=$((NODES - per * (NGROUPS - 1)))
	sd_start "nodesim-$g" "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix "node-g$g" \
		--nodes "$n:cpu=4,memory=16Gi,pods=110" --fast-delete --heartbeat-period 10s \
		--crash-backoff 2s --crash-backoff-max 10s
done
wait_for "$NODES Ready nodes" 60 nodes_ready "$NODES"

cat >"$D/sched.conf" <<'EOF'
actions: "enqueue, allocate, backfill, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
EOF
for r in a b; do
	hz=$(free_port)
	mp=$(free_port)
	sd_start "vc-controller-$r" "$CTRL" --kubeconfig "$KUBECONFIG" --controllers='*' \
		--leader-elect=true --kube-api-qps 200 --kube-api-burst 400 --schedule-period 1s \
		--scheduler-conf "$D/sched.conf" --enable-healthz=true --healthz-address "127.0.0.1:$hz" \
		--enable-metrics --listen-address "127.0.0.1:$mp"
done
CTRL_DAEMONS=(vc-controller-a vc-controller-b) # diag prints their logs
lease_holder() { kq -n volcano-system get lease vc-controller-manager -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
# leader: the replica (a or b) whose identity holds the Lease.
identity_of() { sed -n 's/.*attempting to acquire leader lease.* identity=\([^ ]*\).*/\1/p' "$D/daemons/vc-controller-$1.log" | tail -n 1; }
leader() {
	local h r
	h=$(lease_holder) || return 1
	for r in a b; do
		[ -z "$h" ] || [ "$(identity_of $r)" != "$h" ] || { echo $r; return 0; }
	done
	return 1
}
has_leader() { leader >/dev/null; }
wait_for "a vc-controller replica to lead" 60 has_leader
wait_for "the default queue Open" 60 queue_open
for q in q-a q-b; do
	printf -- '---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: %s}\nspec: {weight: 1, reclaimable: true}\n' "$q"
done | kube apply -f - >/dev/null
qopen() { [ "$(kube get queue "$1" -o jsonpath='{.status.state}')" = Open ]; }
wait_for "queue q-a Open" 30 qopen q-a
wait_for "queue q-b Open" 30 qopen q-b
pass "stack up: $NODES nodes in $NGROUPS vc-nodesim groups, vc-webhook, vc-controller a and b (leader $(leader)), queues q-a q-b"

# --- the workload ------------------------------------------------------------------------------
# pod_tpl RUN_S CPU [EXIT] [RESTART]: a pod template (indented for a task).
pod_tpl() {
	printf '    template:\n      metadata:\n        annotations:\n'
	[ -z "$1" ] || printf '          sandbox.caldera.dev/run-seconds: "%s"\n' "$1"
	[ -z "${3:-}" ] || printf '          sandbox.caldera.dev/exit-code: "%s"\n' "$3"
	printf '      spec:\n        restartPolicy: %s\n        terminationGracePeriodSeconds: 1\n' "${4:-Never}"
	printf '        containers:\n        - name: main\n          image: busybox\n'
	printf '          resources: {requests: {cpu: "%s", memory: 256Mi}}\n' "$2"
}
# job_head NAME QUEUE MIN TTL [PLUGINS]: the Job up to its tasks (every job restarts when a pod is
# evicted, so an evicted pod is never re-created at the same version).
job_head() {
	printf 'apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s, namespace: soak}\n' "$1"
	printf 'spec:\n  schedulerName: volcano\n  queue: %s\n  minAvailable: %s\n' "$2" "$3"
	[ -z "$4" ] || printf '  ttlSecondsAfterFinished: %s\n' "$4"
	printf '  maxRetry: %s\n' "${MAXRETRY:-5}"
	printf '  policies:\n  - {event: PodEvicted, action: RestartJob}\n'
	[ -z "${POLICY:-}" ] || printf '  - %s\n' "$POLICY"
	[ -z "${5:-}" ] || printf '  plugins: %s\n' "$5"
	printf '  tasks:\n'
}
TTL=90
BIG=$((NODES * 6 / 10))
KINDS=(tf mpi pytorch restart-once tf fail mpi suspend-resume pytorch elastic big ttl filler
	suspend delete tf mpi pytorch)
manifest() { # KIND NAME QUEUE
	local k=$1 n=$2 q=$3 r=$((10 + RANDOM % 20))
	case $k in
	tf)
		job_head "$n" "$q" 3 $TTL '{env: [], svc: [], tensorflow: ["--ps=ps", "--worker=worker"]}'
		printf '  - name: ps\n    replicas: 1\n'
		pod_tpl 600 500m 0 OnFailure
		printf '  - name: worker\n    replicas: 2\n    policies: [{event: TaskCompleted, action: CompleteJob}]\n'
		pod_tpl "$r" 500m 0 OnFailure
		;;
	mpi)
		job_head "$n" "$q" 4 $TTL '{ssh: [], svc: [], mpi: ["--master=mpimaster", "--worker=mpiworker"]}'
		printf '  - name: mpimaster\n    replicas: 1\n    policies: [{event: TaskCompleted, action: CompleteJob}]\n'
		pod_tpl "$r" 250m 0 OnFailure
		printf '  - name: mpiworker\n    replicas: 3\n'
		pod_tpl 600 500m "" OnFailure
		;;
	pytorch)
		job_head "$n" "$q" 3 $TTL '{pytorch: ["--master=master", "--worker=worker", "--port=23456"]}'
		printf '  - name: master\n    replicas: 1\n    policies: [{event: TaskCompleted, action: CompleteJob}]\n'
		pod_tpl "$((r + 3))" 500m 0 OnFailure
		printf '  - name: worker\n    replicas: 2\n'
		pod_tpl "$r" 500m 0 OnFailure
		;;
	big)
		job_head "$n" q-b "$BIG" $TTL '{env: [], svc: []}'
		printf '  - name: w\n    replicas: %s\n' "$BIG"
		pod_tpl 20 3 0
		;;
	restart-once)
		POLICY='{event: PodFailed, action: RestartJob}' job_head "$n" "$q" 3 $TTL
		printf '  - name: w\n    replicas: 3\n'
		pod_tpl 40 500m 0
		;;
	fail)
		MAXRETRY=2 POLICY='{event: PodFailed, action: RestartJob}' job_head "$n" "$q" 2 $TTL
		printf '  - name: w\n    replicas: 2\n'
		pod_tpl 3 250m 1
		;;
	suspend-resume | suspend | delete)
		# Jobs to suspend for good or delete run long: the action lands before they finish
		# even when an outage delays it.
		local run=40
		[ "$k" = suspend-resume ] || run=600
		job_head "$n" "$q" 3 "$([ "$k" = suspend ] || echo $TTL)" '{env: [], svc: []}'
		printf '  - name: w\n    replicas: 3\n'
		pod_tpl "$run" 500m 0
		;;
	elastic)
		# The task's minAvailable too: admission defaults it to the replicas, and refuses
		# replicas below it (docs/volcano/webhooks.md).
		job_head "$n" "$q" 2 $TTL '{env: [], svc: []}'
		printf '  - name: w\n    replicas: 4\n    minAvailable: 2\n'
		pod_tpl 45 500m 0
		;;
	ttl)
		job_head "$n" "$q" 2 5
		printf '  - name: w\n    replicas: 2\n'
		pod_tpl 5 250m 0
		;;
	filler)
		job_head "$n" q-a 1 $TTL
		printf '  - name: w\n    replicas: 8\n'
		pod_tpl 60 1 0
		;;
	esac
}
expected_of() {
	case $1 in
	fail) echo Failed ;;
	suspend) echo Aborted ;;
	ttl) echo ttl:Completed ;;
	delete) echo deleted ;;
	*) echo Completed ;;
	esac
}
# Actions on a job later in its life: "due action job" lines in todo.
todo() { printf '%s %s %s\n' "$(($(now) + $1))" "$2" "$3" >>"$D/todo"; }
: >"$D/todo"
submit() { # KIND SEQ
	local k=$1 name q out
	name=$(printf '%s-%04d' "$k" "$2")
	q='q-a'
	[ $(($2 % 2)) = 0 ] || q='q-b'
	manifest "$k" "$name" "$q" >"$D/manifests/$name.yaml"
	local deadline=$(($(now) + 120))
	until out=$(kq create -f "$D/manifests/$name.yaml" 2>&1); do
		case $out in
		*AlreadyExists* | *"already exists"*) break ;;
		*"failed calling webhook"*) event refused-during-webhook-outage "$name" ;;
		*) event submit-retry "$name: ${out//$'\n'/ }" ;;
		esac
		if [ "$(now)" -ge $deadline ]; then
			event VIOLATION-submit "$name could not be created for 120 s: ${out//$'\n'/ }"
			return 0
		fi
		sleep 2
	done
	printf '%s %s %s %s\n' "$name" "$k" "$q" "$(expected_of "$k")" >>"$D/jobs.tsv"
	event submitted "$name"
	case $k in
	restart-once) todo 15 fail-pod "$name" ;;
	suspend-resume) todo 12 suspend "$name"; todo 30 resume "$name" ;;
	suspend) todo 10 suspend "$name" ;;
	elastic) todo 10 scale6 "$name"; todo 22 scale3 "$name" ;;
	delete) todo 20 delete "$name" ;;
	esac
}
act() { # ACTION JOB
	local out
	case $1 in
	fail-pod)
		# The first running pod of the job fails (exit 1) once: RestartJob, new version.
		local pod
		pod=$(kq -n soak get pods -l "volcano.sh/job-name=$2" --field-selector status.phase=Running \
			-o jsonpath='{.items[0].metadata.name}' 2>/dev/null) || pod=
		if [ -z "$pod" ]; then
			[ "$(grep -c " fail-pod $2\$" "$D/todo")" -lt 20 ] && todo 5 fail-pod "$2" # not running yet
			return 0
		fi
		out=$(retry 60 kq -n soak annotate pod "$pod" --overwrite sandbox.caldera.dev/exit-code=1) ||
			event action-failed "fail-pod $2: $out"
		;;
	suspend | resume)
		out=$(retry 60 "$VCCTL" job "$1" -k "$KUBECONFIG" -n soak -N "$2") ||
			event action-failed "$1 $2: $out"
		;;
	scale6 | scale3)
		out=$(retry 60 kq -n soak patch vcjob "$2" --type=json \
			-p "[{\"op\":\"replace\",\"path\":\"/spec/tasks/0/replicas\",\"value\":${1#scale}}]") ||
			event action-failed "$1 $2: $out"
		;;
	delete)
		out=$(retry 60 kq -n soak delete vcjob "$2" --wait=false) || event action-failed "delete $2: $out"
		;;
	esac
	event "action-$1" "$2"
}
driver() {
	set +e
	mkdir -p "$D/manifests"
	local seq=0 t nowt
	while [ ! -e "$D/stop-driver" ]; do
		t=$(now)
		submit "${KINDS[$((seq % ${#KINDS[@]}))]}" "$seq"
		seq=$((seq + 1))
		# Due actions (the file is only appended to; done ones are remembered in todo.done).
		nowt=$(now)
		while read -r due a j; do
			[ "$due" -le "$nowt" ] || continue
			grep -qxF "$due $a $j" "$D/todo.done" 2>/dev/null && continue
			echo "$due $a $j" >>"$D/todo.done"
			act "$a" "$j" &
		done <"$D/todo"
		sleep "$(awk -v p="$PERIOD" -v d=$(($(now) - t)) 'BEGIN { s = p - d; print (s > 0 ? s : 0) }')"
	done
	# Actions still due on jobs already submitted.
	while [ -s "$D/todo" ] && [ "$(wc -l <"$D/todo")" != "$(wc -l <"$D/todo.done" 2>/dev/null || echo 0)" ]; do
		nowt=$(now)
		while read -r due a j; do
			[ "$due" -le "$nowt" ] || continue
			grep -qxF "$due $a $j" "$D/todo.done" 2>/dev/null && continue
			echo "$due $a $j" >>"$D/todo.done"
			act "$a" "$j" &
		done <"$D/todo"
		sleep 1
	done
	wait
}

# --- sampling: invariants, RSS and fds, crashes ---------------------------------------------
# snapshot SUFFIX: pods, PodGroups, nodes, jobs and queues as JSON into snap/ (false on an API
# error: the sample is skipped).
snapshot() {
	local s=${1:-} r
	for r in pods podgroups.scheduling.volcano.sh nodes vcjob queues.scheduling.volcano.sh; do
		local f=${r%%.*}
		[ "$f" != vcjob ] || f='jobs'
		if [ "$r" = nodes ] || [ "$f" = queues ]; then
			kq get "$r" -o json >"$D/snap/$f$s.json.tmp" 2>/dev/null || return 1
		else
			kq -n soak get "$r" -o json >"$D/snap/$f$s.json.tmp" 2>/dev/null || return 1
		fi
		mv "$D/snap/$f$s.json.tmp" "$D/snap/$f$s.json"
	done
}
rss_sample() {
	local f name pid t
	t=$(now)
	for f in "$D"/daemons/*.pid "$E2E_CLUSTER"/run/kube-apiserver.pid "$E2E_CLUSTER"/run/etcd.pid; do
		[ -f "$f" ] || continue
		name=$(basename "$f" .pid)
		read -r pid _ <"$f" 2>/dev/null || continue
		[ -r "/proc/$pid/status" ] || continue
		printf '%s %s %s %s %s\n' "$t" "$name" "$pid" \
			"$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")" \
			"$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)" >>"$D/rss.log"
	done
}
# supervise: a daemon that exited on its own. A replica that lost its lease exits as Volcano's
# does and is restarted (counted); any other exit is a crash (a violation), restarted too.
supervise() {
	local f name log
	for f in "$D"/daemons/*.pid; do
		[ -f "$f" ] || continue
		name=$(basename "$f" .pid)
		_daemon_alive "$f" && continue
		[ -f "$D/daemons/$name.argv" ] || continue
		[ ! -e "$D/pause-supervisor" ] && [ -f "$f" ] || continue
		log=$D/daemons/$name.log
		rm -f "$f"
		if [[ $name == vc-controller-* ]] && grep -q 'msg="leaderelection lost"' "$log"; then
			event leader-lost-lease-exit "$name"
		else
			event VIOLATION-crash "$name exited on its own: $(tail -n 3 "$log" | tr '\n' ' ')"
		fi
		sd_restart "$name"
	done
}
sampler() {
	set +e
	while [ ! -e "$D/stop-sampler" ]; do
		if snapshot; then
			$CHECK sample "$D"
		else
			echo "$(now) skipped" >>"$D/samples.log"
		fi
		rss_sample
		[ -e "$D/pause-supervisor" ] || supervise
		sleep 10
	done
}

# --- faults -------------------------------------------------------------------------------------
ADMISSION_N=0
# bad_job NAME: a Job that validation must reject (minAvailable above the replicas).
bad_job() {
	printf 'apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s, namespace: soak}\nspec:\n  minAvailable: 5\n  queue: q-a\n  tasks:\n  - name: w\n    replicas: 1\n' "$1"
	pod_tpl 5 100m 0
}
admission_check() { # WHEN NAME WANT_TEXT
	local out
	if out=$(bad_job "$2" | kq create -f - 2>&1); then
		event VIOLATION-admission "$1: the invalid job $2 was admitted"
	elif [[ $out != *"$3"* ]]; then
		event VIOLATION-admission "$1: $2 refused with '${out//$'\n'/ }', want '$3'"
	fi
	event admission-check "$1 $2"
}
fault_webhook() {
	fault webhook-kill9
	touch "$D/pause-supervisor"
	sd_kill9 webhook
	ADMISSION_N=$((ADMISSION_N + 1))
	# While it is down: failurePolicy Fail, so the API server refuses with the dial error.
	admission_check "webhook down" "bad-down-$ADMISSION_N" "connection refused"
	local out
	if out=$(manifest tf "good-down-$ADMISSION_N" q-a | kq create -f - 2>&1); then
		event VIOLATION-admission "webhook down: good-down-$ADMISSION_N admitted without the webhook"
	elif [[ $out != *"failed calling webhook"* ]]; then
		event VIOLATION-admission "webhook down: good-down-$ADMISSION_N refused with '${out//$'\n'/ }'"
	fi
	event admission-check "webhook down good-down-$ADMISSION_N"
	sleep 3
	sd_restart webhook
	rm -f "$D/pause-supervisor"
	wait_for "vc-webhook healthy again" 60 hook_healthy
	admission_check "webhook restarted" "bad-up-$ADMISSION_N" "should not be greater than total replicas"
}
fault_apiserver() {
	fault apiserver-restart
	"$ROOT/cluster/restart-apiserver.sh" "$E2E_CLUSTER" --down-seconds 3 2>>"$D/restart.log" ||
		fail "cluster/restart-apiserver.sh failed (log $D/restart.log)"
}
fault_etcd() {
	fault etcd-pause-5s
	local pid
	pid=$(cat "$E2E_CLUSTER/run/etcd.pid")
	kill -STOP "$pid"
	sleep 5
	kill -CONT "$pid"
}
fault_ctrl() {
	fault vc-controller-kill9-both
	touch "$D/pause-supervisor"
	sd_kill9 vc-controller-a
	sd_kill9 vc-controller-b
	sleep 5
	sd_restart vc-controller-a
	sd_restart vc-controller-b
	rm -f "$D/pause-supervisor"
	wait_for "a vc-controller replica to lead after the restart" 90 has_leader
}
fault_nodesim() {
	local g=$((1 + RANDOM % NGROUPS))
	fault nodesim-group-lost "nodesim-$g for 30 s"
	touch "$D/pause-supervisor"
	sd_kill9 "nodesim-$g"
	sleep 30
	sd_restart "nodesim-$g"
	rm -f "$D/pause-supervisor"
}
fault_leader() {
	local l other t0 t
	l=$(retry 60 leader) || { event leader-unknown "no leader before the takeover fault"; return 0; }
	other=a
	[ "$l" != a ] || other=b
	fault leader-kill9-takeover "leader vc-controller-$l"
	touch "$D/pause-supervisor"
	t0=$(now)
	sd_kill9 "vc-controller-$l"
	rm -f "$D/pause-supervisor"
	leader_is() { [ "$(leader)" = "$1" ]; }
	wait_for "vc-controller-$other to take over the Lease" 120 leader_is "$other"
	t=$(($(now) - t0))
	event takeover-seconds "$t s: vc-controller-$other took over from vc-controller-$l"
	sd_restart "vc-controller-$l" # back as the standby
}
FAULTS=(fault_webhook fault_apiserver fault_etcd fault_ctrl fault_nodesim fault_leader)

# On exit: the driver and the sampler stop before the harness stops the cluster.
DRIVER='' SAMPLER=''
soak_exit() {
	local rc=$?
	touch "$D/stop-driver" "$D/stop-sampler"
	[ -z "$DRIVER" ] || kill "$DRIVER" 2>/dev/null || true
	[ -z "$SAMPLER" ] || kill "$SAMPLER" 2>/dev/null || true
	wait 2>/dev/null || true
	(exit $rc)
	_e2e_exit
}
trap soak_exit EXIT

# --- the run --------------------------------------------------------------------------------------
T_START=$(now)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
step "storm: ${MINUTES} min, a job every ${PERIOD} s, ${#FAULTS[@]} kinds of fault"
driver >"$D/driver.log" 2>&1 &
DRIVER=$!
sampler >"$D/sampler.log" 2>&1 &
SAMPLER=$!
ROUNDS=2 # each kind of fault twice; once in a storm under 10 minutes
[ "$STORM" -ge 600 ] || ROUNDS=1
nf=$((ROUNDS * ${#FAULTS[@]}))
gap=$((STORM / (nf + 1)))
for i in $(seq 0 $((nf - 1))); do
	due=$((T_START + (i + 1) * gap))
	[ "$(now)" -ge $due ] || sleep $((due - $(now)))
	"${FAULTS[$((i % ${#FAULTS[@]}))]}"
done
end=$((T_START + STORM))
[ "$(now)" -ge $end ] || sleep $((end - $(now)))
T_STORM_END=$(now)
touch "$D/stop-driver"
wait $DRIVER || true
pass "storm over: $(grep -c . "$D/jobs.tsv") jobs submitted, $(grep -c . "$D/faults.log") faults"

# --- settle: every job in its expected phase within SETTLE seconds --------------------------------
settled() {
	snapshot -final || return 1
	python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
jobs = {j["metadata"]["name"]: j for j in json.load(open(d + "/snap/jobs-final.json"))["items"]}
left = []
for line in open(d + "/jobs.tsv"):
    name, kind, q, want = line.split()
    j = jobs.get(name)
    got = (j.get("status", {}).get("state") or {}).get("phase") if j else "deleted"
    if want.startswith("ttl:"):
        want = "deleted"
    if got != want and not (want == "Completed" and got == "deleted") and not (want == "Failed" and got == "deleted"):
        left.append("%s=%s(want %s)" % (name, got, want))
if left:
    print("%d jobs not there yet: %s" % (len(left), " ".join(left[:15])))
    sys.exit(1)
PY
}
t0=$(now)
deadline=$((t0 + SETTLE))
while ! settled >"$D/settle.out" 2>&1 && [ "$(now)" -lt $deadline ]; do sleep 5; done
SETTLED_IN=$(($(now) - t0))
cat "$D/settle.out"

# --- queues' allocated against the pods bound while two anchor jobs run --------------------------
step "anchors: one long job per queue, then status.allocated against the bound pods"
for q in q-a q-b; do
	{
		job_head "anchor-$q" "$q" 4 ""
		printf '  - name: w\n    replicas: 4\n'
		pod_tpl "" 700m 0
	} | retry 60 kq create -f - >/dev/null || fail "cannot create anchor-$q"
done
anchors_running() { [ "$(kq -n soak get pods -l volcano.sh/job-name --field-selector status.phase=Running -o name | grep -c anchor-)" = 8 ]; }
wait_for "the anchors' 8 pods Running" 120 anchors_running
sleep 5 # a few scheduling cycles write status.allocated
for r in pods podgroups.scheduling.volcano.sh; do
	f=${r%%.*}
	kq get "$r" -A -o json >"$D/snap/$f-anchor.json"
done
kq get queues.scheduling.volcano.sh -o json >"$D/snap/queues-anchor.json"
kq -n soak delete vcjob anchor-q-a anchor-q-b --wait=false >/dev/null || true

touch "$D/stop-sampler"
wait $SAMPLER || true
supervise
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "T_START=$T_START"
	echo "T_STORM_END=$T_STORM_END"
	echo "WARMUP_S=$((STORM / 4 > 120 ? 120 : STORM / 4))"
	echo "NODES=$NODES"
	echo "GROUPS=$NGROUPS"
	echo "SETTLE=$SETTLE"
	echo "SETTLED_IN=$SETTLED_IN"
	echo "HOT_RPS=${SOAK_HOT_RPS:-2}"
	echo "LOAD0=$LOAD0"
	echo "LOAD1=$LOAD1"
	echo "MACHINE=$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
} >"$D/soak.env"
step "report"
rc=0
$CHECK final "$D" | tee "$D/report.txt" || rc=$?
[ $rc = 0 ] || fail "the soak found violations (report: $D/report.txt)"
pass "no violation (report: $D/report.txt)"
