#!/usr/bin/env bash
# manifests/overlays/production's controller and scheduler against a real API server: the
# rendered Deployments' flags, each with its own ServiceAccount's token (so the overlay's RBAC),
# two vc-controller replicas and one vc-scheduler as processes on the host (the local cluster
# runs no kubelet). vc-controller runs the controllers without the scheduler, vc-scheduler the
# scheduler without the controllers, each on its own Lease; a Volcano Job gets its PodGroup and
# pods, the scheduler's queues are made Open by the queue controller, nobody is refused by RBAC;
# the leading controller is killed with SIGKILL and the standby takes the Lease over.
#
# VC_CONTROLLER (default build/vc-controller) is the binary.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/manifests_lib.sh
. "$(dirname "$0")/manifests_lib.sh"

CONTROLLER=${VC_CONTROLLER:-$E2E_ROOT/build/vc-controller}
[ -x "$CONTROLLER" ] || fail "$CONTROLLER is missing: run make build (or set VC_CONTROLLER)"
command -v jq >/dev/null || fail "jq is missing"
OVERLAY=$E2E_ROOT/manifests/overlays/production

e2e_cluster_up --rbac

step "CRDs and overlays/production applied"
RENDERED=$E2E_DIR/production.json
install_overlay "$OVERLAY" "$RENDERED"
pass "overlays/production applied for real (no kubelet: its pods do not start)"

# The mounted ConfigMap, as the kubelet would mount it.
ETC=$E2E_DIR/etc
mkdir -p "$ETC"
jq -r '.items[] | select(.kind == "ConfigMap" and .metadata.name == "vc-scheduler-config")
	| .data["scheduler.conf"]' "$RENDERED" >"$ETC/scheduler.conf"
[ -s "$ETC/scheduler.conf" ] || fail "no scheduler.conf in the rendered ConfigMap"

# flags_of DEPLOYMENT KUBECONFIG: the container's flags with the mount turned into $ETC and the
# listeners on free ports of 127.0.0.1 (pods have their own IPs; here they share the host).
declare -A HZ=() MET=()
flags_of() {
	local f
	jq -r ".items[] | select(.kind == \"Deployment\" and .metadata.name == \"$1\")
		| .spec.template.spec.containers[0].args[]" "$RENDERED" | while IFS= read -r f; do
		case $f in
		--healthz-address=* | --listen-address=*) ;;
		*) printf '%s\n' "${f//\/etc\/caldera/$ETC}" ;;
		esac
	done
	printf '%s\n' --kubeconfig="$2" --healthz-address="127.0.0.1:${HZ[$3]}" \
		--listen-address="127.0.0.1:${MET[$3]}" --logtostderr
}
# start NAME DEPLOYMENT SA: one replica.
start() {
	local a kc
	HZ[$1]=$(free_port)
	MET[$1]=$(free_port)
	kc=$(kubeconfig_of "$3")
	mapfile -t a < <(flags_of "$2" "$kc" "$1")
	printf '%s\n' "${a[@]}" | grep -qx -- '--leader-elect=true' || fail "$2 runs without leader election"
	# vc-scheduler is the same program started by that name (the scheduler's role and flags).
	local bin=$CONTROLLER
	if [ "$2" = vc-scheduler ]; then
		bin=$E2E_DIR/bin/vc-scheduler
		mkdir -p "$E2E_DIR/bin" && ln -sf "$CONTROLLER" "$bin"
	fi
	start_daemon "$1" "$bin" "${a[@]}"
}
holder() { kube -n $NS get lease "$1" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null | grep .; }
leader_log() { grep -l 'msg="became the leader"' "$E2E_DIR"/daemons/"$1"*.log 2>/dev/null; }

step "two vc-controller replicas and vc-scheduler with the rendered flags"
start controller-a vc-controller vc-controller
start controller-b vc-controller vc-controller
start scheduler vc-scheduler vc-scheduler
wait_for "the Lease vc-controller-manager" 30 holder vc-controller-manager
wait_for "the Lease vc-scheduler" 30 holder vc-scheduler
leads() { [ "$(leader_log "$1" | wc -l)" = "$2" ]; }
wait_for "one controller to lead" 30 leads controller 1
wait_for "the scheduler to lead" 30 leads scheduler 1
sleep 3 # the standby keeps waiting
leads controller 1 || fail "both controllers lead" "$(leader_log controller)"
grep -q 'msg="started" scheduler=off' "$E2E_DIR"/daemons/controller-a.log ||
	fail "vc-controller did not start without the scheduler" "$(grep started "$E2E_DIR"/daemons/controller-a.log)"
