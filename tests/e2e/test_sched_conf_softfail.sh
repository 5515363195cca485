#!/usr/bin/env bash
# Volcano's configuration and command lines on the local cluster:
#
#   soft-fail   vc-controller with a scheduler configuration naming what Caldera lacks (Volcano
#               HEAD's deviceshare and network-topology-aware plugins, an unknown argument key,
#               an unknown action) beside HEAD's capacity plugin with enableHierarchy, which
#               Caldera has (not skipped), Volcano flags it does not implement and the
#               Deployments' trailing `2>&1`: it starts, warns once per entry and flag, says so
#               in volcano_scheduler_configuration_skipped_entries and in a Warning Event
#               ConfigurationSkipped on its Pod (POD_NAME/POD_NAMESPACE), and runs a gang job to
#               Completed; its Scheduled Events come from source volcano
#   unparsable  the file rewritten so that it does not parse: counted
#               (volcano_scheduler_configuration_load_errors_total), an InvalidConfiguration
#               Event, the previous configuration stays and jobs still run
#   dispatch    the same binary as vc-controller-manager and vc-scheduler (symlinks, as in the
#               images), each with the exact arguments of Volcano's Deployments (plus a
#               kubeconfig and local listener addresses): the first runs the controllers alone,
#               the second the scheduler alone (leader lock vc-scheduler), and together they run
#               a gang job to Completed
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

# shellcheck disable=SC2119 # no up.sh flags
e2e_cluster_up
kube apply -f "$E2E_ROOT/crds" >/dev/null || fail "kubectl apply -f crds failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
webhook_start
start_daemon nodesim "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix node \
	--nodes 2:cpu=8,memory=32Gi,pods=110 --fast-delete --heartbeat-period 5s
wait_for "2 Ready nodes" 30 nodes_ready 2
kube create namespace volcano-system >/dev/null
pass "cluster, CRDs, vc-webhook, 2 simulated nodes"

sched_conf <<'YAML'
actions: "enqueue, allocate, shuffle, backfill"
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
    arguments:
      leastrequested.weight: 1
      nosuch.weight: 3
  - name: deviceshare
    arguments:
      deviceshare.VGPUEnable: true
  - name: network-topology-aware
  - name: binpack
YAML

metrics() { curl -fsS --max-time 2 "http://127.0.0.1:$METRICS_PORT/metrics"; }
metric_is() { metrics | grep -qx "$1 $2"; }
log_of() { cat "$E2E_DIR/daemons/$1.log"; }
# gang_job NAME: two pods that must start together (minAvailable 2), 2 s each.
gang_job() {
	job_yaml "$1" "  schedulerName: volcano
  minAvailable: 2
  tasks:
$(task_yaml worker 2 2)" | apply_job -
}
# sources REASON: the source.component of the namespace's Events of that reason, unique.
sources() {
	k get events --field-selector "reason=$1" -o jsonpath='{range .items[*]}{.source.component}{"\n"}{end}' | sort -u
}

step "soft-fail: vc-controller with Volcano HEAD's plugins, an unknown action and argument"
HEALTHZ_PORT=$(free_port)
METRICS_PORT=$(free_port)
CTRL_NAME=vc-controller-softfail
CTRL_DAEMONS=("$CTRL_NAME")
POD_NAME=volcano-scheduler-0 POD_NAMESPACE=volcano-system \
	start_daemon "$CTRL_NAME" "$CTRL" --kubeconfig "$KUBECONFIG" --leader-elect=false \
	--scheduler-conf="$CONF" --schedule-period 500ms --enable-healthz=true \
	--healthz-address "127.0.0.1:$HEALTHZ_PORT" --enable-metrics=true \
	--listen-address "127.0.0.1:$METRICS_PORT" --node-worker-threads=20 \
	--sharding-configmap=volcano-sharding-configmap --logtostderr -v=3 '2>&1'
wait_for "$CTRL_NAME healthy" 30 ctrl_healthy
wait_for "the default queue Open" 30 queue_open
log=$(log_of "$CTRL_NAME")
eq "log lines for capacity" "$(grep -c "unknown plugin 'capacity'" <<<"$log")" 0
for entry in "unknown action 'shuffle'" \
	"plugin 'nodeorder': argument 'nosuch.weight' is not used" "unknown plugin 'deviceshare'" \
	"unknown plugin 'network-topology-aware'"; do
	eq "log lines for \"$entry\"" "$(grep -cF "entry=\"$entry\"" <<<"$log")" 1
done
for flag in node-worker-threads sharding-configmap; do
	eq "warnings for --$flag" "$(grep -cF "msg=\"flag --$flag has no effect in Caldera\"" <<<"$log")" 1
