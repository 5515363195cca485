#!/usr/bin/env bash
# The Job controller end to end, part 3: vc-controller killed with SIGKILL in the middle of
# creating the pods of a 100-pod job, then started again. The restarted controller learns from
# its informers what exists and creates only what is missing: the job completes with exactly
# 100 pods, the pods created before the crash are the same objects (same uids), nothing was
# created twice (every pod keeps version 0), and the PodGroup is the same one.
#
# The first controller runs with a low client rate limit (20 requests/s) so that the creation
# takes seconds and the kill lands in its middle.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup

step "kill -9 while the pods of a 100-pod job are created"
ns crash
N=100
ctrl_stop
ctrl_start --kube-api-qps 20 --kube-api-burst 20
{
	job_yaml big "  minAvailable: $N
  plugins: {env: [], svc: []}
  tasks:
$(task_yaml w $N 8)"
} | apply_job -
some_pods() {
	local n
	n=$(npods big)
	[ "$n" -ge 15 ] || { echo "$n pods"; return 1; }
}
E2E_POLL=0.1 wait_for "the first pods of big" 60 some_pods
ctrl_kill9
sleep 1 # creations in flight land
at_kill=$(uids big)
n_kill=$(grep -c . <<<"$at_kill")
[ "$n_kill" -lt "$N" ] || fail "all $N pods existed before the kill: the crash did not land mid-creation"
uid=$(jfield big '{.metadata.uid}')
pg_uid=$(k get podgroup.scheduling.volcano.sh "big-$uid" -o jsonpath='{.metadata.uid}') ||
	fail "no PodGroup big-$uid before the kill"
pass "killed vc-controller with $n_kill of $N pods created"

step "restart: the job completes with exactly $N pods"
ctrl_start
wait_phase big Completed 120
after=$(uids big)
eq "pods after the restart" "$(grep -c . <<<"$after")" "$N"
want=$(for i in $(seq 0 $((N - 1))); do echo "big-w-$i"; done | sort)
eq "pod names" "$(cut -d= -f1 <<<"$after" | sort)" "$want"
while IFS= read -r line; do
	grep -qxF "$line" <<<"$after" || fail "pod ${line%%=*} was re-created after the restart (uid changed)"
done <<<"$at_kill"
versions=$(k get pods -l volcano.sh/job-name=big -o jsonpath='{range .items[*]}{.metadata.annotations.volcano\.sh/job-version}{.metadata.annotations.volcano\.sh/job-retry-count}{"\n"}{end}' | sort -u)
eq "version and retry count of every pod" "$versions" "00"
eq "succeeded pods" "$(npods big Succeeded)" "$N"
eq "retryCount" "$(jfield big '{.status.retryCount}')" ""  # 0 is omitted
# The PodGroup went with the completion (finished jobs keep none); it was not replaced before.
creates=$(k get events --field-selector involvedObject.kind=PodGroup -o jsonpath='{range .items[*]}{.involvedObject.uid}{"\n"}{end}' | sort -u)
grep -qxF "$pg_uid" <<<"$creates" || fail "no event of the PodGroup $pg_uid"
[ "$(grep -c . <<<"$creates")" = 1 ] || fail "events of more than one PodGroup: it was re-created" "$creates"
pass "Completed with $N pods; the $n_kill pods from before the crash kept their uids; one PodGroup"
CUR_NS=
