#!/usr/bin/env bash
# The bundled gang / fair-share scheduler (issue 5), end to end: vc-controller in scheduler-only
# mode on the local cluster, vc-nodesim playing GPU nodes, PodGroups, Queues and pods created
# with kubectl as Kubeflow's operator would. Scenarios, each in its own namespace with its own
# queues (one cluster for all):
#
#   kube-deadlock  kube-scheduler, two 4-pod jobs interleaved on 2 nodes x 2 GPUs: 2+2, stuck
#   gang           the same with Caldera: one job gets all 4 GPUs, the other none and shows
#                  Unschedulable / NotEnoughResources; it runs when the first has finished
#   sequential     five jobs of 2 ps + 4 workers where one fits at a time: all finish, one
#                  after another, never two partially bound
#   proportion     queues of weight 1 and 3 saturating 8 GPUs: 2 and 6 GPUs
#   reclaim        q1 holds every GPU, q2 submits: q1's pods above its share are evicted
#   preempt        PriorityClasses low/high in one queue: equal priority waits, high preempts
#   binpack        binpack weight 10: pods packed onto the fewest nodes
#   topology       volcano.sh/task-topology-affinity "ps,worker": a job on one node
#   placement      taints/tolerations, nodeSelector and required node affinity
#
# E2E_SCHED_SCENARIOS (space-separated) runs a subset; E2E_SETTLE (seconds, default 4) is how
# long "nothing else happens" is watched. Every check prints the namespace's pods, PodGroups
# and events when it fails.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

BIN=${E2E_BIN_DIR:-$E2E_ROOT/build}
SIM=$BIN/vc-nodesim
CTRL=$BIN/vc-controller
SETTLE=${E2E_SETTLE:-4}
ALL="kube-deadlock gang sequential proportion reclaim preempt binpack topology placement"
SCENARIOS=${E2E_SCHED_SCENARIOS:-$ALL}
for s in $SCENARIOS; do
	case " $ALL " in *" $s "*) ;; *) fail "E2E_SCHED_SCENARIOS: no scenario '$s' (have: $ALL)" ;; esac
done
wanted() { case " $SCENARIOS " in *" $1 "*) return 0 ;; esac; return 1; }
[ -x "$SIM" ] || fail "$SIM is missing (make build)"

# --- diagnostics: every failure shows the state of the scenario's namespace --------------------

CUR_NS= # the scenario's namespace
diag() {
	[ -n "$CUR_NS" ] || return 0
	printf '\n===== pods in %s\n' "$CUR_NS"
	kube get pods -n "$CUR_NS" -o wide 2>&1 | head -n 60
	printf '\n===== podgroups in %s\n' "$CUR_NS"
	kube get podgroups.scheduling.volcano.sh -n "$CUR_NS" -o yaml 2>&1 |
		grep -vE '^ *(creationTimestamp|generation|resourceVersion|selfLink|uid|f:.*|manager|operation|time|fieldsType|fieldsV1|apiVersion: scheduling.volcano.sh/v1beta1|managedFields):' |
		head -n 200
	printf '\n===== queues\n'
	kube get queues.scheduling.volcano.sh -o custom-columns='NAME:.metadata.name,WEIGHT:.spec.weight,STATE:.status.state,ALLOCATED:.status.allocated' 2>&1
	printf '\n===== nodes\n'
	kube get nodes -o custom-columns='NAME:.metadata.name,GPU:.status.allocatable.nvidia\.com/gpu,TAINTS:.spec.taints[*].key,LABELS:.metadata.labels' 2>&1 | cut -c1-200
	printf '\n===== last events in %s\n' "$CUR_NS"
	kube get events -n "$CUR_NS" --sort-by=.lastTimestamp 2>&1 | tail -n 25
}

# --- cluster, nodes, scheduler -------------------------------------------------------------------

e2e_cluster_up --with-kube-scheduler
crds=$(kube apply -f "$E2E_ROOT/crds" -o name) || fail "kubectl apply -f crds failed"
# A CRD without status yet makes kubectl wait fail at once ("accessor error"): wait_for retries.
# shellcheck disable=SC2086 # one argument per CRD
wait_for "the CRDs Established" 60 kube wait --for=condition=Established --timeout=30s $crds
kube apply -f - >/dev/null <<-EOT || fail "cannot create the PriorityClasses"
	apiVersion: scheduling.k8s.io/v1
	kind: PriorityClass
	metadata: {name: low}
	value: 10
	---
	apiVersion: scheduling.k8s.io/v1
	kind: PriorityClass
	metadata: {name: high}
	value: 1000