done
grep -qF 'msg="ignoring an argument" arg="2>&1"' <<<"$log" || fail "no warning about 2>&1" "$log"
wait_for "volcano_scheduler_configuration_skipped_entries 4" 10 metric_is volcano_scheduler_configuration_skipped_entries 4
ev() {
	kube get events -n volcano-system --field-selector reason=ConfigurationSkipped,involvedObject.name=volcano-scheduler-0 \
		-o jsonpath='{range .items[*]}{.type} {.source.component}: {.message}{"\n"}{end}'
}
has_ev() { ev | grep -q .; }
wait_for "the ConfigurationSkipped Event" 20 has_ev
grep -qF "Warning volcano: scheduler configuration '$CONF': 4 entries skipped: unknown action 'shuffle'; plugin 'nodeorder': argument 'nosuch.weight' is not used;" <<<"$(ev)" ||
	fail "the ConfigurationSkipped Event" "$(ev)"
pass "started; 4 skipped entries logged once each (capacity known), 2 flags of no effect, 2>&1 ignored; metric and Event"

step "a gang job under that configuration"
ns softfail
gang_job gang
wait_phase gang Completed 60
eq "sources of the Scheduled events" "$(sources Scheduled)" volcano
pass "gang Completed; its pods' Scheduled Events come from source volcano"

step "unparsable: the file no longer parses"
printf 'actions: [enqueue, allocate]\n' >"$CONF"
wait_for "volcano_scheduler_configuration_load_errors_total 1" 10 metric_is volcano_scheduler_configuration_load_errors_total 1
inv() {
	kube get events -n volcano-system --field-selector reason=InvalidConfiguration \
		-o jsonpath='{range .items[*]}{.source.component}: {.message}{"\n"}{end}'
}
has_inv() { inv | grep -q 'using the previous configuration'; }
wait_for "the InvalidConfiguration Event" 20 has_inv
gang_job gang2
wait_phase gang2 Completed 60
ctrl_stop
CTRL_NAME=
pass "load error counted and reported, previous configuration kept, gang2 Completed"

step "dispatch: vc-controller-manager and vc-scheduler with Volcano's Deployment arguments"
BINS=$E2E_DIR/bin
mkdir -p "$BINS"
ln -sf "$CTRL" "$BINS/vc-controller-manager"
ln -sf "$CTRL" "$BINS/vc-scheduler"
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
  - name: proportion
  - name: nodeorder
  - name: binpack
YAML
CM_HPORT=$(free_port)
# Local listeners and the kubeconfig first, then the Deployment's arguments as they are.
start_daemon vc-controller-manager "$BINS/vc-controller-manager" --kubeconfig "$KUBECONFIG" \
	--healthz-address "127.0.0.1:$CM_HPORT" --listen-address "127.0.0.1:$(free_port)" \
	--logtostderr --enable-healthz=true --enable-metrics=true --leader-elect=false \
	--kube-api-qps=50 --kube-api-burst=100 --worker-threads=3 --worker-threads-for-gc=5 \
	--worker-threads-for-podgroup=5 --sharding-configmap=volcano-sharding-configmap \
	--sharding-configmap-namespace=volcano-system -v=4 '2>&1'
HEALTHZ_PORT=$(free_port)
METRICS_PORT=$(free_port)
start_daemon vc-scheduler "$BINS/vc-scheduler" --kubeconfig "$KUBECONFIG" \
	--healthz-address "127.0.0.1:$HEALTHZ_PORT" --listen-address "127.0.0.1:$METRICS_PORT" \
	--logtostderr --scheduler-conf="$CONF" --enable-healthz=true --enable-metrics=true \
	--leader-elect=false --kube-api-qps=2000 --kube-api-burst=2000 --schedule-period=1s \
	--node-worker-threads=20 -v=3 '2>&1'
cm_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$CM_HPORT/healthz"; }
wait_for "vc-controller-manager healthy" 30 cm_healthy
wait_for "vc-scheduler healthy" 30 ctrl_healthy
started() { grep -F 'msg="started"' "$E2E_DIR/daemons/$1.log"; }
wait_for "vc-controller-manager started" 10 started vc-controller-manager
wait_for "vc-scheduler started" 10 started vc-scheduler
grep -qF 'comp=vc-controller-manager msg="started" scheduler=off' "$E2E_DIR/daemons/vc-controller-manager.log" ||
	fail "vc-controller-manager runs a scheduler" "$(started vc-controller-manager)"
grep -qF 'comp=vc-scheduler msg="started" scheduler=on' "$E2E_DIR/daemons/vc-scheduler.log" ||
	fail "vc-scheduler does not run the scheduler" "$(started vc-scheduler)"
# The controllers' metric is the controller manager's, the scheduler's the scheduler's.
metrics | grep -q '^volcano_scheduler_configuration_skipped_entries 0$' ||
	fail "vc-scheduler's metrics" "$(metrics | head -20)"
eq "skipped entries in the configuration of Volcano's install" \
	"$(grep -c 'scheduler configuration entry skipped' "$E2E_DIR/daemons/vc-scheduler.log" || true)" 0
ns dispatch
gang_job gang
wait_phase gang Completed 60
eq "sources of the Scheduled events" "$(sources Scheduled)" volcano
stop_daemon vc-scheduler
stop_daemon vc-controller-manager
pass "vc-controller-manager: controllers alone, vc-scheduler: scheduler alone; gang Completed"
