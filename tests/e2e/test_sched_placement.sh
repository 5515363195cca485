#!/usr/bin/env bash
# Placement rules of Kubernetes that the scheduler's predicates and nodeorder plugins apply
# (docs/volcano/scheduler.md §4.7, §4.8), on the stack of jobs_lib.sh: four vc-nodesim
# nodes, labelled with their hostname (vc-nodesim) and a zone, topology.kubernetes.io/zone=a on
# node-0..2 and =b on node-3.
#
#   anti     a vcjob of 5 pods (minAvailable 4) with required anti-affinity to each other over
#            the hostname: 4 run, one per node; the fifth stays Pending and its PodScheduled
#            message names Kubernetes' reason "node(s) didn't match pod anti-affinity rules".
#   ssh      Volcano's ssh-plugin scenario: a gang of 3 (minAvailable 3) with required pod
#            affinity to each other over the hostname: all three on one node (the first member
#            may go anywhere, as Kubernetes allows the first pod of a self-affine group).
#   spread   4 one-pod vcjobs labelled app=spread, each with a maxSkew 1 DoNotSchedule spread of
#            app=spread over the zone: 2 in zone a and 2 on node-3, zone b's only node (without
#            the constraint, least-requested scoring puts 3 in zone a).
#   spread-gang  the same as one gang of 4 (minAvailable 4): 2 and 2 again (Caldera only, see
#            below).
#   default  Kubernetes' system default spread (ScheduleAnyway, maxSkew 3 over the hostname and 5
#            over the zone) of the pods a Service selects: on an emptied cluster, node-0..2 carry
#            a 2 CPU / 8 Gi filler each and node-3 two tiny app=web pods; the Service web selects
#            app=web. A new app=web pod without constraints goes to zone a, away from the other
#            web pods, although least-requested prefers the empty node-3 (where it went before
#            the scheduler applied the defaults).
#
# Volcano v1.7 implements all three through Kubernetes' InterPodAffinity and PodTopologySpread
# plugins: anti, ssh and spread were run with E2E_IMPL=volcano and hold there (its message
# carries the reason after "plugin InterPodAffinity predicates failed ", so only the reason is
# matched). spread-gang does not: Volcano v1.7 leaves that gang Pending ("1/4 tasks in gang
# unschedulable ... 1 Unschedulable, 3 Schedulable"), because its per-(job, role) predicate error
# cache keeps the zone-a failures of the first members and refuses zone a to the last one
# (docs/scheduler.md, Differences). default was run with E2E_IMPL=volcano and holds there: v1.7
# runs Kubernetes 1.25's PodTopologySpread with defaultingType System over its Services and
# controller listers.
#
# The local cluster's API server is Kubernetes 1.20: it drops the newer fields of a pod spec
# (pod affinity namespaceSelector, 1.21; matchLabelKeys / mismatchLabelKeys, 1.25 and 1.29), so
# those rules have unit tests only (tests/unit/test_sched_podaffinity.c).
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup "4:cpu=8,memory=32Gi,pods=110"
for n in 0 1 2; do
	kube label node "node-$n" topology.kubernetes.io/zone=a --overwrite >/dev/null ||
		fail "cannot label node-$n"
done
kube label node node-3 topology.kubernetes.io/zone=b --overwrite >/dev/null || fail "cannot label node-3"

# job NAME REPLICAS MIN_AVAILABLE SPEC_YAML [APP]: a vcjob of one task whose pods are labelled
# app=APP (default NAME), with SPEC_YAML (lines indented for the pod spec) after the containers.
job() {
	apply_job - <<-EOT
		apiVersion: batch.volcano.sh/v1alpha1
		kind: Job
		metadata: {name: $1}
		spec:
		  minAvailable: $3
		  schedulerName: volcano
		  tasks:
		  - name: t
		    replicas: $2
		    template:
		      metadata:
		        labels: {app: ${5:-$1}}
		      spec:
		        restartPolicy: Never
		        terminationGracePeriodSeconds: 1
		        containers:
		        - name: main
		          image: busybox
		          resources: {requests: {cpu: 100m, memory: 64Mi}}
		$4
	EOT
}
# nodes_of JOB: the nodes of the job's Running pods, one a line, sorted.
nodes_of() {
	k get pods -l "volcano.sh/job-name=$1" --field-selector status.phase=Running \
		-o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort
}
running_is() { # running_is JOB N
	local n
	n=$(nodes_of "$1" | grep -c .)
	[ "$n" = "$2" ] || { echo "job $1: $n Running pods, want $2"; return 1; }
}
pending_pod() { k get pods -l "volcano.sh/job-name=$1" --field-selector status.phase=Pending -o jsonpath='{.items[0].metadata.name}'; }
pod_message() { k get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
message_has() { # message_has POD TEXT
	local m
	m=$(pod_message "$1")
	case $m in *"$2"*) ;; *) echo "pod $1: '$m', want '...$2...'" && return 1 ;; esac
}

ns placement

# --- anti ---------------------------------------------------------------------------------------

job anti 5 4 "$(
	cat <<-'EOT'
		        affinity:
		          podAntiAffinity:
		            requiredDuringSchedulingIgnoredDuringExecution:
		            - labelSelector: {matchLabels: {app: anti}}
		              topologyKey: kubernetes.io/hostname
	EOT
)"
wait_for "4 anti pods Running" 60 running_is anti 4
got=$(nodes_of anti | tr '\n' ' ')
[ "$got" = "node-0 node-1 node-2 node-3 " ] || fail "anti: pods on '$got', want one on each node"
p=$(pending_pod anti)
[ -n "$p" ] || fail "anti: no Pending pod"
wait_for "$p's message: the anti-affinity reason" 40 message_has "$p" \
	"node(s) didn't match pod anti-affinity rules"
