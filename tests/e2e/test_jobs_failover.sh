#!/usr/bin/env bash
# The Job controller end to end: pod events that come while no controller runs
# (docs/volcano/job-controller.md §8.40). Found by bench/soak.sh: a pod that finishes after the
# leader was killed and before the next one leads is seen by the new leader's first list as an
# add, from which Volcano derives no policy event.
#
# Two Jobs run: `finish` (task master with TaskCompleted -> CompleteJob, task worker running until
# deleted) and `retry` (PodFailed -> RestartJob, maxRetry 3, two pods). vc-controller is killed
# (SIGKILL, as a lost leader; under E2E_IMPL=volcano Volcano's controller-manager and scheduler),
# and while none runs vc-nodesim ends finish-master-0 with exit code 0 (Succeeded) and retry-a-0
# with 1 (Failed). Then the controller starts again.
#
# Caldera derives the events the unseen updates would have given (compatibility.md): `finish`
# Completed with its worker stopped, `retry` restarted exactly once (retryCount 1, version 1,
# both pods re-created) and Running again.
#
# Checked against Volcano v1.7.0 (E2E_IMPL=volcano): its addPod queues OutOfSync only, so it
# misses both: `finish` stays Running with its worker, `retry` is not restarted (Running,
# retryCount 0, version 0, the failed pod kept). The scenario asserts that under E2E_IMPL=volcano,
# so that the difference stays a checked fact.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup

# pod_phase_is POD PHASE
pod_phase_is() {
	local got
	got=$(pfield "$1" '{.status.phase}') || return 1
	[ "$got" = "$2" ] || { echo "pod $1 is '$got'"; return 1; }
}
# events_named JOB TEXT: how many of the job's events read "REASON: MESSAGE" = TEXT.
events_named() { job_events "$1" | grep -cxF "$2"; }

step "two Jobs running: TaskCompleted -> CompleteJob, PodFailed -> RestartJob"
ns failover
{
	job_yaml finish "  minAvailable: 2
  tasks:
$(task_yaml master 1 '' '    policies:
    - {event: TaskCompleted, action: CompleteJob}')
$(task_yaml worker 1 '')"
} | apply_job -
{
	job_yaml retry "  minAvailable: 2
  maxRetry: 3
  policies:
  - {event: PodFailed, action: RestartJob}
  tasks:
$(task_yaml a 2 '')"
} | apply_job -
wait_phase finish Running 60
wait_phase retry Running 60
wait_for "2 running pods of finish" 30 running_pods finish 2
wait_for "2 running pods of retry" 30 running_pods retry 2
retry_before=$(uids retry)
pass "finish and retry Running, two pods each"

step "the controller killed; meanwhile finish-master-0 succeeds and retry-a-0 fails"
ctrl_kill9
set_exit finish-master-0 0
set_exit retry-a-0 1
wait_for "finish-master-0 Succeeded" 30 pod_phase_is finish-master-0 Succeeded
wait_for "retry-a-0 Failed" 30 pod_phase_is retry-a-0 Failed
eq "finish while no controller runs" "$(status finish)" "Running 0 0"
eq "retry while no controller runs" "$(status retry)" "Running 0 0"
pass "both pods finished with no controller running"

step "the controller started again"
ctrl_start
if is_caldera; then
	wait_phase finish Completed 60
	gone_worker() { pods_are finish 0 Running; }
	wait_for "finish's worker to be stopped" 30 gone_worker
	eq "CompleteJob executed" "$(events_named finish "ExecuteAction: Start to execute action CompleteJob ")" 1
	pass "finish Completed (TaskCompleted derived from the pod that succeeded unseen)"
	wait_for "retry restarted once" 60 status_is retry "Running 1 1"
	wait_for "2 running pods of retry after the restart" 60 running_pods retry 2
	after=$(uids retry)
	while IFS= read -r line; do
		! grep -qxF "$line" <<<"$after" || fail "pod ${line%%=*} was not re-created" "$after"
	done <<<"$retry_before"
	for p in retry-a-0 retry-a-1; do
		eq "version/retry annotations of $p" "$(pfield $p '{.metadata.annotations.volcano\.sh/job-version} {.metadata.annotations.volcano\.sh/job-retry-count}')" "1 1"
	done
	eq "RestartJob executed" "$(events_named retry "ExecuteAction: Start to execute action RestartJob ")" 1
	sleep 5 # a second restart would come within this
	eq "retry after 5 s more" "$(status retry)" "Running 1 1"
	pass "retry restarted exactly once: retryCount 1, version 1, both pods re-created"
else
	# Volcano v1.7: the first list's adds give OutOfSync; the syncs change nothing here.
	ok_volcano() { status_is finish "Running 0 0" && status_is retry "Running 0 0"; }
	sleep 20
	check "v1.7 leaves both jobs as they were" ok_volcano
	eq "finish's worker" "$(pod_phase_is finish-worker-0 Running && echo running)" running
	eq "retry's failed pod kept" "$(uid_of retry-a-0)" "$(grep '^retry-a-0=' <<<"$retry_before" | cut -d= -f2)"
	pass "Volcano v1.7 misses both events: finish Running, retry not restarted"
fi
CUR_NS=
