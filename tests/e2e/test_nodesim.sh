#!/usr/bin/env bash
# vc-nodesim plays the kubelet: with the local cluster's kube-scheduler placing pods, simulated
# nodes report Ready (and lose the not-ready taint), a pod requesting 1 GPU runs and succeeds or
# fails as its annotations say, restarts per restartPolicy, ends at once when an exit code is
# set on it, is removed after its grace period when deleted, backs off restarting a container
# that keeps exiting (the kubelet's CrashLoopBackOff: 10 s doubling up to 5 minutes by default,
# --crash-backoff and --crash-backoff-max lower it), and labelled nodes made by someone else are
# taken over.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

SIM=${E2E_BIN_DIR:-$E2E_ROOT/build}/vc-nodesim
[ -x "$SIM" ] || fail "$SIM is missing (make build)"

e2e_cluster_up --with-kube-scheduler

step "nodes"
start_daemon nodesim "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix gpu \
	--nodes 2:cpu=8,memory=32Gi,nvidia.com/gpu=4 --nodes 1:cpu=2,memory=4Gi \
	--labels zone=a --heartbeat-period 2s
all_ready() {
	local out
	out=$(kube get nodes -l caldera.dev/simulated=true --no-headers) || return 1
	[ "$(echo "$out" | grep -c ' Ready ')" = 3 ] || { echo "$out"; return 1; }
}
wait_for "3 Ready nodes" 30 all_ready
kube get nodes -o wide
[ "$(kube get node gpu-0 -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')" = 4 ] ||
	fail "gpu-0 does not report 4 GPUs"
[ "$(kube get node gpu-2 -o jsonpath='{.status.capacity.cpu}')" = 2 ] || fail "gpu-2 capacity"
[ "$(kube get node gpu-1 -o jsonpath='{.metadata.labels.zone}')" = a ] || fail "labels"
taints=$(kube get node gpu-0 -o jsonpath='{.spec.taints}')
[ -z "$taints" ] || fail "gpu-0 still has taints: $taints"
wait_for "node Leases" 20 kube get lease -n kube-node-lease gpu-0
pass "3 simulated nodes Ready, untainted, with capacity, labels and Leases"

pod() { # NAME RESTART_POLICY [annotation=value ...]
	local name=$1 policy=$2 ann="" a
	shift 2
	for a in "$@"; do ann="$ann    ${a%%=*}: \"${a#*=}\""$'\n'; done
	kube apply -f - >/dev/null <<-EOT
		apiVersion: v1
		kind: Pod
		metadata:
		  name: $name
		  annotations:
		$ann
		spec:
		  restartPolicy: $policy
		  terminationGracePeriodSeconds: 3
		  containers:
		  - name: main
		    image: busybox
		    resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
	EOT
}
eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
phase_is() { [ "$(kube get pod "$1" -o jsonpath='{.status.phase}')" = "$2" ]; }

