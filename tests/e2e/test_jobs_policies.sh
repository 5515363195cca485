#!/usr/bin/env bash
# The Job controller end to end, part 2: lifecycle policies, retries, Commands and scaling, on
# the stack of jobs_lib.sh (vc-controller with every controller and the scheduler, vc-webhook,
# vc-nodesim). Pods run until deleted unless said otherwise; a pod is made to fail by setting
# sandbox.caldera.dev/exit-code on it (vc-nodesim ends it at once with that code).
#
#   restart-job    PodFailed -> RestartJob: every pod re-created (new uids) with retryCount 1 and
#                  version 1; the next failure exhausts maxRetry 2 -> Failed, the failed pod kept
#   restart-task   PodFailed -> RestartTask (task policy): that task's pods re-created, the other
#                  task's pod untouched, retryCount 1, version 0
#   restart-pod    exitCode 3 -> RestartPod: exit code 1 does nothing; 3 re-creates that pod only
#   min-success    minSuccess 2: Completed when two pods succeeded; the running pod is stopped
#   suspend        vcctl job suspend -> Aborted, pods gone; vcctl job resume -> Running again
#   scale          kubectl patch replicas 2 -> 4 -> 1: pods and the svc host list follow; the
#                  scale-down does not fire the job's PodEvicted -> RestartJob
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup

# event_seen JOB TEXT: the job has an event "REASON: MESSAGE" equal to TEXT.
event_seen() {
	local out
	out=$(job_events "$1") || return 1
	grep -qxF "$2" <<<"$out" || { echo "$out"; return 1; }
}
# new_uids BEFORE AFTER: every name of BEFORE has a different uid in AFTER.
all_new() {
	local line name
	while IFS= read -r line; do
		name=${line%%=*}
		grep -q "^$name=" <<<"$2" || return 1
		grep -qxF "$line" <<<"$2" && return 1
	done <<<"$1"
	return 0
}

# --- RestartJob, maxRetry ---------------------------------------------------------------------

step "PodFailed -> RestartJob, then maxRetry exhausted -> Failed"
ns restart-job
{
	job_yaml rj "  minAvailable: 2
  maxRetry: 2
  policies:
  - {event: PodFailed, action: RestartJob}
  tasks:
$(task_yaml a 2 '')"
} | apply_job -
wait_phase rj Running 60
wait_for "2 running pods" 30 running_pods rj 2
before=$(uids rj)
set_exit rj-a-0 1
wait_for "the restart to be counted" 30 status_is rj "Running 1 1"
wait_for "2 running pods after the restart" 60 running_pods rj 2
after=$(uids rj)
all_new "$before" "$after" || fail "not every pod was re-created" "$(printf 'before:\n%s\nafter:\n%s' "$before" "$after")"
for p in rj-a-0 rj-a-1; do
	eq "version/retry annotations of $p" "$(pfield $p '{.metadata.annotations.volcano\.sh/job-version} {.metadata.annotations.volcano\.sh/job-retry-count}')" "1 1"
done
check "RestartJob event" event_seen rj "ExecuteAction: Start to execute action RestartJob "
pass "every pod re-created with version 1 and retryCount 1; job Running again"
failed_uid=$(uid_of rj-a-1)
set_exit rj-a-1 1
wait_phase rj Failed 60
eq "phase and retryCount when Failed" "$(status rj | cut -d" " -f1,2)" "Failed 2"
# The last retry keeps finished pods: the failed pod stays, the other one is deleted.
only_failed() { [ "$(pods_of rj)" = rj-a-1 ]; }
wait_for "only the failed pod to remain" 30 only_failed
eq "the failed pod" "$(uid_of rj-a-1) $(pfield rj-a-1 '{.status.phase}')" "$failed_uid Failed"
pass "second failure with maxRetry 2: Failed, retryCount 2, the failed pod kept"

# --- RestartTask ---------------------------------------------------------------------------------

