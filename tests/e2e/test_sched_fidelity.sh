#!/usr/bin/env bash
# Scheduler decisions and messages compared with Volcano, on the stack of
# jobs_lib.sh, so that E2E_IMPL=volcano runs the same scenarios against Volcano's vc-scheduler
# (with the same configuration file, E2E_SCHED_CONF): the Helm chart's tiers with preempt.
#
#   origin      one node whose only GPU a pod outside any gang holds; a PodGroup without
#               minResources and its 4 one-GPU pods: the gang condition ends with ". Origin
#               reason is train-worker-0: 0/1 nodes are unavailable: 1 Insufficient nvidia.com/gpu.",
#               train-worker-0's PodScheduled message is that node error, the other pods carry the
#               gang message (docs/volcano/scheduler.md §1.8). Volcano v1.7 has neither the
#               suffix nor the "0/N nodes" wording (its FitError and FitErrors predate them), so
#               under E2E_IMPL=volcano only the message's head is checked.
#   pod-slots   one node with `pods: 1` held by a low-priority best-effort pod: a high-priority
#               pod with requests evicts it and is bound; again with a best-effort preemptor;
#               a best-effort preemptor never evicts a pod with requests
#               (docs/volcano/scheduler.md §3.4). Volcano v1.7 cannot do this (its preempt skips
#               victims with an empty request and never evicts for a pod-count predicate), so
#               the scenario runs on Caldera only.
#
# E2E_SETTLE (seconds, default 4) is how long "nothing else happens" is watched.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

SETTLE=${E2E_SETTLE:-4}
sched_conf <<'YAML'
actions: "enqueue, allocate, backfill, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
YAML
jobs_setup "1:cpu=8,memory=32Gi,nvidia.com/gpu=1,pods=110"
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

# pg NAME MIN [PRIORITY_CLASS]: a PodGroup without minResources in the default queue.
pg() {
	k apply -f - >/dev/null <<-EOT || fail "cannot create PodGroup $1"
		apiVersion: scheduling.volcano.sh/v1beta1
		kind: PodGroup
		metadata: {name: $1}
		spec: {minMember: $2, queue: default${3:+, priorityClassName: $3}}
	EOT
}
# pod NAME GROUP REQUESTS [PRIORITY_CLASS]: a pod of the gang GROUP, scheduled by volcano;
# REQUESTS is a YAML map ({} for best-effort). GROUP "-" makes a pod bound to node-0 directly.
pod() {
	local sched="schedulerName: volcano" ann="annotations: {scheduling.k8s.io/group-name: $2}"
	if [ "$2" = - ]; then
		sched="nodeName: node-0"
		ann="annotations: {}"
	fi
	k apply -f - >/dev/null <<-EOT || fail "cannot create pod $1"
		apiVersion: v1
		kind: Pod
		metadata:
		  name: $1
		  $ann
		spec:
		  $sched
		  ${4:+priorityClassName: $4}
		  terminationGracePeriodSeconds: 1
		  containers:
		  - name: main
		    image: busybox
		    resources: {requests: $3, limits: $3}
	EOT
}
pg_message() { k get podgroup "$1" -o jsonpath='{.status.conditions[?(@.type=="Unschedulable")].message}'; }
pod_message() { k get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
is() { # is WHAT GOT WANT: for wait_for
	[ "$2" = "$3" ] || { echo "$1: '$2', want '$3'"; return 1; }
}
pg_message_is() { is "PodGroup $1" "$(pg_message "$1")" "$2"; }
pod_message_is() { is "pod $1" "$(pod_message "$1")" "$2"; }
pg_message_starts() {
	local m
	m=$(pg_message "$1")
	case $m in "$2"*) ;; *) echo "PodGroup $1: '$m', want '$2...'" && return 1 ;; esac
}
running_on() { is "pod $1" "$(pfield "$1" '{.status.phase} {.spec.nodeName}')" "Running node-0"; }
absent() { gone pod "$1" -n "$CUR_NS"; }
ns_gone() { gone namespace "$1"; }
end_ns() {
	kube delete namespace "$CUR_NS" --wait=false >/dev/null
	wait_for "namespace $CUR_NS deleted" 90 ns_gone "$CUR_NS"
	CUR_NS=
}

# --- origin ---------------------------------------------------------------------------------------

ns origin
pod holder - '{cpu: 100m, nvidia.com/gpu: 1}'
wait_for "holder Running on node-0" 30 running_on holder
pg train 4
for i in 0 1 2 3; do pod "train-worker-$i" train '{cpu: 100m, nvidia.com/gpu: 1}'; done
gang="4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, 4 minAvailable; Pending: 4 Unschedulable"
if is_caldera; then
	node_err="0/1 nodes are unavailable: 1 Insufficient nvidia.com/gpu."
	wait_for "the gang message with its origin" 20 pg_message_is train "$gang. Origin reason is train-worker-0: $node_err"
	# Pod conditions are rewritten at most every 10 s (docs/scheduler.md, pacing).
	wait_for "train-worker-0's PodScheduled message: its node errors" 30 pod_message_is train-worker-0 "$node_err"
	for i in 1 2 3; do
		wait_for "train-worker-$i's PodScheduled message: the gang's" 30 pod_message_is "train-worker-$i" \
			"$gang. Origin reason is train-worker-0: $node_err"
	done
else
	wait_for "the gang message" 30 pg_message_starts train "$gang"
fi
pass "origin: $(pg_message train)"
end_ns

# --- pod-slots -------------------------------------------------------------------------------------

if is_caldera; then
	stop_daemon nodesim
	kube delete node node-0 >/dev/null || fail "cannot delete node-0"
	start_daemon nodesim2 "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix node \
		--nodes "1:cpu=8,memory=32Gi,pods=1" --fast-delete --heartbeat-period 5s
	wait_for "1 Ready node with one pod slot" 30 nodes_ready 1
	# preempt_case PREEMPTOR_REQUESTS: a best-effort low pod runs, a high one evicts it and runs.
	preempt_case() {
		ns "slots-$1"
		pg low 1 low
		pod low-0 low '{}' low
		wait_for "low-0 Running" 30 running_on low-0
		pg high 1 high
		pod high-0 high "$2" high
		wait_for "low-0 evicted" 30 absent low-0
		wait_for "high-0 Running on node-0" 30 running_on high-0
		pass "pod-slots ($1 preemptor): the best-effort low-0 was evicted, high-0 runs on node-0"
		end_ns
	}
	preempt_case requests '{cpu: 100m, memory: 64Mi}'
	preempt_case best-effort '{}'
	ns slots-guarded
	pg low 1 low
	pod low-0 low '{cpu: 100m, memory: 64Mi}' low
	wait_for "low-0 Running" 30 running_on low-0
	pg high 1 high
	pod high-0 high '{}' high
	sleep "$SETTLE"
	running_on low-0 >/dev/null || fail "a best-effort preemptor evicted low-0, which has requests"
	[ -z "$(pfield high-0 '{.spec.nodeName}')" ] || fail "high-0 was bound to a node with no free slot"
	pass "pod-slots: a best-effort preemptor leaves low-0 (with requests) alone"
	end_ns
fi
