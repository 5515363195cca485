#!/usr/bin/env bash
# vc-controller that loses its leader lease ends at once, as Volcano's controller-manager does
# (OnStoppedLeading is klog.Fatalf("leaderelection lost"), cmd/controller-manager/app/server.go):
# a former leader that went on syncing Jobs, writing statuses and deleting finished Jobs after
# their TTL would act next to the new leader. Found by bench/soak.sh: after an API server
# restart the leader logged "leaderelection lost" and then kept working for 17 s.
#
# The lease is lost by stopping the API server for 12 s (cluster/restart-apiserver.sh) while
# the controller works on 50 new Jobs: the renew deadline passes while its requests are retried.
# The process must be gone within 2 s of "leaderelection lost", with status 1, and log nothing
# after it. Not run under E2E_IMPL=volcano (this test starts vc-controller itself): v1.7's
# klog.Fatalf exits with status 255; Caldera's daemons exit 1 on a lost lease, as
# tests/integration/itest_leader.c states.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

CTRL=${E2E_BIN_DIR:-$E2E_ROOT/build}/vc-controller
[ -x "$CTRL" ] || fail "$CTRL is missing: run make build"

e2e_cluster_up
kube apply -f "$E2E_ROOT/crds" >/dev/null || fail "kubectl apply -f crds failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
kube create namespace volcano-system >/dev/null

step "vc-controller leads with a 4 s lease"
start_daemon ctrl "$CTRL" --kubeconfig "$KUBECONFIG" --controllers='*' --leader-elect=true \
	--leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s \
	--leader-elect-retry-period=1s --schedule-period 500ms
LOG=$E2E_DIR/daemons/ctrl.log
wait_for "vc-controller to start leading" 30 grep -q 'msg="started"' "$LOG"
read -r PID _ <"$E2E_DIR/daemons/ctrl.pid"
pass "leading (PID $PID)"

step "50 Jobs submitted, then the API server stopped: the lease cannot be renewed"
# Work in flight when the API server stops: PodGroups and pods being created, statuses written.
python3 - >"$E2E_DIR/jobs.json" <<'PY'
import json
pod = {"containers": [{"name": "c", "image": "busybox",
                       "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
       "restartPolicy": "Never"}
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
     "metadata": {"name": "j%02d" % i, "namespace": "default"},
     "spec": {"minAvailable": 1, "schedulerName": "volcano", "queue": "default",
              "tasks": [{"name": "w", "replicas": 5, "template": {"spec": pod}}]}}
    for i in range(50)]}))
PY
kube create -f "$E2E_DIR/jobs.json" >/dev/null || fail "cannot create the Jobs"
# The API server goes away for 12 s (connections refused: every request is retried with
# back-off), then comes back answering 503 while it starts.
"$E2E_ROOT/cluster/restart-apiserver.sh" "$E2E_CLUSTER" --down-seconds 12 2>"$E2E_DIR/restart.log" &
RESTART=$!
wait_for "leaderelection lost" 40 grep -q 'msg="leaderelection lost"' "$LOG"
gone_proc() { ! kill -0 "$PID" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$PID/stat" 2>/dev/null)" = Z ]; }
E2E_POLL=0.1 wait_for "vc-controller to exit after losing its lease" 2 gone_proc
wait "$RESTART" || fail "cluster/restart-apiserver.sh failed" "$(cat "$E2E_DIR/restart.log")"
after=$(sed -n '/msg="leaderelection lost"/,$p' "$LOG" | tail -n +2)
[ -z "$after" ] || fail "vc-controller logged after losing its lease" "$after"
rc=$(_daemon_stop "$E2E_DIR/daemons/ctrl.pid")
[ "$rc" = 1 ] || fail "vc-controller exited with status $rc after losing its lease, want 1"
pass "gone at once with status 1, nothing logged after 'leaderelection lost'"
