#!/usr/bin/env bash
# vcctl (and kubectl-vc) against the local cluster with Volcano's CRDs and the real kubectl:
# every file of examples/ passes `kubectl apply --dry-run=server`; `job run` creates the Job its
# flags describe; `job list` (-q, -S, --selector, "No resources found" after the filters) and
# `job view` show it in Volcano HEAD's layout, `job list` byte for byte as Volcano v1.7's vcctl
# prints it where HEAD did not change it (when that binary is there); `pod list` by job, queue
# and namespace; `job suspend` and `job resume` create Commands with the right action, target
# and owner; the v* programs (vsub, vjobs, vsuspend, vqueues, vcancel) as Volcano ships them;
# `job delete` removes it; `queue create/list/get/operate/delete` (Parent column, PodGroup
# counts per phase, CloseQueue/OpenQueue Commands, weight updates); errors from the server
# (unknown job or queue) and from bad input print Volcano's messages and exit non-zero. No
# controller runs: the objects are checked as vcctl wrote them.
#
# VCCTL (default build/vcctl, made by `make build`) is the binary to run; point it at an ASan
# build to check it for leaks and errors against the real server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

VCCTL=${VCCTL:-${E2E_BIN_DIR:-$E2E_ROOT/build}/vcctl}
[ -x "$VCCTL" ] || fail "$VCCTL is missing: run make build (or set VCCTL)"

# shellcheck disable=SC2119 # no up.sh flags
e2e_cluster_up

step "CRDs"
kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
# The first requests for a new CRD's kind can race its discovery; wait until Jobs can be listed.
wait_for "Jobs to be served" 30 kube get jobs.batch.volcano.sh
pass "Volcano's CRDs established"

# vc ARGS...: vcctl with the test's kubeconfig given explicitly (as in Volcano, flags follow the
# verb: `vcctl --kubeconfig F job list` is an unknown flag).
vc() { "$VCCTL" "$@" --kubeconfig "$KUBECONFIG"; }
# vc_ok WHAT ARGS...: vcctl must succeed; prints its output.
vc_ok() {
	local what=$1 out
	shift
	out=$(vc "$@" 2>&1) || fail "$what: vcctl $* failed" "$out"
	printf '%s\n' "$out"
}
# same GOT WANT WHAT: exact comparison.
same() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }

# --- examples/ -------------------------------------------------------------------------------