EOT

CUR_SIM= # daemon name of the running vc-nodesim
sim_nodes_gone() {
	local out
	out=$(kube get nodes -l caldera.dev/simulated=true -o name) || return 1
	[ -z "$out" ] || { echo "$out"; return 1; }
}
# nodes_ready PREFIX COUNT: COUNT nodes PREFIX-n Ready, without the not-ready taint.
nodes_ready() {
	local out
	out=$(kube get nodes -l caldera.dev/simulated=true -o jsonpath='{range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status} {.spec.taints[*].key}{"\n"}{end}') || return 1
	[ "$(echo "$out" | grep -cE "^$1-[0-9]+ True *\$")" = "$2" ] || { echo "$out"; return 1; }
}
# nodes PREFIX COUNT RESOURCES [vc-nodesim flags]: replace the simulated nodes with these.
nodes() {
	local prefix=$1 count=$2 res=$3
	shift 3
	if [ -n "$CUR_SIM" ]; then
		stop_daemon "$CUR_SIM"
		wait_for "the nodes of $CUR_SIM to be deleted" 30 sim_nodes_gone
	fi
	CUR_SIM=nodesim-$prefix
	start_daemon "$CUR_SIM" "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix "$prefix" \
		--nodes "$count:$res" --fast-delete --delete-nodes-on-exit --heartbeat-period 5s "$@"
	wait_for "$count Ready nodes $prefix-*" 30 nodes_ready "$prefix" "$count"
}

CONF_DIR= # scheduler configurations
CUR_CTRL= # daemon name of the running vc-controller
HEALTHZ_PORT=
# conf NAME: the configuration file of that name (Volcano's scheduler configuration YAML): Volcano's
# built-in default tiers with the variant's actions, arguments and extra node-order plugin.
conf() {
	local f=$CONF_DIR/$1.yaml actions="enqueue, allocate, backfill" off="" extra=""
	case $1 in
	default) ;; # Volcano's built-in default
	reclaim) actions="$actions, reclaim" ;;
	preempt) # the Helm chart's tiers: gang and drf leave victims to priority
		actions="$actions, preempt"
		off="    enablePreemptable: false" ;;
	binpack)
		extra="  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: 1
      binpack.memory: 1
      binpack.resources: nvidia.com/gpu
      binpack.resources.nvidia.com/gpu: 5" ;;
	topology)
		extra="  - name: task-topology
    arguments:
      task-topology.weight: 10" ;;
	*) fail "conf: no configuration '$1'" ;;
	esac
	{
		printf 'actions: "%s"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n' "$actions"
		[ -z "$off" ] || echo "$off"
		printf '  - name: conformance\n- plugins:\n  - name: overcommit\n  - name: drf\n'
		[ -z "$off" ] || echo "$off"
		printf '  - name: predicates\n  - name: proportion\n  - name: nodeorder\n'
		[ -z "$extra" ] || echo "$extra"
	} >"$f"
	echo "$f"
}
healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$HEALTHZ_PORT/healthz"; }
# scheduler CONF: (re)start vc-controller, scheduler only, with that configuration.
scheduler() {
	local f
	[ -x "$CTRL" ] || fail "$CTRL is missing (make build)"
	[ -n "$CONF_DIR" ] || { CONF_DIR=$E2E_DIR/conf && mkdir -p "$CONF_DIR"; }
	stop_scheduler
	f=$(conf "$1")
	HEALTHZ_PORT=$(free_port)
	CUR_CTRL=vc-controller-$1-$((++CTRL_RUNS))
	start_daemon "$CUR_CTRL" "$CTRL" --kubeconfig "$KUBECONFIG" \
		--kube-api-qps 2000 --kube-api-burst 2000 --leader-elect=false \
		--controllers=-job-controller,-pg-controller,-gc-controller \
		--enable-scheduler=true --scheduler-name volcano --scheduler-conf "$f" \
		--schedule-period 1s --seed 1 --enable-healthz=true --healthz-address "127.0.0.1:$HEALTHZ_PORT" \
		--listen-address "127.0.0.1:$(free_port)"
	wait_for "vc-controller ($1) healthy on :$HEALTHZ_PORT" 30 healthy
	wait_for "the default queue (made by the scheduler)" 20 kube get queue.scheduling.volcano.sh default
}
CTRL_RUNS=0
stop_scheduler() {
	[ -z "$CUR_CTRL" ] || stop_daemon "$CUR_CTRL"
	CUR_CTRL=
}

