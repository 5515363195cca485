#!/usr/bin/env bash
# Volumes in scheduling (docs/volcano/scheduler.md §4.7, §1.6; controller/scheduler/sched_volume.c),
# on the stack of jobs_lib.sh: four vc-nodesim nodes labelled with their hostname (vc-nodesim) and
# a zone, topology.kubernetes.io/zone=a on node-0..2 and =b on node-3. The local cluster runs no
# kube-controller-manager, so no PV controller: the test plays it (binds a claim to the PV the
# scheduler pre-bound, or to the one it provisioned), and plays the provisioner of the class
# "e2e-dynamic".
#
#   bound    a claim already bound to a local PV of node-2: the pod runs on node-2.
#   missing  a pod naming a claim that does not exist stays Pending with Kubernetes' message
#            persistentvolumeclaim "nope" not found.
#   static   WaitForFirstConsumer with static PVs (the docs' local-storage class): PVs of 5Gi and
#            20Gi on node-1 for a 1Gi claim; the scheduler pre-binds the smallest (its
#            spec.claimRef) and does not bind the pod until the claim is bound; the test binds it
#            as the PV controller would, and the pod runs on node-1.
#   dynamic  WaitForFirstConsumer with dynamic provisioning, allowedTopologies zone b: the
#            scheduler sets volume.kubernetes.io/selected-node=node-3 on the claim and waits; the
#            test provisions a PV on node-3 and binds it; the pod runs on node-3.
#   gang     a gang of 2 (minAvailable 2) whose second member's claim no PV can satisfy (and its
#            class provisions nothing): neither pod is bound, the first member's PV is not
#            pre-bound, and the second's message names "node(s) didn't find available persistent
#            volumes to bind".
#
# Checked against Volcano v1.7 (E2E_IMPL=volcano): every scenario holds there. v1.7 binds volumes
# in its statement and cache rather than in a predicate (the node is chosen first, then
# GetPodVolumes/AllocateVolumes may refuse it, and BindVolumes blocks until the PV controller has
# bound the claims), so its messages differ: a missing claim reads "plugin NodeVolumeLimits
# predicates failed looking up PVC volumes/nope: persistentvolumeclaim "nope" not found" (only
# the claim's text is matched; Caldera's Kubernetes fit error is checked under is_caldera), and
# the gang's unsatisfiable member carries the gang's message, not the volume reason.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

jobs_setup "4:cpu=8,memory=32Gi,pods=110"
for n in 0 1 2; do
	kube label node "node-$n" topology.kubernetes.io/zone=a --overwrite >/dev/null ||
		fail "cannot label node-$n"
done
kube label node node-3 topology.kubernetes.io/zone=b --overwrite >/dev/null || fail "cannot label node-3"

ns volumes

kube apply -f - >/dev/null <<-'EOT' || fail "cannot create the StorageClasses"
	apiVersion: storage.k8s.io/v1
	kind: StorageClass
	metadata: {name: local-storage}
	provisioner: kubernetes.io/no-provisioner
	volumeBindingMode: WaitForFirstConsumer
	---
	apiVersion: storage.k8s.io/v1
	kind: StorageClass
	metadata: {name: e2e-dynamic}
	provisioner: e2e.caldera.dev/fake
	volumeBindingMode: WaitForFirstConsumer
	allowedTopologies:
	- matchLabelExpressions:
	  - key: topology.kubernetes.io/zone
	    values: [b]
EOT