step "examples/ pass kubectl apply --dry-run=server"
n=0
for f in "$E2E_ROOT"/examples/*.yaml; do
	out=$(kube apply --dry-run=server -f "$f" 2>&1) || fail "$(basename "$f") does not apply" "$out"
	grep -q 'created (server dry run)' <<<"$out" || fail "$(basename "$f"): unexpected output" "$out"
	n=$((n + 1))
done
[ $n -ge 6 ] || fail "expected at least 6 examples, found $n"
[ -z "$(kube get jobs.batch.volcano.sh,podgroups.scheduling.volcano.sh,pods -o name)" ] ||
	fail "a dry run left objects behind"
pass "$n example files accepted by the API server (dry run)"

# --- jobs --------------------------------------------------------------------------------------

step "job list with no jobs"
out=$(vc_ok "empty list" job list)
same "$out" "No resources found" "job list on an empty namespace"

step "job run"
out=$(vc_ok "job run" job run -N e2e-job -r 3 -m 2 -i busybox:1.36 -R cpu=250m,memory=64Mi -L cpu=1,memory=128Mi)
same "$out" "run job e2e-job successfully" "job run output"
jp() { kube get jobs.batch.volcano.sh "$1" -o jsonpath="$2"; }
same "$(jp e2e-job '{.spec.minAvailable}/{.spec.schedulerName}/{.spec.tasks[0].replicas}')" "2/volcano/3" "spec"
same "$(jp e2e-job '{.spec.tasks[0].template.spec.containers[0].image}/{.spec.tasks[0].template.spec.containers[0].name}')" \
	"busybox:1.36/e2e-job" "container"
same "$(jp e2e-job '{.spec.tasks[0].template.spec.containers[0].resources.requests.cpu}/{.spec.tasks[0].template.spec.containers[0].resources.limits.memory}')" \
	"250m/128Mi" "resources"
same "$(jp e2e-job '{.spec.tasks[0].template.metadata.labels.job\.volcano\.sh}/{.spec.tasks[0].template.spec.restartPolicy}')" \
	"e2e-job/Never" "template"
kube create namespace e2e-other >/dev/null
vc_ok "job run in a namespace" job run --name other-job --namespace e2e-other --replicas 1 >/dev/null
pass "job run created the Jobs its flags describe"

step "job list and view"
out=$(vc_ok "job list" job list)
printf '%s\n' "$out"
head=$(sed -n 1p <<<"$out")
same "$head" "$(printf '%-10s%-15s%-12s%-12s%-12s%-6s%-10s%-10s%-12s%-10s%-12s%-10s' Name Creation Phase JobType Replicas Min Pending Running Succeeded Failed Unknown RetryCount)" "job list header"
row=$(sed -n 2p <<<"$out")
today=$(date +%Y-%m-%d)
same "$row" "$(printf '%-10s%-15s%-12s%-12s%-12d%-6d%-10d%-10d%-12d%-10d%-12d%-10d' e2e-job "$today" '' Batch 3 0 0 0 0 0 0 0)" "job list row"
[ "$(wc -l <<<"$out")" = 2 ] || fail "job list shows jobs of other namespaces" "$out"
out=$(vc_ok "job list -A" job list --all-namespaces)
grep -q '^Namespace   Name        Creation' <<<"$out" || fail "no Namespace column" "$out"
grep -q '^e2e-other   other-job   ' <<<"$out" || fail "other-job missing from --all-namespaces" "$out"
out=$(vc_ok "job list --selector" job list --all-namespaces --selector other)
{ [ "$(wc -l <<<"$out")" = 2 ] && grep -q 'other-job' <<<"$out"; } || fail "--selector" "$out"
out=$(vc_ok "job list -S" job list -S kube-batch)
# Volcano HEAD: filters that leave no job say so (v1.7 printed a bare header).
same "$out" "No resources found" "--scheduler kube-batch"
out=$(vc_ok "job list -q" job list --all-namespaces -q e2e-q)
same "$out" "No resources found" "job list -q of a queue without jobs"
kube patch jobs.batch.volcano.sh other-job -n e2e-other --type merge -p '{"spec":{"queue":"e2e-q"}}' >/dev/null ||
	fail "cannot set other-job's queue"
out=$(vc_ok "job list -q" job list --all-namespaces -q e2e-q)
{ [ "$(wc -l <<<"$out")" = 2 ] && grep -q '^e2e-other   other-job   ' <<<"$out"; } ||
	fail "job list -q e2e-q lists other-job alone, in columns as wide as it needs" "$out"
out=$(vc_ok "job view" job view -N e2e-job)
for want in $'Name:       \te2e-job' $'Namespace:  \tdefault' $'  Min Available:     \t2' \
	$'  Scheduler Name:    \tvolcano' $'    Replicas:\t3' $'          Image:\tbusybox:1.36' \
	$'              Cpu:   \t250m' $'        Restart Policy:   \tNever' $'Events: \t<none>'; do
	grep -qxF -- "$want" <<<"$out" || fail "job view lacks the line '$want'" "$out"
done
same "$(grep -F 'UID:' <<<"$out" | cut -f2)" "$(jp e2e-job '{.metadata.uid}')" "job view UID"
! grep -q 'Self Link' <<<"$out" || fail "job view prints the obsolete Self Link line" "$out"
pass "job list and view in Volcano's layout"

# Where Volcano v1.7 prints what HEAD prints (job list without filters), its vcctl must agree
# byte for byte. VOLCANO_VCCTL names its binary (default: what ../shared/volcano/build.sh built).
VOLCANO_VCCTL=${VOLCANO_VCCTL:-${VOLCANO_BIN:-${CALDERA_CACHE:-$HOME/.cache/caldera}/volcano-1.7.0/bin}/vcctl}
if [ -x "$VOLCANO_VCCTL" ]; then
	step "job list as Volcano v1.7's vcctl prints it"
	for args in "job list" "job list --all-namespaces" "job list -n e2e-other"; do
		# shellcheck disable=SC2086 # args holds several words
		want=$("$VOLCANO_VCCTL" $args --kubeconfig "$KUBECONFIG" 2>&1) || fail "v1.7 vcctl $args failed" "$want"
		# shellcheck disable=SC2086
		got=$(vc_ok "$args" $args)
		same "$got" "$want" "vcctl $args against v1.7's"
	done
	pass "job list matches Volcano v1.7's vcctl"
else
	echo "note: $VOLCANO_VCCTL is missing: not compared with Volcano v1.7's vcctl" >&2
fi

step "pod list"
out=$(vc_ok "pod list (none)" pod list)
same "$out" "No resources found" "pod list with no pods"
# Pods labelled as the job controller labels them (no nodes here: they stay Pending), and one
# of another workload that only carries the queue annotation.
mkpod() { # NAME NS LABELS ANNOTATIONS
	kube create -f - >/dev/null <<POD || fail "cannot create pod $1"
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $2, labels: {$3}, annotations: {$4}}
spec: {containers: [{name: c, image: busybox}, {name: d, image: busybox}]}
POD
}
mkpod e2e-job-task-0 default '"volcano.sh/job-name": e2e-job, "volcano.sh/queue-name": e2e-q' ''
mkpod e2e-job-task-1 default '"volcano.sh/job-name": e2e-job, "volcano.sh/queue-name": e2e-q' ''
mkpod plain default 'app: web' '"scheduling.volcano.sh/queue-name": e2e-q'
mkpod other-job-task-0 e2e-other '"volcano.sh/job-name": other-job, "volcano.sh/queue-name": q2' ''
out=$(vc_ok "pod list" pod list)
printf '%s\n' "$out"
grep -qE '^Name {18}Ready {6}Status {9}Restart {2}Age {5,}$' <<<"$out" || fail "pod list header" "$out"
grep -qE '^e2e-job-task-0 {8}0/2 {8}Pending {8}0 {8}[0-9]+s +$' <<<"$out" || fail "pod list row" "$out"
[ "$(wc -l <<<"$out")" = 3 ] || fail "pod list: the vcjob pods of the namespace only" "$out"
out=$(vc_ok "pod list -j" pod list -j other-job -n e2e-other)
{ [ "$(wc -l <<<"$out")" = 2 ] && grep -q '^other-job-task-0 ' <<<"$out"; } || fail "pod list -j" "$out"
out=$(vc_ok "pod list -q" pod list -q e2e-q)
{ [ "$(wc -l <<<"$out")" = 4 ] && [ "$(sed -n 4p <<<"$out" | cut -d' ' -f1)" = plain ]; } ||
	fail "pod list -q: the queue's vcjob pods, then the annotated pod" "$out"
out=$(vc_ok "pod list --all-namespaces" pod list --all-namespaces)
[ "$(wc -l <<<"$out")" = 4 ] || fail "pod list --all-namespaces" "$out"
expect_fail_with 'Failed to list pod: the input vcjob e2e-job does not match the queue q2' \
	vc pod list -j e2e-job -q q2
out=$(vc_ok "pod list -j (none)" pod list -j nope)
same "$out" "No resources found" "pod list -j of a job without pods"
kube delete pod --all -n default --wait=false >/dev/null
kube delete pod --all -n e2e-other --wait=false >/dev/null
pass "pod list: vcjob pods by job, queue and namespace in Volcano HEAD's layout"

step "job suspend and resume create Commands"
uid=$(jp e2e-job '{.metadata.uid}')
cmd_fields='{range .items[*]}{.action}|{.metadata.generateName}|{.target.apiVersion}|{.target.kind}|{.target.name}|{.target.uid}|{.target.controller}|{.metadata.ownerReferences[0].uid}|{.metadata.ownerReferences[0].controller}{"\n"}{end}'
vc_ok "suspend" job suspend -N e2e-job >/dev/null
same "$(kube get commands.bus.volcano.sh -o jsonpath="$cmd_fields")" \
	"AbortJob|e2e-job-abortjob-|batch.volcano.sh/v1alpha1|Job|e2e-job|$uid|true|$uid|true" "suspend Command"
kube delete commands.bus.volcano.sh --all >/dev/null
vc_ok "resume" job resume --name e2e-job >/dev/null
same "$(kube get commands.bus.volcano.sh -o jsonpath="$cmd_fields")" \
	"ResumeJob|e2e-job-resumejob-|batch.volcano.sh/v1alpha1|Job|e2e-job|$uid|true|$uid|true" "resume Command"
kube delete commands.bus.volcano.sh --all >/dev/null
vc_ok "suspend in a namespace" job suspend -N other-job -n e2e-other >/dev/null
same "$(kube get commands.bus.volcano.sh -n e2e-other -o jsonpath='{.items[0].action}/{.items[0].target.name}')" \
	"AbortJob/other-job" "Command in the job's namespace"
pass "AbortJob and ResumeJob Commands target and are owned by the Job"

step "kubectl vc (the plugin)"
mkdir -p "$E2E_DIR/bin"
ln -sf "$VCCTL" "$E2E_DIR/bin/kubectl-vc"
out=$(PATH="$E2E_DIR/bin:$PATH" kubectl vc job list --kubeconfig "$KUBECONFIG" 2>&1) ||
	fail "kubectl vc job list failed" "$out"
grep -q '^e2e-job ' <<<"$out" || fail "kubectl vc job list lacks e2e-job" "$out"
out=$(PATH="$E2E_DIR/bin:$PATH" kubectl vc job bogus 2>&1) && fail "kubectl vc job bogus succeeded" "$out"
grep -qF 'unknown command "bogus" for "kubectl vc job"' <<<"$out" || fail "plugin name in errors" "$out"
pass "kubectl vc behaves as vcctl"

step "Volcano's v* programs (vcctl under another name)"
for p in vsub vjobs vqueues vcancel vsuspend vresume; do
	ln -sf "$VCCTL" "$E2E_DIR/bin/$p"
done
v() { PATH="$E2E_DIR/bin:$PATH" "$@" --kubeconfig "$KUBECONFIG"; }
out=$(v vsub -n v-job -N e2e-other -c "sleep 'a while'" 2>&1) || fail "vsub failed" "$out"
same "$out" "run job v-job successfully" "vsub output"
same "$(kube get jobs.batch.volcano.sh v-job -n e2e-other -o jsonpath='{.spec.tasks[0].template.spec.containers[0].command}')" \
	'["sleep","a while"]' "vsub -c"
out=$(v vjobs -N e2e-other -n v-job 2>&1) || fail "vjobs -n failed" "$out"
grep -qxF $'Name:       \tv-job' <<<"$out" || fail "vjobs -n shows the job" "$out"
out=$(v vjobs -N e2e-other 2>&1) || fail "vjobs failed" "$out"
grep -q '^v-job ' <<<"$out" || fail "vjobs lists the namespace's jobs" "$out"
out=$(v vsuspend -N e2e-other -n v-job 2>&1) || fail "vsuspend failed" "$out"
same "$(kube get commands.bus.volcano.sh -n e2e-other -o jsonpath='{range .items[*]}{.action}/{.target.name}{"\n"}{end}' | grep v-job)" \
	"AbortJob/v-job" "vsuspend Command"
out=$(v vqueues 2>&1) || fail "vqueues failed" "$out"
same "$out" "No resources found" "vqueues before any queue exists"
out=$(v vcancel -N e2e-other -n v-job 2>&1) || fail "vcancel failed" "$out"
same "$out" "cancel job v-job successfully" "vcancel output"
out=$(v vcancel 2>&1) && fail "vcancel without a name succeeded" "$out"
same "$out" "Failed to: job name is mandatory to cancel a particular job" "vcancel error"
kube delete commands.bus.volcano.sh -n e2e-other --all >/dev/null
pass "vsub, vjobs, vsuspend, vqueues and vcancel run as Volcano's programs"

step "errors"
expect_fail_with 'Failed to view job: jobs.batch.volcano.sh "nope" not found' vc job view -N nope
expect_fail_with 'Failed to suspend job: jobs.batch.volcano.sh "nope" not found' vc job suspend -N nope
expect_fail_with 'Failed to delete job: jobs.batch.volcano.sh "nope" not found' vc job delete -N nope
expect_fail_with 'Failed to resume job: job name is mandatory to resume a particular job' vc job resume
expect_fail_with 'Failed to run job: job name cannot be left blank' vc job run
expect_fail_with 'Failed to run job: invalid argument syntax cpu, expected <resource>=<value>' \
	vc job run -N x -R cpu
expect_fail_with 'Error: unknown command "start" for "vcctl job"' vc job start
expect_fail_with "Error: unknown shorthand flag: 'x' in -x" vc job list -x
expect_fail_with 'already exists' vc job run -N e2e-job
[ -z "$(kube get commands.bus.volcano.sh -o name)" ] || fail "a failed command left a Command"
pass "server and input errors reported, non-zero exit"

step "job delete"
out=$(vc_ok "job delete" job delete -N e2e-job)
same "$out" "delete job e2e-job successfully" "job delete output"
gone jobs.batch.volcano.sh e2e-job || fail "e2e-job still exists"
pass "job delete removed the Job"

# --- queues ------------------------------------------------------------------------------------

step "queue create, list, get"
out=$(vc_ok "queue list (none)" queue list)
same "$out" "No resources found" "queue list with no queues"
vc_ok "queue create" queue create -n e2e-q -w 3 >/dev/null
vc_ok "queue create (defaults)" queue create >/dev/null # Volcano's default name: test
same "$(kube get queues.scheduling.volcano.sh e2e-q -o jsonpath='{.spec.weight}')" 3 "queue weight"
out=$(PATH="$E2E_DIR/bin:$PATH" vqueues -n e2e-q --kubeconfig "$KUBECONFIG" 2>&1) || fail "vqueues -n failed" "$out"
same "$out" "$(printf '%-25s%-8s%-8s%-8s%-8s%-8s%-8s\n%-25s%-8d%-8s%-8d%-8d%-8d%-8d' Name Weight State Inqueue Pending Running Unknown e2e-q 3 '' 0 0 0 0)" "vqueues -n"
same "$(kube get queues.scheduling.volcano.sh test -o jsonpath='{.spec.weight}')" 1 "default weight"
# PodGroups in e2e-q, by phase (the CRD has no status subresource: status is set at creation).
for pg in r1:Running r2:Running p1:Pending i1:Inqueue c1:Completed; do
	kube create -f - >/dev/null <<EOF || fail "cannot create PodGroup ${pg%%:*}"
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: ${pg%%:*}}
spec: {minMember: 1, queue: e2e-q}
status: {phase: ${pg#*:}}
EOF
done
out=$(vc_ok "queue list" queue list)
printf '%s\n' "$out"
# Volcano HEAD's layout: a Parent column after State (v1.7 has none).
same "$(sed -n 1p <<<"$out")" "$(printf '%-25s%-8s%-8s%-8s%-8s%-8s%-8s%-8s%-8s' Name Weight State Parent Inqueue Pending Running Unknown Completed)" "queue list header"
same "$(grep '^e2e-q ' <<<"$out")" "$(printf '%-25s%-8d%-8s%-8s%-8d%-8d%-8d%-8d%-8d' e2e-q 3 '' '' 1 1 2 0 1)" "queue list row"
out=$(vc_ok "queue get" queue get -n e2e-q)
same "$out" "$(printf '%-25s%-8s%-8s%-8s%-8s%-8s%-8s%-8s%-8s\n%-25s%-8d%-8s%-8s%-8d%-8d%-8d%-8d%-8d' \
	Name Weight State Parent Inqueue Pending Running Unknown Completed e2e-q 3 '' '' 1 1 2 0 1)" "queue get"
pass "queues created; list and get count PodGroups by phase"

step "queue operate"
quid=$(kube get queues.scheduling.volcano.sh e2e-q -o jsonpath='{.metadata.uid}')
vc_ok "close" queue operate -n e2e-q -a close >/dev/null
same "$(kube get commands.bus.volcano.sh -n default -o jsonpath="$cmd_fields")" \
	"CloseQueue|e2e-q-closequeue-|scheduling.volcano.sh/v1beta1|Queue|e2e-q|$quid|true|$quid|true" "close Command"
kube delete commands.bus.volcano.sh -n default --all >/dev/null
vc_ok "open" queue operate --name e2e-q --action open >/dev/null
same "$(kube get commands.bus.volcano.sh -n default -o jsonpath='{.items[0].action}/{.items[0].target.name}')" \
	"OpenQueue/e2e-q" "open Command"
kube delete commands.bus.volcano.sh -n default --all >/dev/null
vc_ok "update" queue operate -n e2e-q -a update -w 5 >/dev/null
same "$(kube get queues.scheduling.volcano.sh e2e-q -o jsonpath='{.spec.weight}')" 5 "updated weight"
expect_fail_with 'Failed to operate queue: when update queue e2e-q, weight must be specified, the value must be greater than 0' \
	vc queue operate -n e2e-q -a update
expect_fail_with 'Failed to operate queue: action pause invalid, valid actions are open, close and update' \
	vc queue operate -n e2e-q -a pause
expect_fail_with 'Failed to operate queue: queues.scheduling.volcano.sh "nope" not found' \
	vc queue operate -n nope -a close
[ -z "$(kube get commands.bus.volcano.sh -n default -o name)" ] || fail "a failed operate left a Command"
pass "open/close Commands target the Queue; update patches the weight"

step "queue delete"
vc_ok "queue delete" queue delete -n e2e-q >/dev/null
gone queues.scheduling.volcano.sh e2e-q || fail "e2e-q still exists"
expect_fail_with 'Failed to get queue: queues.scheduling.volcano.sh "e2e-q" not found' vc queue get -n e2e-q
expect_fail_with 'Failed to delete queue: queue name must be specified' vc queue delete
pass "queue delete removed the Queue"