# --- objects -------------------------------------------------------------------------------------

# scenario NAME: a fresh namespace for it.
scenario() {
	CUR_NS=$1
	kube create namespace "$CUR_NS" >/dev/null || fail "cannot create namespace $CUR_NS"
}
# end_scenario: delete its namespace (vc-nodesim must still run to remove bound pods).
end_scenario() {
	[ -n "$CUR_NS" ] || return 0
	kube delete namespace "$CUR_NS" --wait=false >/dev/null
	wait_for "namespace $CUR_NS to be deleted" 90 gone namespace "$CUR_NS"
	CUR_NS=
}
# queue NAME WEIGHT
queue() {
	kube apply -f - >/dev/null <<-EOT || fail "cannot create queue $1"
		apiVersion: scheduling.volcano.sh/v1beta1
		kind: Queue
		metadata: {name: $1}
		spec: {weight: $2, reclaimable: true}
	EOT
}
# pg_yaml NAME MIN [key=value...]: a PodGroup in $CUR_NS. Keys: queue, prio (priorityClassName),
# topo (volcano.sh/task-topology-affinity).
pg_yaml() {
	local name=$1 min=$2 kv queue=default prio='' topo=''
	shift 2
	for kv in "$@"; do
		case ${kv%%=*} in
		queue) queue=${kv#*=} ;;
		prio) prio=${kv#*=} ;;
		topo) topo=${kv#*=} ;;
		*) fail "pg_yaml: unknown key in '$kv'" ;;
		esac
	done
	printf -- '---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n'
	printf 'metadata:\n  name: %s\n  namespace: %s\n' "$name" "$CUR_NS"
	[ -z "$topo" ] || printf '  annotations: {volcano.sh/task-topology-affinity: "%s"}\n' "$topo"
	printf 'spec:\n  minMember: %s\n  queue: %s\n' "$min" "$queue"
	[ -z "$prio" ] || printf '  priorityClassName: %s\n' "$prio"
}
# pod_yaml NAME GROUP [key=value...]: a pod of PodGroup GROUP in $CUR_NS, labelled group=GROUP.
# Keys: gpu (1), cpu (500m), mem (256Mi), run (run-seconds; none: runs until deleted), prio,
# role (volcano.sh/task-spec), sel (nodeSelector k=v), aff (required node affinity k=v),
# tol (toleration k=v:Effect), sched (schedulerName, volcano), queue (a label only).
pod_yaml() {
	local name=$1 group=$2 kv gpu=1 cpu=500m mem=256Mi run='' prio='' role='' sel='' aff='' tol=''
	local sched=volcano q=''
	shift 2
	for kv in "$@"; do
		case ${kv%%=*} in
		gpu) gpu=${kv#*=} ;;
		cpu) cpu=${kv#*=} ;;
		mem) mem=${kv#*=} ;;
		run) run=${kv#*=} ;;
		prio) prio=${kv#*=} ;;
		role) role=${kv#*=} ;;
		sel) sel=${kv#*=} ;;
		aff) aff=${kv#*=} ;;
		tol) tol=${kv#*=} ;;
		sched) sched=${kv#*=} ;;
		queue) q=${kv#*=} ;;
		*) fail "pod_yaml: unknown key in '$kv'" ;;
		esac
	done
	printf -- '---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: %s\n' "$name" "$CUR_NS"
	printf '  labels: {group: %s%s}\n' "$group" "${q:+, queue: $q}"
	printf '  annotations:\n    scheduling.k8s.io/group-name: %s\n' "$group"
	[ -z "$run" ] || printf '    sandbox.caldera.dev/run-seconds: "%s"\n' "$run"
	[ -z "$role" ] || printf '    volcano.sh/task-spec: %s\n' "$role"
	printf 'spec:\n  schedulerName: %s\n  restartPolicy: Never\n' "$sched"
	printf '  terminationGracePeriodSeconds: 1\n'
	[ -z "$prio" ] || printf '  priorityClassName: %s\n' "$prio"
	[ -z "$sel" ] || printf '  nodeSelector: {%s: "%s"}\n' "${sel%%=*}" "${sel#*=}"
	[ -z "$aff" ] || printf '  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - {key: %s, operator: In, values: ["%s"]}\n' "${aff%%=*}" "${aff#*=}"
	if [ -n "$tol" ]; then
		local k=${tol%%:*}
		printf '  tolerations:\n  - {key: %s, operator: Equal, value: "%s", effect: %s}\n' \
			"${k%%=*}" "${k#*=}" "${tol#*:}"
	fi
	printf '  containers:\n  - name: main\n    image: busybox\n    resources:\n'
	printf '      requests: {cpu: "%s", memory: "%s"%s}\n' "$cpu" "$mem" \
		"$([ "$gpu" = 0 ] || printf ', nvidia.com/gpu: %s' "$gpu")"
	[ "$gpu" = 0 ] || printf '      limits: {nvidia.com/gpu: %s}\n' "$gpu"
}
# create: kubectl create the YAML on stdin (objects in order).
create() {
	local out
	out=$(kube create -f - 2>&1) || fail "kubectl create failed" "$out"
}