# pv NAME CLASS SIZE NODE: a local PV of CLASS on NODE, Available (the PV controller's phase for
# a new unbound PV; the API server creates PVs Pending).
pv() {
	kube apply -f - >/dev/null <<-EOT || fail "cannot create PV $1"
		apiVersion: v1
		kind: PersistentVolume
		metadata: {name: $1}
		spec:
		  capacity: {storage: $3}
		  accessModes: [ReadWriteOnce]
		  persistentVolumeReclaimPolicy: Retain
		  storageClassName: $2
		  local: {path: /mnt/disks/$1}
		  nodeAffinity:
		    required:
		      nodeSelectorTerms:
		      - matchExpressions:
		        - {key: kubernetes.io/hostname, operator: In, values: [$4]}
	EOT
	kube patch pv "$1" --subresource=status --type=merge -p '{"status":{"phase":"Available"}}' >/dev/null ||
		fail "cannot make PV $1 Available"
}
# claim NAME CLASS SIZE: a claim in the namespace.
claim() {
	k apply -f - >/dev/null <<-EOT || fail "cannot create claim $1"
		apiVersion: v1
		kind: PersistentVolumeClaim
		metadata: {name: $1}
		spec:
		  accessModes: [ReadWriteOnce]
		  storageClassName: $2
		  resources: {requests: {storage: $3}}
	EOT
}
# bind_claim CLAIM PV: what the PV controller does once a PV is (pre-)bound to a claim: the PV's
# claimRef and phase Bound, the claim's volumeName, bind-completed and phase Bound.
bind_claim() {
	local uid
	uid=$(k get pvc "$1" -o jsonpath='{.metadata.uid}')
	kube patch pv "$2" --type=merge -p "{\"spec\":{\"claimRef\":{\"kind\":\"PersistentVolumeClaim\",\"apiVersion\":\"v1\",\"namespace\":\"$CUR_NS\",\"name\":\"$1\",\"uid\":\"$uid\"}}}" >/dev/null ||
		fail "cannot set the claimRef of PV $2"
	kube patch pv "$2" --subresource=status --type=merge -p '{"status":{"phase":"Bound"}}' >/dev/null ||
		fail "cannot make PV $2 Bound"
	k patch pvc "$1" --type=merge -p "{\"metadata\":{\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\",\"pv.kubernetes.io/bound-by-controller\":\"yes\"}},\"spec\":{\"volumeName\":\"$2\"}}" >/dev/null ||
		fail "cannot bind claim $1 to $2"
	k patch pvc "$1" --subresource=status --type=merge -p '{"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"}}}' >/dev/null ||
		fail "cannot make claim $1 Bound"
}
# job NAME REPLICAS MIN_AVAILABLE CLAIM...: a vcjob of one task per claim (task t<i>, one pod
# each when REPLICAS is 1) whose pod mounts the claim.
job() {
	local name=$1 replicas=$2 min=$3 i=0 c
	shift 3
	{
		printf 'apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\n' "$name"
		printf 'spec:\n  minAvailable: %s\n  schedulerName: volcano\n  tasks:\n' "$min"
		for c in "$@"; do
			cat <<-EOT
				  - name: t$i
				    replicas: $replicas
				    template:
				      spec:
				        restartPolicy: Never
				        terminationGracePeriodSeconds: 1
				        containers:
				        - name: main
				          image: busybox
				          resources: {requests: {cpu: 100m, memory: 64Mi}}
				          volumeMounts: [{name: data, mountPath: /data}]
				        volumes:
				        - name: data
				          persistentVolumeClaim: {claimName: $c}
			EOT
			i=$((i + 1))
		done
	} | apply_job -
}
pod_of() { k get pods -l "volcano.sh/job-name=$1" -o jsonpath='{.items[0].metadata.name}'; }
node_of() { k get pods -l "volcano.sh/job-name=$1" -o jsonpath='{.items[0].spec.nodeName}'; }
running_on() { # running_on JOB NODE
	local got
	got=$(k get pods -l "volcano.sh/job-name=$1" --field-selector status.phase=Running \
		-o jsonpath='{.items[0].spec.nodeName}' 2>/dev/null)
	[ "$got" = "$2" ] || { echo "job $1: Running on '$got', want $2"; return 1; }
}
pod_message() { k get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
message_has() { # message_has POD TEXT
	local m
	m=$(pod_message "$1")
	case $m in *"$2"*) ;; *) echo "pod $1: '$m', want '...$2...'" && return 1 ;; esac
}
claim_ref_of() { kube get pv "$1" -o jsonpath='{.spec.claimRef.name}'; }
claim_ref_is() { [ "$(claim_ref_of "$1")" = "$2" ] || { echo "PV $1 claimRef '$(claim_ref_of "$1")', want $2"; return 1; }; }
selected_node() { k get pvc "$1" -o jsonpath='{.metadata.annotations.volume\.kubernetes\.io/selected-node}'; }
has_selected_node() { [ -n "$(selected_node "$1")" ] || { echo "claim $1 has no selected node"; return 1; }; }