is_caldera && { message_has "$p" "0/4 nodes are unavailable: 4 node(s) didn't match pod anti-affinity rules." ||
	fail "anti: $p's message is not Kubernetes' node fit error"; }
pass "anti: one pod per node, $p Pending: $(pod_message "$p")"

# --- ssh ----------------------------------------------------------------------------------------

job ssh 3 3 "$(
	cat <<-'EOT'
		        affinity:
		          podAffinity:
		            requiredDuringSchedulingIgnoredDuringExecution:
		            - labelSelector: {matchLabels: {app: ssh}}
		              topologyKey: kubernetes.io/hostname
	EOT
)"
wait_for "3 ssh pods Running" 60 running_is ssh 3
[ "$(nodes_of ssh | uniq | grep -c .)" = 1 ] || fail "ssh: pods on $(nodes_of ssh | tr '\n' ' '), want one node"
pass "ssh: the gang runs on $(nodes_of ssh | head -n 1)"

# --- spread -------------------------------------------------------------------------------------

# spread_yaml APP: a maxSkew 1 DoNotSchedule spread of app=APP over the zone.
spread_yaml() {
	cat <<-EOT
		        topologySpreadConstraints:
		        - maxSkew: 1
		          topologyKey: topology.kubernetes.io/zone
		          whenUnsatisfiable: DoNotSchedule
		          labelSelector: {matchLabels: {app: $1}}
	EOT
}
# app_nodes APP: the nodes of the Running pods labelled app=APP, sorted.
app_nodes() {
	k get pods -l "app=$1" --field-selector status.phase=Running \
		-o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort
}
app_running_is() { # app_running_is APP N
	local n
	n=$(app_nodes "$1" | grep -c . || true)
	[ "$n" = "$2" ] || { echo "app $1: $n Running pods, want $2"; return 1; }
}
for i in 0 1 2 3; do
	job "spread-$i" 1 1 "$(spread_yaml spread)" spread
	wait_for "spread-$i Running" 60 app_running_is spread $((i + 1))
done
in_b=$(app_nodes spread | grep -c '^node-3$' || true)
[ "$in_b" = 2 ] || fail "spread: $in_b pods in zone b (node-3), want 2: $(app_nodes spread | tr '\n' ' ')"
pass "spread: 2 pods in zone a, 2 in zone b: $(app_nodes spread | tr '\n' ' ')"

if is_caldera; then
	job spread-gang 4 4 "$(spread_yaml spread-gang)"
	wait_for "4 spread-gang pods Running" 60 app_running_is spread-gang 4
	in_b=$(app_nodes spread-gang | grep -c '^node-3$' || true)
	[ "$in_b" = 2 ] || fail "spread-gang: $in_b pods on node-3, want 2: $(app_nodes spread-gang | tr '\n' ' ')"
	pass "spread-gang: 2 pods in zone a, 2 in zone b: $(app_nodes spread-gang | tr '\n' ' ')"
fi

# --- default ------------------------------------------------------------------------------------

# Empty the nodes: the scenarios above leave pods everywhere.
kube -n placement delete vcjob --all --wait=false >/dev/null || fail "cannot delete the vcjobs"
no_pods() {
	local out
	out=$(kube get pods -A -l volcano.sh/job-name -o name) || return 1
	[ -z "$out" ] || { echo "pods left: $out"; return 1; }
}
wait_for "every job pod gone" 90 no_pods
ns placement-default
# pinned NAME NODE CPU MEMORY APP: a one-pod vcjob on NODE (nodeSelector) labelled app=APP.
pinned() {
	apply_job - <<-EOT
		apiVersion: batch.volcano.sh/v1alpha1
		kind: Job
		metadata: {name: $1}
		spec:
		  minAvailable: 1
		  schedulerName: volcano
		  tasks:
		  - name: t
		    replicas: 1
		    template:
		      metadata:
		        labels: {app: $5}
		      spec:
		        restartPolicy: Never
		        terminationGracePeriodSeconds: 1
		        nodeSelector: {kubernetes.io/hostname: $2}
		        containers:
		        - name: main
		          image: busybox
		          resources: {requests: {cpu: $3, memory: $4}}
	EOT
}
for n in 0 1 2; do
	pinned "busy-$n" "node-$n" 2 8Gi busy
done
pinned web-old-0 node-3 10m 16Mi web
pinned web-old-1 node-3 10m 16Mi web
wait_for "the fillers and old web pods Running" 60 app_running_is busy 3
wait_for "the old web pods Running" 60 app_running_is web 2
k apply -f - >/dev/null <<-'EOT' || fail "cannot create the Service web"
	apiVersion: v1
	kind: Service
	metadata: {name: web}
	spec:
	  selector: {app: web}
	  ports: [{port: 80}]
EOT
# Let the scheduler's Service informer see it before the pod is created.
sleep 2
job web-new 1 1 "" web
wait_for "web-new Running" 60 running_is web-new 1
got=$(nodes_of web-new)
case $got in node-[012]) ;; *) fail "default: web-new runs on $got, want zone a (node-0..2)" ;; esac
pass "default: web-new spread to $got in zone a, away from the web pods of node-3"