# --- observing -----------------------------------------------------------------------------------

# nodes_of SELECTOR: the node of each pod of $CUR_NS matching SELECTOR, one a line ("" unbound).
nodes_of() {
	kube get pods -n "$CUR_NS" -l "$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}'
}
# bound SELECTOR: how many such pods have a node.
bound() {
	local out
	out=$(nodes_of "$1") || return 1
	echo "$out" | grep -c . || true
}
# count PHASE SELECTOR: how many such pods are in that phase.
count() {
	kube get pods -n "$CUR_NS" -l "$2" -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' |
		grep -cx "$1" || true
}
# bound_is SELECTOR N: exactly N such pods have a node (for wait_for).
bound_is() {
	local n
	n=$(bound "$1") || return 1
	[ "$n" = "$2" ] || { echo "$n of the pods $1 are bound, want $2"; return 1; }
}
# pods_are PHASE SELECTOR N: exactly N such pods (and all of them) are in PHASE.
pods_are() {
	local total n
	total=$(kube get pods -n "$CUR_NS" -l "$2" -o name | grep -c . || true)
	n=$(count "$1" "$2")
	if [ "$n" != "$3" ] || [ "$total" != "$3" ]; then
		echo "$n of $total pods $2 are $1, want $3 of $3"
		return 1
	fi
}
pg_get() { kube get podgroup.scheduling.volcano.sh -n "$CUR_NS" "$1" -o jsonpath="$2"; }
pg_phase_is() {
	local p
	p=$(pg_get "$1" '{.status.phase}') || return 1
	[ "$p" = "$2" ] || { echo "PodGroup $1 phase '$p', want '$2'"; return 1; }
}
pg_unschedulable() { # NAME: the Unschedulable condition as "status|reason|message"
	pg_get "$1" '{range .status.conditions[?(@.type=="Unschedulable")]}{.status}|{.reason}|{.message}{end}'
}
has_unschedulable() {
	local c
	c=$(pg_unschedulable "$1") || return 1
	case $c in True\|NotEnoughResources\|*) ;; *) echo "Unschedulable condition of $1: '$c'"; return 1 ;; esac
}
# pg_message_like NAME GLOB...: PodGroup NAME has Unschedulable=True, NotEnoughResources, and a
# message matching one of the GLOBs.
pg_message_like() {
	local c g name=$1
	shift
	has_unschedulable "$name" || return 1
	c=$(pg_unschedulable "$name") || return 1
	c=${c#*|*|}
	for g in "$@"; do
		# shellcheck disable=SC2053 # $g is a glob
		[[ $c != $g ]] || return 0
	done
	printf 'message: %s\n' "$c"
	printf 'wanted:  %s\n' "$@"
	return 1
}
# same_for SECONDS CMD...: CMD keeps succeeding for that long (checked every second).
same_for() {
	local end=$((SECONDS + $1)) out
	shift
	while [ $SECONDS -lt $end ]; do
		out=$("$@" 2>&1) || fail "within ${SETTLE}s of settling: '$*' no longer holds:" "$out"
		sleep 1
	done
}
# evictions REASON: Evict events on pods of $CUR_NS whose message names REASON.
evictions() {
	kube get events -n "$CUR_NS" --field-selector reason=Evict,involvedObject.kind=Pod \
		-o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -c "because of $1" || true
}

# record: watch the pods of $CUR_NS into a log, one line per event:
# TYPE|name|group|node|phase|gpus (the watch starts with ADDED for what exists).
record() {
	local sentinel=watch-sentinel
	REC_LOG=$E2E_DIR/daemons/watch-$CUR_NS.log
	start_daemon "watch-$CUR_NS" kubectl --kubeconfig "$KUBECONFIG" get pods -n "$CUR_NS" \
		-w --output-watch-events -o jsonpath='{.type}|{.object.metadata.name}|{.object.metadata.annotations.scheduling\.k8s\.io/group-name}|{.object.spec.nodeName}|{.object.status.phase}|{.object.spec.containers[0].resources.requests.nvidia\.com/gpu}{"\n"}'
	# A pod nobody schedules shows when the watch is on.
	kube run "$sentinel" -n "$CUR_NS" --image=busybox --restart=Never \
		--overrides='{"spec":{"schedulerName":"nobody"}}' >/dev/null
	wait_for "the pod watch of $CUR_NS" 20 grep -q "|$sentinel|" "$REC_LOG"
	kube delete pod -n "$CUR_NS" "$sentinel" --wait=false >/dev/null
}
# check_record GPUS_PER_NODE MAX_PARTIAL: replay the watch log. Fails if at any event more than
# MAX_PARTIAL PodGroups were partially bound (more than 0 and fewer than minMember of their pods
# ever bound) or a node held more GPUs than it has (pods bound, not finished, not deleted).
check_record() {
	local out mins
	stop_daemon "watch-$CUR_NS"
	mins=$(kube get podgroups.scheduling.volcano.sh -n "$CUR_NS" -o jsonpath='{range .items[*]}{.metadata.name}={.spec.minMember} {end}')
	out=$(awk -F'|' -v mins="$mins" -v cap="$1" -v maxp="$2" '
		BEGIN { n = split(mins, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); min[p[1]] = p[2] } }
		$3 == "" { next }
		{
			pod = $2; g = $3; node = $4; ph = $5; gpu = $6 + 0
			if (node != "" && !(pod in ever)) { ever[pod] = 1; nb[g]++ }
			if (pod in held) { used[held[pod]] -= hgpu[pod]; delete held[pod] }
			if (node != "" && $1 != "DELETED" && ph != "Succeeded" && ph != "Failed") {
				held[pod] = node; hgpu[pod] = gpu; used[node] += gpu
			}
			n = 0; list = ""
			for (x in nb) if (nb[x] > 0 && nb[x] < min[x]) { n++; list = list " " x "(" nb[x] ")" }
			if (n > maxp && bad == "")
				bad = sprintf("event %d (%s): %d PodGroups partially bound:%s", NR, $0, n, list)
			if (node != "" && used[node] > cap && bad == "")
				bad = sprintf("event %d (%s): node %s holds %d GPUs, it has %d", NR, $0, node, used[node], cap)
			events++
		}
		END { if (bad != "") { print bad; exit 1 } printf "%d events", events }' "$REC_LOG") ||
		fail "pod history of $CUR_NS: $out (log: $REC_LOG)"
	echo "$out"
}

# --- kube-scheduler: the deadlock ----------------------------------------------------------------

# interleaved SCHED [pod keys...]: PodGroups a and b (minMember 4), pods a-0 b-0 a-1 b-1 ... b-3.
interleaved() {
	local sched=$1 i
	shift
	{
		pg_yaml a 4
		pg_yaml b 4
		for i in 0 1 2 3; do
			pod_yaml "a-$i" a sched="$sched" "$@"
			pod_yaml "b-$i" b sched="$sched" "$@"
		done
	} | create
}
nodes dl 2 cpu=8,memory=32Gi,nvidia.com/gpu=2

if wanted kube-deadlock; then
	step "kube-scheduler: jobs a and b (4 x 1 GPU each, interleaved) on 2 nodes x 2 GPUs"
	scenario kd
	interleaved default-scheduler
	wait_for "4 pods bound by kube-scheduler" 30 bound_is group 4
	sleep "$SETTLE" # kube-scheduler retries the rest; nothing can change
	[ "$(bound group=a):$(bound group=b)" = 2:2 ] ||
		fail "kube-scheduler placed a: $(bound group=a), b: $(bound group=b), not 2 + 2"
	bound_is group 4 >/dev/null || fail "more pods bound after settling: $(bound group)"
	reasons=$(kube get pods -n kd --field-selector=status.phase=Pending -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}')
	[ "$(echo "$reasons" | grep -cx Unschedulable)" = 4 ] ||
		fail "the 4 pending pods are not all PodScheduled=False/Unschedulable: $reasons"
	pass "kube-scheduler deadlocks: a holds 2 GPUs, b holds 2, 4 pods Pending Unschedulable, neither job can start"
	end_scenario
fi

# --- Caldera: gang ------------------------------------------------------------------------------

if wanted gang; then
	step "Caldera: the same two jobs, pods run 6 s"
	scheduler default
	scenario gang
	record
	interleaved volcano run=6
	one_complete() {
		local a b
		a=$(bound group=a) && b=$(bound group=b) || return 1
		[ "$a:$b" = 4:0 ] || [ "$a:$b" = 0:4 ] || { echo "bound: a $a, b $b"; return 1; }
	}
	wait_for "one job with all 4 pods bound and the other with none" 30 one_complete
	if [ "$(bound group=a)" = 4 ]; then first=a second=b; else first=b second=a; fi
	# With the whole cluster allocated, the queue is overused and allocate skips it: no task of
	# the job is tried, so there may be no node errors ("Origin reason") to report.
	gang_msg="4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, 4 minAvailable; Pending: 4 Unschedulable"
	wait_for "PodGroup $second Unschedulable with the gang message" 10 pg_message_like "$second" \
		"$gang_msg" \
		"$gang_msg. Origin reason is $second-[0-3]: 0/2 nodes are unavailable: 2 Insufficient nvidia.com/gpu."
	msg=$(pg_unschedulable "$second")
	msg=${msg#*|*|}
	wait_for "PodGroup $first Running" 10 pg_phase_is "$first" Running
	p=$(pg_get "$second" '{.status.phase}')
	case $p in Pending | Inqueue) ;; *) fail "PodGroup $second is '$p' while it waits" ;; esac
	pass "$first got all 4 GPUs and is Running; $second got none, is $p, Unschedulable: $msg"
	wait_for "job $second bound after $first finished" 40 bound_is "group=$second" 4
	wait_for "PodGroup $first Completed" 20 pg_phase_is "$first" Completed
	wait_for "PodGroup $second Completed" 30 pg_phase_is "$second" Completed
	pods_are Succeeded group 8 >/dev/null || fail "not all 8 pods Succeeded: $(pods_are Succeeded group 8)"
	hist=$(check_record 2 1)
	pass "then $second ran; both Completed, 8 pods Succeeded; no node over its 2 GPUs, never 2 gangs partially bound ($hist)"
	end_scenario