# --- bound --------------------------------------------------------------------------------------

pv pv-bound local-storage 1Gi node-2
claim bound local-storage 1Gi
bind_claim bound pv-bound
job bound 1 1 bound
wait_for "job bound Running on node-2" 60 running_on bound node-2
pass "bound: the pod of a claim bound to node-2's PV runs on node-2"

# --- missing ------------------------------------------------------------------------------------

job missing 1 1 nope
wait_for "job missing's pod" 30 pod_of missing
p=$(pod_of missing)
wait_for "$p's message: the claim is missing" 40 message_has "$p" 'persistentvolumeclaim "nope" not found'
[ -z "$(node_of missing)" ] || fail "missing: $p was bound to $(node_of missing)"
is_caldera && { message_has "$p" '0/4 nodes are unavailable: 4 persistentvolumeclaim "nope" not found.' ||
	fail "missing: $p's message is not Kubernetes' node fit error"; }
pass "missing: $p Pending: $(pod_message "$p")"

# --- static -------------------------------------------------------------------------------------

pv pv-big local-storage 20Gi node-1
pv pv-small local-storage 5Gi node-1
claim static local-storage 1Gi
job static 1 1 static
wait_for "the scheduler to pre-bind pv-small to claim static" 60 claim_ref_is pv-small static
[ -z "$(claim_ref_of pv-big)" ] || fail "static: pv-big was pre-bound too ($(claim_ref_of pv-big))"
sleep 2
[ -z "$(node_of static)" ] || fail "static: the pod was bound to $(node_of static) before its claim"
bind_claim static pv-small
wait_for "job static Running on node-1" 60 running_on static node-1
pass "static: pv-small (the smallest fit) pre-bound, the pod bound after its claim, on node-1"

# --- dynamic ------------------------------------------------------------------------------------

claim dynamic e2e-dynamic 1Gi
job dynamic 1 1 dynamic
wait_for "the scheduler to select a node for claim dynamic" 60 has_selected_node dynamic
sel=$(selected_node dynamic)
eq "dynamic: the selected node (allowedTopologies zone b)" "$sel" node-3
sleep 2
[ -z "$(node_of dynamic)" ] || fail "dynamic: the pod was bound to $(node_of dynamic) before its claim"
# The provisioner: a PV on the selected node, bound to the claim.
pv pv-dynamic e2e-dynamic 1Gi "$sel"
bind_claim dynamic pv-dynamic
wait_for "job dynamic Running on $sel" 60 running_on dynamic "$sel"
pass "dynamic: selected-node $sel set, the pod bound after the provisioner, on $sel"

# --- gang ---------------------------------------------------------------------------------------

pv pv-gang local-storage 5Gi node-0
claim gang-a local-storage 1Gi
claim gang-b local-storage 100Gi
job gang 1 2 gang-a gang-b
wait_for "job gang's 2 pods" 30 pods_are gang 2
pb=$(k get pods -l volcano.sh/job-name=gang,volcano.sh/task-spec=t1 -o jsonpath='{.items[0].metadata.name}')
if is_caldera; then
	wait_for "$pb's message: no PV to bind" 40 message_has "$pb" \
		"node(s) didn't find available persistent volumes to bind"
else
	# Volcano v1.7 refuses the member in its statement, after choosing a node: no fit error,
	# the pod carries the gang's message.
	wait_for "$pb's message: the gang's" 40 message_has "$pb" "tasks in gang unschedulable"
fi
sleep 3
bound_nodes=$(k get pods -l volcano.sh/job-name=gang -o jsonpath='{range .items[*]}{.spec.nodeName}{end}')
[ -z "$bound_nodes" ] || fail "gang: a member was bound ($bound_nodes)"
[ -z "$(claim_ref_of pv-gang)" ] || fail "gang: pv-gang was pre-bound to $(claim_ref_of pv-gang)"
pass "gang: nobody bound, pv-gang untouched; $pb: $(pod_message "$pb")"