step "a GPU pod runs, then succeeds or fails as annotated"
pod ok Never sandbox.caldera.dev/run-seconds=2
pod bad Never sandbox.caldera.dev/run-seconds=2 sandbox.caldera.dev/exit-code=3
wait_for "pod ok Running" 20 phase_is ok Running
node=$(kube get pod ok -o jsonpath='{.spec.nodeName}')
case $node in gpu-0 | gpu-1) ;; *) fail "pod ok landed on $node, which has no GPU" ;; esac
[ -n "$(kube get pod ok -o jsonpath='{.status.podIP}')" ] || fail "no pod IP"
wait_for "pod ok Succeeded" 20 phase_is ok Succeeded
wait_for "pod bad Failed" 20 phase_is bad Failed
code=$(kube get pod bad -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')
[ "$code" = 3 ] || fail "pod bad exited with '$code', not 3"
pass "ok Succeeded on $node; bad Failed with exit code 3"

step "restartPolicy"
pod flaky OnFailure sandbox.caldera.dev/run-seconds=1 sandbox.caldera.dev/exit-code=1
restarts() { [ "$(kube get pod flaky -o jsonpath='{.status.containerStatuses[0].restartCount}')" -ge 2 ]; }
# Restarts at 1 s (the first is at once) and 12 s (after the kubelet's 10 s back-off).
wait_for "pod flaky to restart twice" 30 restarts
phase_is flaky Running || fail "flaky should keep running between restarts"
last=$(kube get pod flaky -o jsonpath='{.status.containerStatuses[0].lastState.terminated.exitCode}')
[ "$last" = 1 ] || fail "lastState exit code '$last', not 1"
pass "OnFailure restarts with restartCount and lastState"

step "an exit code set on a running pod ends it at once"
pod longrun Never
wait_for "pod longrun Running" 20 phase_is longrun Running
kube annotate pod longrun sandbox.caldera.dev/exit-code=42 >/dev/null
wait_for "pod longrun Failed" 10 phase_is longrun Failed
code=$(kube get pod longrun -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')
[ "$code" = 42 ] || fail "longrun exited with '$code', not 42"
pass "longrun Failed with exit code 42"

step "deletion honours the grace period"
pod doomed Always
wait_for "pod doomed Running" 20 phase_is doomed Running
t0=$SECONDS
kube delete pod doomed --wait=false >/dev/null
wait_for "pod doomed gone" 20 gone pod doomed
took=$((SECONDS - t0))
[ $took -ge 2 ] || fail "doomed went after ${took}s, before its 3 s grace period"
kube delete pod ok bad flaky longrun --wait=true >/dev/null
pass "doomed removed after ${took}s (grace 3 s); the rest deleted"

# watch_pod NAME: record the watch events of pod NAME (from before it exists), one line each:
# TYPE|restartCount|waiting reason|waiting message|lastState finishedAt.
watch_pod() {
	start_daemon "watch-$1" kubectl --kubeconfig "$KUBECONFIG" get pods -w --output-watch-events \
		--field-selector "metadata.name=$1" -o jsonpath='{.type}|{.object.status.containerStatuses[0].restartCount}|{.object.status.containerStatuses[0].state.waiting.reason}|{.object.status.containerStatuses[0].state.waiting.message}|{.object.status.containerStatuses[0].lastState.terminated.finishedAt}{"\n"}'
	sleep 1 # the watch is on before the pod is made
}
cs() { kube get pod "$1" -o jsonpath="{.status.containerStatuses[0].$2}"; }
restarts_are() { [ "$(cs "$1" restartCount)" = "$2" ]; }
backing_off() { [ "$(cs "$1" state.waiting.reason)" = CrashLoopBackOff ]; }

step "CrashLoopBackOff: a container that exits at once, with the kubelet's back-off"
watch_pod crasher
t0=$SECONDS
pod crasher Always sandbox.caldera.dev/run-seconds=0
wait_for "pod crasher in CrashLoopBackOff" 20 backing_off crasher
uid=$(kube get pod crasher -o jsonpath='{.metadata.uid}')
# The kubelet restarts at once the first time, then waits 10 s (kuberuntime_manager.go doBackOff).
eq "waiting message" "$(cs crasher state.waiting.message)" \
	"back-off 10s restarting failed container=main pod=crasher_default($uid)"
eq "restartCount" "$(cs crasher restartCount)" 1
eq "lastState.terminated" "$(cs crasher lastState.terminated.exitCode) $(cs crasher lastState.terminated.reason)" \
	"0 Completed"
[ -n "$(cs crasher lastState.terminated.startedAt)" ] || fail "lastState.terminated has no startedAt"
[ -n "$(cs crasher lastState.terminated.finishedAt)" ] || fail "lastState.terminated has no finishedAt"
eq "ready, started" "$(cs crasher ready) $(cs crasher started)" "false false"
eq "phase" "$(kube get pod crasher -o jsonpath='{.status.phase}')" Running
for c in Ready ContainersReady; do
	eq "condition $c" "$(kube get pod crasher -o jsonpath="{.status.conditions[?(@.type==\"$c\")]['status','reason','message']}")" \
		"False ContainersNotReady containers with unready status: [main]"
done
wait_for "the second restart, 10 s later" 25 restarts_are crasher 2
eq "waiting message" "$(cs crasher state.waiting.message)" \
	"back-off 20s restarting failed container=main pod=crasher_default($uid)"
left=$((t0 + 25 - SECONDS))
[ $left -le 0 ] || sleep $left
eq "restartCount $((SECONDS - t0)) s after the pod was made" "$(cs crasher restartCount)" 2
stop_daemon watch-crasher
log=$E2E_DIR/daemons/watch-crasher.log
writes=$(grep -c '^MODIFIED|' "$log" || true)
# Binding, the first status, the second restart; one more for a status write racing the binding.
[ "$writes" -le 4 ] || fail "$writes updates of pod crasher in $((SECONDS - t0)) s" "$(cat "$log")"
kube delete pod crasher --wait=true >/dev/null
pass "restartCount 2 after 25 s, back-off 10s then 20s, lastState, unready; $writes pod updates"

step "--crash-backoff 2s --crash-backoff-max 8s: the back-off doubles up to its cap"
stop_daemon nodesim
start_daemon nodesim-fast "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix gpu \
	--nodes 2:cpu=8,memory=32Gi,nvidia.com/gpu=4 --nodes 1:cpu=2,memory=4Gi \
	--labels zone=a --heartbeat-period 2s --crash-backoff 2s --crash-backoff-max 8s
wait_for "3 Ready nodes" 30 all_ready
watch_pod looper
pod looper Always sandbox.caldera.dev/run-seconds=0
wait_for "the 4th restart of looper" 40 restarts_are looper 4
stop_daemon watch-looper
log=$E2E_DIR/daemons/watch-looper.log
# restartCount and back-off of each status write, then the gaps between the exits.
seen=$(awk -F'|' '$1 == "MODIFIED" && $3 == "CrashLoopBackOff" {
	split($4, w, " "); printf "%s:%s ", $2, w[2] }' "$log")
eq "restartCount:back-off of each status write" "$seen" "1:2s 2:4s 3:8s 4:8s "
gaps=$(awk -F'|' '$1 == "MODIFIED" && $5 != "" {
	gsub(/[-T:Z]/, " ", $5); t = mktime($5); if (last) printf "%d ", t - last; last = t }' "$log")
eq "seconds between the exits" "$gaps" "2 4 8 "
kube delete pod looper --wait=true >/dev/null
pass "back-off 2s, 4s, 8s, 8s: restarts 2, 4 and 8 s apart"

step "a labelled node made by someone else is taken over"
kube apply -f - >/dev/null <<-EOT
	apiVersion: v1
	kind: Node
	metadata:
	  name: adopted
	  labels: {caldera.dev/simulated: "true"}
EOT
ready() { [ "$(kube get node adopted -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]; }
wait_for "node adopted Ready" 20 ready
pass "node adopted is Ready"

stop_daemon nodesim-fast
pass "vc-nodesim stopped cleanly"
