#!/usr/bin/env bash
# The Job controller end to end, part 4: behaviour found to differ from Volcano v1.7 when both ran
# the same YAML. Written so that it runs unchanged against Volcano v1.7's vc-controller-manager
# and vc-scheduler (E2E_IMPL=volcano, see jobs_lib.sh); where v1.7 words a message differently
# from the Volcano this project follows, v1.7's form is accepted only under E2E_IMPL=volcano.
#
#   pg-pending     a gang of 5 pods of 6 CPUs on 4 nodes of 8 CPUs (admitted: 30 of 32 CPUs, but
#                  one pod per node): the Job gets Warning PodGroupPending "PodGroup
#                  <ns>:<job> unschedulable, reason: <the PodGroup's Unschedulable message>"
#                  (docs/volcano/job-controller.md §1.5); Caldera's ends with "; why: the gang
#                  needs 5 tasks and only 4 fit", the Why of `vcctl job explain` (its own extra)
#   counters       a master that succeeds after 3 s (TaskCompleted -> CompleteJob) and two
#                  workers: Completed with succeeded 1 and taskStatusCount
#                  {master: {Succeeded: 1}}, in .status and in `vcctl job list`
#                  (the kill counts the pods it retains, as v1.7 does: compatibility.md)
#   retry-budget   maxRetry 2, PodFailed and PodEvicted -> RestartJob, task bad fails 3 s after
#                  it starts, task good runs and takes 5 s to terminate (vc-nodesim restarted
#                  without --fast-delete): two restarts, then Failed with retryCount 2, the last
#                  failed pod kept (not terminating) and counted (failed 1), the good pod
#                  deleted (docs/volcano/job-controller.md §4.3 Restarting, §4.6)
#
# Every expectation here was checked against Volcano v1.7.0 (E2E_IMPL=volcano): the same script
# passes against it.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup

# fid_task NAME REPLICAS CPU RUN_SECONDS EXIT_CODE [EXTRA]: a task as task_yaml writes it, with a
# CPU request and an exit code ("" for none); RUN_SECONDS "" runs until deleted. GRACE sets
# terminationGracePeriodSeconds (default 1).
fid_task() {
	printf '  - name: %s\n    replicas: %s\n%s' "$1" "$2" "${6:+$6
}"
	printf '    template:\n      metadata:\n        annotations:\n'
	printf '          caldera.dev/e2e: fidelity\n'
	[ -z "$4" ] || printf '          sandbox.caldera.dev/run-seconds: "%s"\n' "$4"
	[ -z "$5" ] || printf '          sandbox.caldera.dev/exit-code: "%s"\n' "$5"
	printf '      spec:\n        restartPolicy: Never\n        terminationGracePeriodSeconds: %s\n' "${GRACE:-1}"
	printf '        containers:\n        - name: main\n          image: busybox\n'
	printf '          resources: {requests: {cpu: %s, memory: 64Mi}}\n' "$3"
}

# --- PodGroupPending -------------------------------------------------------------------------------

step "a gang that cannot fit: Warning PodGroupPending on the Job"
ns fid-pending
{
	job_yaml gang "  minAvailable: 5
  tasks:
$(fid_task w 5 6 '' '')"
} | apply_job -
want="PodGroup fid-pending:gang unschedulable, reason: "
is_caldera || want="PodGroup fid-pending:gang unschedule,reason: " # v1.7's wording
# pg_pending_event: a Warning PodGroupPending with the wanted prefix, carrying the gang's message;
# Caldera's ends with "; why: " and the Why of vcctl job explain (docs/compatibility.md).
pg_pending_event() {
	local out why
	out=$(job_events gang '{.type} {.reason}: {.message}') || return 1
	grep -F "Warning PodGroupPending: $want" <<<"$out" | grep -q 'tasks in gang unschedulable' ||
		{ echo "$out"; return 1; }
	is_caldera || return 0
	why=$("$VCCTL" job explain gang -n fid-pending --kubeconfig "$KUBECONFIG" | sed -n 's/^Why: //p')
	[ "$why" = "the gang needs 5 tasks and only 4 fit" ] || { echo "vcctl job explain: Why: $why"; return 1; }
	grep -F "Warning PodGroupPending: $want" <<<"$out" | grep -qF "; why: $why" ||
		{ echo "$out"; return 1; }
}
wait_for "the PodGroupPending warning" 30 pg_pending_event
eq "job phase" "$(jfield gang '{.status.state.phase}')" Pending
k delete vcjob gang --wait=false >/dev/null || fail "cannot delete job gang"
pass "Warning PodGroupPending '$want<gang message>$(is_caldera && echo '; why: <vcctl job explain'"'"'s Why>')' on the Job"