step "PodFailed -> RestartTask"
ns restart-task
{
	job_yaml rt "  minAvailable: 3
  tasks:
$(task_yaml a 1 '')
$(task_yaml b 2 '' '    policies:
    - {event: PodFailed, action: RestartTask}')"
} | apply_job -
wait_phase rt Running 60
wait_for "3 running pods" 30 running_pods rt 3
a_uid=$(uid_of rt-a-0)
b_before=$(uids rt | grep '^rt-b-')
set_exit rt-b-1 2
wait_for "the task restart to be counted" 30 status_is rt "Running 1 0"
wait_for "3 running pods after the task restart" 60 running_pods rt 3
all_new "$b_before" "$(uids rt | grep '^rt-b-')" || fail "task b was not re-created" "$(uids rt)"
eq "pod of task a" "$(uid_of rt-a-0)" "$a_uid"
eq "annotations of rt-b-0" "$(pfield rt-b-0 '{.metadata.annotations.volcano\.sh/job-version} {.metadata.annotations.volcano\.sh/job-retry-count}')" "0 1"
check "RestartTask event" event_seen rt "ExecuteAction: Start to execute action RestartTask "
pass "task b's pods re-created, task a's pod untouched; retryCount 1, version 0"

# --- exitCode -> RestartPod ---------------------------------------------------------------------

step "exitCode 3 -> RestartPod"
ns restart-pod
{
	job_yaml rp "  minAvailable: 2
  policies:
  - {exitCode: 3, action: RestartPod}
  tasks:
$(task_yaml a 3 '')"
} | apply_job -
wait_phase rp Running 60
wait_for "3 running pods" 30 running_pods rp 3
before=$(uids rp)
set_exit rp-a-0 1
wait_for "rp-a-0 Failed" 30 pods_are rp 1 Failed
sleep 2
eq "status after exit code 1" "$(status rp)" "Running 0 0"
eq "uids after exit code 1" "$(uids rp)" "$before"
u2=$(uid_of rp-a-2)
set_exit rp-a-1 3
wait_for "the pod restart to be counted" 30 status_is rp "Running 1 0"
new_pod() { [ "$(uid_of rp-a-1)" != "$(grep '^rp-a-1=' <<<"$before" | cut -d= -f2)" ] && [ "$(pfield rp-a-1 '{.status.phase}')" = Running ]; }
wait_for "rp-a-1 re-created and Running" 60 new_pod
eq "rp-a-2 untouched" "$(uid_of rp-a-2)" "$u2"
eq "rp-a-0 still Failed" "$(pfield rp-a-0 '{.status.phase}')" Failed
check "RestartPod event" event_seen rp "ExecuteAction: Start to execute action RestartPod "
pass "exit code 1 ignored; exit code 3 re-created that pod only (retryCount 1)"

# --- minSuccess ------------------------------------------------------------------------------------

step "minSuccess"
ns min-success
{
	job_yaml ms "  minAvailable: 3
  minSuccess: 2
  tasks:
$(task_yaml fast 2 3)
$(task_yaml slow 1 '')"
} | apply_job -
wait_phase ms Completed 60
slow_gone() { gone pod -n min-success ms-slow-0; }
wait_for "the slow pod to be stopped" 30 slow_gone
eq "fast pods" "$(k get pods -l volcano.sh/task-spec=fast -o jsonpath='{.items[*].status.phase}')" "Succeeded Succeeded"
pass "Completed once 2 pods succeeded; the running pod stopped"

# --- suspend / resume ------------------------------------------------------------------------------

step "vcctl job suspend / resume"
ns suspend
{
	job_yaml sr "  minAvailable: 2
  plugins: {svc: []}
  tasks:
$(task_yaml a 2 '')"
} | apply_job -
wait_phase sr Running 60
out=$("$VCCTL" job suspend -N sr -n suspend --kubeconfig "$KUBECONFIG" 2>&1) || fail "vcctl job suspend failed" "$out"
wait_phase sr Aborted 60
wait_for "the pods to go" 30 pods_are sr 0
wait_for "the svc ConfigMap to go" 30 gone configmap -n suspend sr-svc
check "AbortJob command event" event_seen sr "CommandIssued: Start to execute command AbortJob, and clean it up to make sure executed not more than once."
eq "commands left" "$(k get commands.bus.volcano.sh -o name)" ""
pass "suspended: Aborted, pods and plugin objects gone, the Command consumed"
out=$("$VCCTL" job resume -N sr -n suspend --kubeconfig "$KUBECONFIG" 2>&1) || fail "vcctl job resume failed" "$out"
wait_phase sr Running 60
wait_for "2 running pods after resume" 60 running_pods sr 2
eq "retryCount after resume" "$(jfield sr '{.status.retryCount}')" 1
check "the svc ConfigMap is back" k get configmap sr-svc
pass "resumed: Running with 2 pods, retryCount 1"

# --- scale -------------------------------------------------------------------------------------------

step "scale up and down"
ns scale
{
	job_yaml sc "  minAvailable: 2
  plugins: {svc: []}
  policies:
  - {event: PodEvicted, action: RestartJob}
  tasks:
$(task_yaml a 2 '')"
} | apply_job -
wait_phase sc Running 60
wait_for "2 running pods" 30 running_pods sc 2
u0=$(uid_of sc-a-0)
out=$(k patch vcjob sc --type=json -p '[{"op":"replace","path":"/spec/tasks/0/replicas","value":4}]' 2>&1) ||
	fail "kubectl patch (scale up) failed" "$out"
wait_for "4 running pods" 60 running_pods sc 4
eq "pods after scale up" "$(pods_of sc | tr '\n' ' ')" "sc-a-0 sc-a-1 sc-a-2 sc-a-3 "
eq "sc-a-0 kept" "$(uid_of sc-a-0)" "$u0"
num_is() { [ "$(k get configmap sc-svc -o jsonpath='{.data.VC_A_NUM}')" = "$1" ]; }
wait_for "VC_A_NUM 4" 30 num_is 4
eq "a.host" "$(k get configmap sc-svc -o jsonpath='{.data.a\.host}')" "sc-a-0.sc
sc-a-1.sc
sc-a-2.sc
sc-a-3.sc"
pass "scaled up to 4: 2 pods added, the host list follows"
out=$(k patch vcjob sc --type=json -p '[{"op":"replace","path":"/spec/minAvailable","value":1},{"op":"replace","path":"/spec/tasks/0/minAvailable","value":1},{"op":"replace","path":"/spec/tasks/0/replicas","value":1}]' 2>&1) ||
	fail "kubectl patch (scale down) failed" "$out"
# The job has PodEvicted -> RestartJob: its own scale-down is no eviction in Caldera (the
# surplus pods are marked out-of-sync before their delete); Volcano v1.7 restarts it (its
# issue #4072; docs/compatibility.md). The Volcano branch follows v1.7's source (deletePod in
# job_controller_handler.go gives PodEvicted for any delete of an unmarked pod); it has not run
# here: under E2E_IMPL=volcano the restart-job scenario above timed out first (2026-11-28).
if ! is_caldera; then
	retried() { [ "$(jfield sc '{.status.retryCount}')" = 1 ]; }
	wait_for "Volcano v1.7 restarts the job on its scale-down" 60 retried
fi
wait_for "1 pod" 60 pods_are sc 1
wait_for "VC_A_NUM 1" 30 num_is 1
eq "PodGroup minMember" "$(k get podgroup.scheduling.volcano.sh -o jsonpath='{.items[0].spec.minMember}')" 1
if is_caldera; then
	eq "the pod left" "$(pods_of sc) $(uid_of sc-a-0)" "sc-a-0 $u0"
	eq "phase after scale down" "$(jfield sc '{.status.state.phase}')" Running
	sleep 3
	IFS=, read -r ph rc ver < <(jfield sc '{.status.state.phase},{.status.retryCount},{.status.version}{"\n"}')
	eq "phase, retryCount, version after scale down" "$ph ${rc:-0} ${ver:-0}" "Running 0 0"
	eq "sc-a-0 still the same pod" "$(uid_of sc-a-0)" "$u0"
fi
pass "scaled down to 1: surplus pods deleted, host list and PodGroup follow"
CUR_NS=
