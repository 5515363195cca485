#!/usr/bin/env bash
# The capacity plugin with hierarchical queues, end to end on the stack of
# jobs_lib.sh (vc-controller with every controller and the scheduler, vc-webhook, vc-nodesim's
# 4 nodes of 4 GPUs), the scheduler running Volcano's Helm configuration with capacity in the
# place of proportion, `enableHierarchy: true` and the reclaim action:
#
#   root ─┬─ team-a (deserved 6 GPUs, capability 12) ─┬─ a1 (deserved 3)
#         │                                           └─ a2 (deserved 3)
#         └─ team-b (deserved 10)
#
#   borrow    a1's job asks 16 GPUs of an idle cluster: it runs 12, four times its deserved,
#             held at team-a's capability (its parent bounds it) while 4 GPUs stay idle;
#             team-a's status.allocated is its subtree's 12
#   reclaim   team-b submits a gang of 6 GPUs (4 idle): a1's borrowed pods are evicted
#             "because of reclaim" until team-b's job runs; a1 refills the idle rest and
#             keeps 10, no node over its 4 GPUs
#
# Not checked against Volcano v1.7 (E2E_IMPL=volcano skips): v1.7 has no capacity plugin (its
# vc-scheduler has proportion only) and its Queue API has neither spec.deserved nor spec.parent,
# so neither the flat nor the hierarchical part can run there. The expectations follow Volcano
# HEAD's capacity plugin as docs/volcano/scheduler.md §4.5 states it.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

if ! is_caldera; then
	skip "Volcano v1.7 has no capacity plugin and no Queue spec.deserved / spec.parent"
	exit 0
fi

sched_conf <<'YAML'
actions: "enqueue, allocate, backfill, reclaim"
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
  - name: capacity
    enableHierarchy: true
  - name: nodeorder
  - name: binpack
YAML
jobs_setup

# queue NAME SPEC: a Queue with that spec (flow mapping), Open once the controller saw it.
queue() {
	local out
	out=$(printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: %s}\nspec: %s\n' \
		"$1" "$2" | kube apply -f - 2>&1) || fail "cannot create queue $1" "$out"
	open_q() { [ "$(kube get queue "$1" -o jsonpath='{.status.state}')" = Open ]; }
	wait_for "queue $1 Open" 30 open_q "$1"
}
# gpu_job NAME QUEUE MIN REPLICAS: pods of 1 GPU each that run until deleted.
gpu_job() {
	job_yaml "$1" "  schedulerName: volcano
  queue: $2
  minAvailable: $3
  tasks:
  - name: w
    replicas: $4
    template:
      spec:
        restartPolicy: Never
        terminationGracePeriodSeconds: 1
        containers:
        - name: main
          image: busybox
          resources:
            requests: {cpu: 100m, memory: 64Mi, nvidia.com/gpu: 1}
            limits: {nvidia.com/gpu: 1}" | apply_job -
}
running_is() { pods_are "$1" "$2" Running; }
# same_for SECONDS CMD...: CMD holds all along.
same_for() {
	local end=$((SECONDS + $1)) out
	shift
	while [ $SECONDS -lt $end ]; do
		out=$("$@" 2>&1) || fail "'$*' no longer holds" "$out"
		sleep 1
	done
}
q_gpus_is() {
	local got
	got=$(kube get queue "$1" -o jsonpath='{.status.allocated.nvidia\.com/gpu}')
	[ "$got" = "$2" ] || { echo "queue $1 status.allocated GPUs '$got', want '$2'"; return 1; }
}
# evictions: Evict events of the namespace's pods "because of reclaim".
evictions() {
	k get events --field-selector reason=Evict,involvedObject.kind=Pod \
		-o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -c 'because of reclaim' || true
}
# node_gpus_ok: no node holds more than its 4 GPUs of Running or bound pods.
node_gpus_ok() {
	local over
	over=$(kube get pods -A --field-selector status.phase=Running \
		-o jsonpath='{range .items[*]}{.spec.nodeName}{" "}{.spec.containers[0].resources.requests.nvidia\.com/gpu}{"\n"}{end}' |
		awk '$2 != "" { n[$1] += $2 } END { for (k in n) if (n[k] > 4) print k, n[k] }')
	[ -z "$over" ] || { echo "nodes over 4 GPUs: $over"; return 1; }
}

step "the tree: root > team-a (deserved 6, capability 12) > a1, a2 (deserved 3); root > team-b (10)"
queue team-a '{weight: 1, reclaimable: true, deserved: {nvidia.com/gpu: 6}, capability: {nvidia.com/gpu: 12}}'
queue a1 '{weight: 1, reclaimable: true, parent: team-a, deserved: {nvidia.com/gpu: 3}}'
queue a2 '{weight: 1, reclaimable: true, parent: team-a, deserved: {nvidia.com/gpu: 3}}'
queue team-b '{weight: 1, reclaimable: true, parent: root, deserved: {nvidia.com/gpu: 10}}'
pass "queues created and Open"

step "borrow: a1's job asks 16 GPUs of the idle cluster"
ns capacity
gpu_job borrow a1 1 16
wait_phase borrow Running 60
wait_for "a1's job running 12 pods" 60 running_is borrow 12
same_for 4 running_is borrow 12
wait_for "team-a's status.allocated 12 GPUs (its subtree)" 30 q_gpus_is team-a 12
q_gpus_is a1 12 >/dev/null || fail "$(q_gpus_is a1 12)"
pass "a1 runs 12 GPUs (deserved 3), held at team-a's capability 12; 4 GPUs idle, 4 pods pending"

step "reclaim: team-b's gang of 6 GPUs (4 idle)"
gpu_job gang team-b 6 6
wait_for "team-b's job running 6 pods" 90 running_is gang 6
wait_phase gang Running 30
n=$(evictions)
[ "$n" -ge 2 ] || fail "$n Evict events 'because of reclaim', want at least 2"
wait_for "a1's job back to 10 running pods" 60 running_is borrow 10
same_for 4 running_is gang 6
check "no node over its GPUs" node_gpus_ok
wait_for "team-b's status.allocated 6 GPUs" 30 q_gpus_is team-b 6
pass "$n of a1's borrowed pods evicted (reclaim); team-b runs 6, a1 keeps 10"

step "helm: Volcano's Helm configuration with capacity in the place of proportion (flat queues)"
sched_conf <<'YAML'
actions: "enqueue, allocate, backfill"
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
  - name: capacity
  - name: nodeorder
  - name: binpack
YAML
reloaded() { grep -c 'msg="scheduler configuration reloaded"' "$E2E_DIR/daemons/$CTRL_NAME.log"; }
wait_for "the configuration reloaded" 30 reloaded
eq "skipped entries" "$(grep -c 'scheduler configuration entry skipped' "$E2E_DIR/daemons/$CTRL_NAME.log" || true)" 0
job_yaml helm "  schedulerName: volcano
  minAvailable: 2
  tasks:
$(task_yaml worker 2 2)" | apply_job -
wait_phase helm Completed 60
running_is gang 6 >/dev/null || fail "$(running_is gang 6)"
pass "configuration reloaded with nothing skipped; a gang job in the default queue Completed"