fi

if wanted sequential; then
	step "Caldera: five jobs of 2 ps + 4 workers (4 GPUs each) on 2 nodes x 2 GPUs"
	scheduler default
	scenario seq
	record
	{
		for j in 1 2 3 4 5; do pg_yaml "j$j" 6; done
		for i in 0 1; do
			for j in 1 2 3 4 5; do pod_yaml "j$j-ps-$i" "j$j" gpu=0 cpu=2 run=3 role=ps; done
		done
		for i in 0 1 2 3; do
			for j in 1 2 3 4 5; do pod_yaml "j$j-worker-$i" "j$j" cpu=1 run=3 role=worker; done
		done
	} | create
	all_completed() {
		local j
		for j in 1 2 3 4 5; do pg_phase_is "j$j" Completed || return 1; done
	}
	wait_for "all five PodGroups Completed" 150 all_completed
	pods_are Succeeded group 30 >/dev/null || fail "not all 30 pods Succeeded: $(pods_are Succeeded group 30)"
	hist=$(check_record 2 1)
	pass "all five jobs Completed, 30 pods Succeeded, one job at a time ($hist)"
	end_scenario
fi

# --- Caldera: fair share -----------------------------------------------------------------------

if wanted proportion || wanted reclaim || wanted preempt; then
	nodes fs 2 cpu=16,memory=64Gi,nvidia.com/gpu=4
