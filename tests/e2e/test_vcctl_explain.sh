#!/usr/bin/env bash
# vcctl job explain (Caldera's own command) against the live stack of jobs_lib.sh (vc-webhook,
# vc-controller with the scheduler, vc-nodesim's 4 nodes of 8 CPUs): one scenario per reason,
# each driving the real vcctl binary (and once the kubectl plugin form) and checking the first
# lines of its answer:
#
#   running     a job that runs: "the job is Running", From its status.state.phase
#   closed      a job held by a 100-CPU request, then its queue closed: the queue's state
#   gang        5 pods of 6 CPUs on 4 nodes of 8: the gang needs 5 and only 4 fit, with the
#               node histogram (Insufficient cpu) from the PodGroup's Unschedulable condition
#   capability  a queue of capability 2 CPUs running 1.5: a second job of 1 CPU is over it,
#               numbers from Queue spec.capability and status.allocated
#   dependson   task b depends on task a (minAvailable 1) in a gang of 2: a's pod alone cannot
#               make the gang, so b is never created: the dependsOn wait is the first reason
#   policy      a pod fails under {PodFailed: AbortJob}: the job is Aborted, the action from its
#               last ExecuteAction event and the policy that leads to it
#   missing     a job that does not exist
#
# Checked against Volcano v1.7: under E2E_IMPL=volcano the same scenarios run on v1.7's
# controller and scheduler, whose objects explain then reads, and every expectation holds there
# too (v1.7 also writes Queue status.allocated). Only the wording of the node histogram differs:
# v1.7 says "4 node(s) resource fit failed" where HEAD says "4 Insufficient cpu".
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

# shellcheck disable=SC2119 # the default nodes
jobs_setup

# explain JOB: vcctl job explain in the scenario's namespace.
explain() { "$VCCTL" job explain "$1" -n "$CUR_NS" --kubeconfig "$KUBECONFIG" 2>&1; }
# explains JOB LINE...: the explanation holds each line (whole-line match) in that order.
explain_has() {
	local job=$1 out line
	shift
	out=$(explain "$job") || { echo "vcctl job explain $job failed:"; echo "$out"; return 1; }
	for line in "$@"; do
		grep -qxF -- "$line" <<<"$out" || { echo "no line '$line' in:"; echo "$out"; return 1; }
	done
}
# explain_match JOB REGEX...: as explain_has with extended regular expressions.
explain_match() {
	local job=$1 out re
	shift
	out=$(explain "$job") || { echo "vcctl job explain $job failed:"; echo "$out"; return 1; }
	for re in "$@"; do
		grep -qxE -- "$re" <<<"$out" || { echo "no line matching '$re' in:"; echo "$out"; return 1; }
	done
}
# queue NAME SPEC: a Queue with that spec (flow mapping), Open once the controller saw it.
queue() {
	local out
	out=$(printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: %s}\nspec: %s\n' \
		"$1" "$2" | kube apply -f - 2>&1) || fail "cannot create queue $1" "$out"
	open_q() { [ "$(kube get queue "$1" -o jsonpath='{.status.state}')" = Open ]; }
	wait_for "queue $1 Open" 30 open_q "$1"
}
# cpu_task NAME REPLICAS CPU [EXTRA]: a task running until deleted, requesting CPU.
cpu_task() {
	task_yaml "$1" "$2" "" "${4:-}" | sed "s/cpu: 100m/cpu: $3/"
}

step "running: a job that runs"
ns explain-running
job_yaml run "  minAvailable: 1
  schedulerName: volcano
  tasks:
$(cpu_task main 1 100m)" | apply_job -
wait_phase run Running
wait_for "explain to say Running" 30 explain_has run "Job $CUR_NS/run: Running" \
	"Why: the job is Running: 1 of 1 pods running (minAvailable 1)" \
	"From: Job $CUR_NS/run status.state.phase"
# The kubectl plugin form is the same binary under the name kubectl-vc.
mkdir -p "$E2E_DIR/bin"
ln -sf "$VCCTL" "$E2E_DIR/bin/kubectl-vc"
out=$(PATH="$E2E_DIR/bin:$PATH" kubectl vc job explain run -n "$CUR_NS" --kubeconfig "$KUBECONFIG" 2>&1) ||
	fail "kubectl vc job explain failed" "$out"
grep -qx "Job $CUR_NS/run: Running" <<<"$out" || fail "kubectl vc job explain" "$out"
k delete vcjob run --wait=false >/dev/null
pass "a Running job is said to run, by vcctl and kubectl vc"

step "closed: a job whose queue is closed"
queue explain-closed '{weight: 1}'
ns explain-closed
job_yaml held "  minAvailable: 1
  schedulerName: volcano
  queue: explain-closed
  tasks:
$(cpu_task main 1 100)" | apply_job -
pg_pending() { [ "$(k get podgroups.scheduling.volcano.sh -o jsonpath='{.items[0].status.phase}')" = Pending ]; }
wait_for "held's PodGroup Pending" 30 pg_pending
"$VCCTL" queue operate -n explain-closed -a close --kubeconfig "$KUBECONFIG" >/dev/null ||
	fail "vcctl queue operate close failed"
wait_for "explain to name the closed queue" 30 explain_match held "Job $CUR_NS/held: Pending" \
	'Why: queue "explain-closed" is Clos(ed|ing): it admits no job' \
	'From: Queue explain-closed status.state'
k delete vcjob held --wait=false >/dev/null
pass "a Pending job of a Closed queue: the queue's status.state"

step "gang: 5 pods of 6 CPUs, 4 nodes of 8"
ns explain-gang
job_yaml gang "  minAvailable: 5
  schedulerName: volcano
  tasks:
$(cpu_task worker 5 6)" | apply_job -
# The histogram line: HEAD's node FitError (docs/volcano/scheduler.md §1.8), or v1.7's
# "4 node(s) resource fit failed" from the pod's PodScheduled condition.
hist=' +4 Insufficient cpu'
is_caldera || hist=' +4 node\(s\) resource fit failed'
wait_for "explain to find the gang short" 60 explain_match gang "Job $CUR_NS/gang: Pending" \
	'Why: the gang needs 5 tasks and only 4 fit' \
	"From: PodGroup $CUR_NS/gang-.* status.conditions\[type=Unschedulable\]\.message" \
	"$hist"
explain gang
k delete vcjob gang --wait=false >/dev/null
pass "the gang that does not fit, with the node histogram"

step "capability: a queue of 2 CPUs running 1.5"
queue explain-cap '{weight: 1, capability: {cpu: "2"}}'
ns explain-cap
job_yaml first "  minAvailable: 1
  schedulerName: volcano
  queue: explain-cap
  tasks:
$(cpu_task main 1 1500m)" | apply_job -
wait_phase first Running
job_yaml second "  minAvailable: 1
  schedulerName: volcano
  queue: explain-cap
  tasks:
$(cpu_task main 1 1)" | apply_job -
wait_for "explain to find the queue over its capability" 60 explain_has second \
	"Job $CUR_NS/second: Pending" \
	'Why: queue "explain-cap" is over its capability: cpu 1500m allocated + 1 > 2' \
	"  Queue explain-cap spec.capability: cpu 2" \
	"  Queue explain-cap status.allocated: cpu 1500m, memory 64Mi"
explain second
k delete vcjob first second --wait=false >/dev/null
pass "a job over its queue's capability, with the numbers"

step "dependson: task b waits for task a"
ns explain-dep
job_yaml dep "  minAvailable: 2
  schedulerName: volcano
  tasks:
$(cpu_task a 1 100m "    minAvailable: 1")
$(cpu_task b 1 100m "    dependsOn: {name: [a]}")" | apply_job -
wait_for "explain to find b waiting" 60 explain_has dep "Job $CUR_NS/dep: Pending" \
	'Why: task "b" waits for the task it depends on (dependsOn): no pod of it is created until that one is ready' \
	"From: Job $CUR_NS/dep spec.tasks[1].dependsOn" \
	"  Job $CUR_NS/dep task a: 0/1 pods ready, minAvailable 1"
explain dep
pods_are dep 1 || fail "task b has pods, or a has none" "$(k get pods)"
k delete vcjob dep --wait=false >/dev/null
pass "a dependsOn wait that the gang cannot break"

step "policy: a failed pod aborts the job"
ns explain-policy
job_yaml pol "  minAvailable: 1
  schedulerName: volcano
  policies:
  - {event: PodFailed, action: AbortJob}
  tasks:
$(cpu_task main 1 100m)" | apply_job -
wait_phase pol Running
set_exit pol-main-0 1
wait_phase pol Aborted
wait_for "explain to name the action and its policy" 30 explain_match pol "Job $CUR_NS/pol: Aborted" \
	'Why: the job is Aborted: the controller ran the action AbortJob' \
	"From: Event $CUR_NS/pol\..* \(Normal ExecuteAction.*\) message" \
	"  Job $CUR_NS/pol spec.policies\[0\]: PodFailed -> AbortJob" \
	"  Pod $CUR_NS/pol-main-0 status.phase: Failed \(main exit code 1\)"
explain pol
pass "an Aborted job: the action from its last event, the policy that leads to it"

step "missing: no such job"
explain_has nope "Job $CUR_NS/nope: not found" "Why: the job does not exist" ||
	fail "explain of a missing job" "$(explain nope)"
pass "a missing job is explained, not an error"