# --- counters of a finished job ---------------------------------------------------------------------

step "a Completed job keeps the counts of the pods it retains"
ns fid-count
{
	job_yaml cc "  minAvailable: 3
  tasks:
$(fid_task master 1 100m 3 0 '    policies:
    - {event: TaskCompleted, action: CompleteJob}')
$(fid_task worker 2 100m '' '')"
} | apply_job -
wait_phase cc Completed 60
workers_gone() { pods_are cc 1; }
wait_for "the workers to be deleted" 30 workers_gone
eq "counters" "$(jfield cc '{.status.succeeded} {.status.failed} {.status.running} {.status.pending}')" "1   "
eq "taskStatusCount" "$(jfield cc '{.status.taskStatusCount}' | tr -d ' \n')" '{"master":{"phase":{"Succeeded":1}}}'
eq "kubectl get vcjob" "$(k get vcjob cc --no-headers | awk '{print $1, $2, $3}')" "cc Completed 3"
out=$("$VCCTL" job list -n fid-count --kubeconfig "$KUBECONFIG" 2>&1) || fail "vcctl job list failed" "$out"
# Name Creation Phase JobType Replicas Min Pending Running Succeeded Failed Unknown RetryCount
row=$(awk '$1 == "cc" {print $3, $7, $8, $9, $10}' <<<"$out")
eq "vcctl job list: Phase Pending Running Succeeded Failed" "$row" "Completed 0 0 1 0"
pass "Completed with succeeded 1 and taskStatusCount {master: Succeeded 1}, also in vcctl job list"

# --- maxRetry exhausted ----------------------------------------------------------------------------

step "maxRetry 2 exhausted by PodFailed/PodEvicted -> RestartJob: Failed, the failed pod kept"
# Killed pods take their grace period to go (5 s for the good one) from here on, as with a real
# kubelet: the failing pod is gone long before, and the restart must not bring it back while the
# good one still terminates (a failure inside Restarting would consume no retry).
stop_daemon nodesim
start_daemon nodesim-graceful "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix node \
	--nodes 4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110 --heartbeat-period 5s
wait_for "4 Ready nodes" 30 nodes_ready 4
ns fid-retry
{
	job_yaml rx "  maxRetry: 2
  policies:
  - {event: PodFailed, action: RestartJob}
  - {event: PodEvicted, action: RestartJob}
  tasks:
$(fid_task bad 1 100m 3 1)
$(GRACE=5 fid_task good 1 100m '' '')"
} | apply_job -
wait_phase rx Failed 60
eq "retryCount when Failed" "$(jfield rx '{.status.retryCount}')" 2
# The last retry keeps finished pods: the failed one stays, the running one is deleted.
only_bad() {
	local p
	p=$(pods_of rx)
	[ "$p" = rx-bad-0 ] || { echo "pods: $p"; return 1; }
}
wait_for "only the failed pod to remain" 30 only_bad
eq "the kept pod: phase, deletionTimestamp" "$(pfield rx-bad-0 '{.status.phase},{.metadata.deletionTimestamp}')" "Failed,"
sleep 3 # a further restart would show within this time
eq "phase and retryCount a moment later" "$(jfield rx '{.status.state.phase} {.status.retryCount}')" "Failed 2"
eq "failed counter and taskStatusCount" \
	"$(jfield rx '{.status.failed} {.status.taskStatusCount.bad.phase.Failed} {.status.taskStatusCount.good}')" "1 1 "
pass "two restarts, then Failed with retryCount 2; the failed pod kept and counted, the good one deleted"

CUR_NS=