fi

if wanted proportion; then
	step "Caldera: queues of weight 1 and 3, 12 one-GPU jobs each, on 8 GPUs"
	stop_scheduler # so that the first cycle sees both queues saturated
	scenario prop
	queue w1 1
	queue w3 3
	for i in $(seq 0 11); do
		for q in w1 w3; do
			pg_yaml "$q-$i" 1 queue="$q"
			pod_yaml "$q-$i" "$q-$i" queue="$q"
		done
	done | create
	scheduler default
	wait_for "8 pods bound" 30 bound_is queue 8
	same_for "$SETTLE" bound_is queue 8
	a=$(bound queue=w1)
	b=$(bound queue=w3)
	[ "$a:$b" = 2:6 ] || fail "queue w1 got $a GPUs and w3 $b, want 2 and 6"
	alloc_is() {
		local v
		v=$(kube get queue.scheduling.volcano.sh "$1" -o jsonpath='{.status.allocated.nvidia\.com/gpu}')
		[ "$v" = "$2" ] || { echo "queue $1 status.allocated nvidia.com/gpu '$v', want '$2'"; return 1; }
	}
	wait_for "queue status.allocated" 10 alloc_is w3 6
	alloc_is w1 2 >/dev/null || fail "$(alloc_is w1 2)"
	pass "w1 holds 2 GPUs, w3 holds 6 (status.allocated 2 and 6); 16 pods wait"
	end_scenario
	kube delete queue.scheduling.volcano.sh w1 w3 >/dev/null