grep -q 'msg="started" scheduler=on' "$E2E_DIR/daemons/scheduler.log" ||
	fail "vc-scheduler did not start the scheduler" "$(grep started "$E2E_DIR/daemons/scheduler.log")"
lead=$(basename "$(leader_log controller)" .log)
pass "$lead leads vc-controller-manager ($(holder vc-controller-manager)), the other waits; vc-scheduler leads vc-scheduler"

step "the split works: queues, a Job's PodGroup and pods, no RBAC refusal"
queue_open() { [ "$(kube get queue "$1" -o jsonpath='{.status.state}')" = Open ]; }
wait_for "the scheduler's queue default, opened by the queue controller" 60 queue_open default
wait_for "the scheduler's queue root" 30 kube get queue root
grep -q 'msg="queue created"' "$E2E_DIR/daemons/scheduler.log" ||
	fail "vc-scheduler did not create the queues"
if grep -q 'queue created' "$E2E_DIR"/daemons/controller-*.log; then
	fail "vc-controller created queues: its scheduler runs"
fi
kube create namespace team-a >/dev/null
JOB='apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: %s, namespace: team-a}
spec:
  schedulerName: volcano
  minAvailable: 2
  queue: default
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox}]
'
# shellcheck disable=SC2059 # JOB is the format
printf "$JOB" split | kube create -f - >/dev/null || fail "cannot create the Volcano Job"
pods() { [ "$(kube -n team-a get pods -o name | grep -c "$1")" = 2 ]; }
wait_for "the Job's two pods (job controller)" 60 pods split
wait_for "the Job's PodGroup" 30 kube -n team-a get podgroups -o name
# The scheduler sees the PodGroup: no node, so it stays unschedulable, with a condition.
seen() { kube -n team-a get podgroups -o json | jq -e '[.items[].status.conditions // [] | .[]] | length > 0' >/dev/null; }
wait_for "the scheduler to write the PodGroup's conditions" 60 seen
if grep -i 'forbidden\|status=403\| 403 ' "$E2E_DIR"/daemons/*.log; then
	fail "a request was refused by RBAC"
fi
# The check above sees refusals: a scheduler with the rights of the namespace's default
# ServiceAccount (none) logs them.
start nobody vc-scheduler default
refused() { grep -qi 'forbidden' "$E2E_DIR/daemons/nobody.log"; }
wait_for "a scheduler without rights to log a refusal" 30 refused
read -r pid _ <"$E2E_DIR/daemons/nobody.pid"
{
	kill -KILL "$pid"
	wait "$pid" || true
} 2>/dev/null
rm -f "$E2E_DIR/daemons/nobody.pid"
for n in "$lead" scheduler; do
	curl -fsS "http://127.0.0.1:${MET[$n]}/metrics" | grep '^# TYPE' >/dev/null || fail "$n serves no /metrics"
done
pass "queues Open, the Job's pods and PodGroup made, the scheduler at work, no 403; /metrics answers"

step "kill -9 the leading controller: the standby takes over"
read -r pid _ <"$E2E_DIR/daemons/$lead.pid"
{
	kill -KILL "$pid"
	wait "$pid" || true
} 2>/dev/null
rm -f "$E2E_DIR/daemons/$lead.pid" # killed on purpose
t0=$SECONDS
other=controller-a
[ "$lead" != controller-a ] || other=controller-b
took_over() { grep -q 'msg="became the leader"' "$E2E_DIR/daemons/$other.log"; }
wait_for "$other to take the Lease over" 60 took_over
took=$((SECONDS - t0))
# shellcheck disable=SC2059 # JOB is the format
printf "$JOB" after | kube create -f - >/dev/null || fail "cannot create the second Volcano Job"
wait_for "the new leader to make the second Job's pods" 60 pods after
pass "$other leads after ${took}s (lease duration 15 s) and works: the second Job has its pods"