fi

if wanted reclaim; then
	step "Caldera: reclaim; q1 (job of min 2, 8 pods) holds 8 GPUs, then q2 submits 4 x 1 GPU (min 4)"
	scheduler reclaim
	scenario recl
	queue q1 1
	queue q2 1
	record
	{
		pg_yaml big 2 queue=q1
		for i in $(seq 0 7); do pod_yaml "big-w-$i" big queue=q1; done
	} | create
	wait_for "q1's 8 pods bound" 30 bound_is group=big 8
	wait_for "q1's 8 pods Running" 30 pods_are Running group=big 8
	{
		pg_yaml new 4 queue=q2
		for i in $(seq 0 3); do pod_yaml "new-w-$i" new queue=q2; done
	} | create
	wait_for "q2's job bound" 60 bound_is group=new 4
	same_for "$SETTLE" bound_is group=big 4
	bound_is group=new 4 >/dev/null || fail "q2's job lost pods: $(bound group=new) bound"
	n=$(evictions reclaim)
	[ "$n" = 4 ] || fail "$n Evict events 'because of reclaim', want 4"
	hist=$(check_record 4 1)
	pass "4 of q1's pods evicted (reclaim), q1 keeps 4, q2 runs 4; no node over 4 GPUs ($hist)"
	end_scenario
	kube delete queue.scheduling.volcano.sh q1 q2 >/dev/null
fi

if wanted preempt; then
	step "Caldera: preemption in one queue; 8 low-priority jobs hold 8 GPUs"
	scheduler preempt
	scenario prio
	queue pq 1
	record
	for i in $(seq 0 7); do
		pg_yaml "low-$i" 1 queue=pq prio=low
		pod_yaml "low-$i" "low-$i" queue=pq prio=low
	done | create
	wait_for "8 low pods bound" 30 bound_is queue=pq 8
	{
		pg_yaml late 2 queue=pq prio=low
		pod_yaml late-0 late prio=low
		pod_yaml late-1 late prio=low
	} | create
	wait_for "PodGroup late Unschedulable" 15 has_unschedulable late
	same_for "$SETTLE" bound_is queue=pq 8
	bound_is group=late 0 >/dev/null || fail "equal-priority job late got bound"
	[ "$(evictions preempt)" = 0 ] || fail "a pod was evicted for an equal-priority job"
	pass "an equal-priority job (min 2) waits: no eviction"
	{
		pg_yaml high 2 queue=pq prio=high
		pod_yaml high-0 high prio=high
		pod_yaml high-1 high prio=high
	} | create
	wait_for "high's 2 pods bound" 60 bound_is group=high 2
	same_for "$SETTLE" bound_is queue=pq 6
	bound_is group=late 0 >/dev/null || fail "job late got bound"
	n=$(evictions preempt)
	[ "$n" = 2 ] || fail "$n Evict events 'because of preempt', want 2"
	hist=$(check_record 4 1)
	pass "high preempted exactly 2 low pods and runs; 6 low pods keep running; late still waits ($hist)"
	end_scenario
	kube delete queue.scheduling.volcano.sh pq >/dev/null
fi

# --- Caldera: placement --------------------------------------------------------------------------

if wanted binpack || wanted topology; then
	nodes pk 4 cpu=8,memory=32Gi,nvidia.com/gpu=4
fi

if wanted binpack; then
	step "Caldera: binpack; 6 one-GPU jobs on 4 nodes x 4 GPUs"
	scheduler binpack
	scenario pack
	for i in $(seq 0 5); do
		pg_yaml "p-$i" 1
		pod_yaml "p-$i" "p-$i" cpu=1 mem=1Gi
	done | create
	wait_for "6 pods bound" 30 bound_is group 6
	used=$(nodes_of group | sort | uniq -c | sort -rn | awk '{ print $1, $2 }')
	[ "$(echo "$used" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }')" = "4 2" ] ||
		fail "binpack spread the 6 pods (count node): $(echo "$used" | paste -sd ',')"
	pass "packed onto 2 nodes (count node): $(echo "$used" | paste -sd ',')"
	end_scenario
fi

if wanted topology; then
	step "Caldera: task-topology; two jobs of 1 ps + 3 workers, affinity ps,worker, 4 nodes x 4 GPUs"
	scheduler topology
	scenario topo
	{
		for j in t1 t2; do pg_yaml "$j" 4 topo=ps,worker; done
		for j in t1 t2; do
			pod_yaml "$j-ps-0" "$j" gpu=0 cpu=1 role=ps
			for i in 0 1 2; do pod_yaml "$j-worker-$i" "$j" cpu=1 role=worker; done
		done
	} | create
	wait_for "8 pods bound" 30 bound_is group 8
	where=''
	for j in t1 t2; do
		on=$(nodes_of "group=$j" | sort -u)
		[ "$(echo "$on" | wc -l)" = 1 ] || fail "job $j is spread over $(echo "$on" | paste -sd ' ')"
		where="$where $j on $on,"
	done
	pass "each job's ps and workers on one node:${where%,}"
	end_scenario
fi

if wanted placement; then
	step "Caldera: taints, nodeSelector, required node affinity on 4 nodes x 2 GPUs"
	nodes pl 4 cpu=8,memory=32Gi,nvidia.com/gpu=2
	kube taint node pl-0 dedicated=infra:NoSchedule >/dev/null
	kube label node pl-1 disk=ssd >/dev/null
	kube label node pl-2 zone=b >/dev/null
	scheduler default
	scenario place
	{
		pg_yaml sel 1
		pod_yaml sel sel sel=disk=ssd
		pg_yaml aff 1
		pod_yaml aff aff aff=zone=b
		pg_yaml nowhere 1
		pod_yaml nowhere nowhere aff=zone=nowhere
	} | create
	wait_for "pods sel and aff bound" 30 bound_is 'group in (sel,aff)' 2
	[ "$(nodes_of group=sel)" = pl-1 ] || fail "pod sel (disk=ssd) is on '$(nodes_of group=sel)', not pl-1"
	[ "$(nodes_of group=aff)" = pl-2 ] || fail "pod aff (zone In b) is on '$(nodes_of group=aff)', not pl-2"
	wait_for "PodGroup nowhere Unschedulable, no node matching" 15 pg_message_like nowhere \
		"*0/4 nodes are unavailable: 4 node(s) didn't match Pod's node affinity/selector."
	msg=$(pg_unschedulable nowhere)
	bound_is group=nowhere 0 >/dev/null || fail "pod nowhere (zone In nowhere) got bound"
	pass "nodeSelector -> pl-1, required affinity -> pl-2, unmatched affinity waits: ${msg#*|*|}"
	# 4 GPUs are free on the untainted nodes: 5 plain jobs, 4 run, none on pl-0.
	for i in 0 1 2 3 4; do
		pg_yaml "plain-$i" 1
		pod_yaml "plain-$i" "plain-$i"
	done | create
	wait_for "4 plain pods bound" 30 bound_is 'group in (plain-0,plain-1,plain-2,plain-3,plain-4)' 4
	same_for "$SETTLE" bound_is 'group in (plain-0,plain-1,plain-2,plain-3,plain-4)' 4
	nodes_of 'group in (plain-0,plain-1,plain-2,plain-3,plain-4)' | grep -qx pl-0 &&
		fail "a pod without the toleration landed on the tainted node pl-0"
	waiting=$(kube get pods -n place -l 'group in (plain-0,plain-1,plain-2,plain-3,plain-4)' \
		--field-selector spec.nodeName= -o jsonpath='{.items[0].metadata.annotations.scheduling\.k8s\.io/group-name}')
	wait_for "PodGroup $waiting Unschedulable, blocked by the taint" 15 pg_message_like "$waiting" \
		"*0/4 nodes are unavailable: 1 node(s) had untolerated taint {dedicated: infra}, 3 Insufficient nvidia.com/gpu."
	msg=$(pg_unschedulable "$waiting")
	{
		pg_yaml tol 1
		pod_yaml tol tol tol=dedicated=infra:NoSchedule
	} | create
	wait_for "pod tol bound" 30 bound_is group=tol 1
	[ "$(nodes_of group=tol)" = pl-0 ] || fail "pod tol is on '$(nodes_of group=tol)', not pl-0"
	pass "taint honoured: 4 plain pods off pl-0, the tolerating pod runs on pl-0; the 5th waited: ${msg#*|*|}"
	end_scenario
fi

stop_scheduler
stop_daemon "$CUR_SIM"
pass "vc-controller and vc-nodesim stopped cleanly"
