#!/usr/bin/env bash
# The foundation: a local cluster comes up, takes Volcano's CRDs and validates against their
# schemas, garbage-collects dependents of deleted owners (built-in and custom kinds), finishes a
# namespace deletion, and goes down leaving no process behind.
#
# E2E_CRDS_DIR (default crds/) is the folder of CRDs applied.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

CRDS=${E2E_CRDS_DIR:-$E2E_ROOT/crds}

e2e_cluster_up --with-kube-scheduler

step "server version"
kube get --raw /version | grep -q '"gitVersion": "v1.20.2"' || fail "kube-apiserver is not v1.20.2"
pass "kube-apiserver v1.20.2, /readyz: $(kube get --raw /readyz)"
wait_for "the default ServiceAccount" 30 kube get serviceaccount default -n default
pass "namespace default and its ServiceAccount exist"

step "CRDs from $CRDS"
ls "$CRDS"/*.yaml >/dev/null 2>&1 || fail "no *.yaml in $CRDS"
crds=$(kube apply -f "$CRDS" -o name) || fail "kubectl apply -f $CRDS failed"
[ -n "$crds" ] || fail "kubectl apply -f $CRDS applied nothing"
# kubectl wait can fail at once right after the apply: ask again until 60 s are up.
# shellcheck disable=SC2086 # one argument per CRD
wait_for "CRDs Established: $(echo "$crds" | paste -sd ' ')" 60 \
	kube wait --for=condition=Established --timeout=30s $crds
pass "$(echo "$crds" | wc -l) CRD(s) Established: $(echo "$crds" | sed 's|.*/||' | paste -sd ' ')"
has_crd() { echo "$crds" | grep -qx "customresourcedefinition.apiextensions.k8s.io/$1"; }

# Owners of a custom kind are collected only once the garbage collector has seen the kind (its
# discovery resync runs every 30 s), so that case starts now and is checked last.
cr_gc=0
if has_crd podgroups.scheduling.volcano.sh; then
	cr_gc=1
	kube create -f - >/dev/null <<-EOF
		apiVersion: scheduling.volcano.sh/v1beta1
		kind: PodGroup
		metadata: {name: gc-owner-pg}
		spec: {minMember: 1}
	EOF
	uid=$(kube get podgroup.scheduling.volcano.sh gc-owner-pg -o jsonpath='{.metadata.uid}')
	kube create -f - >/dev/null <<-EOF
		apiVersion: v1
		kind: ConfigMap
		metadata:
		  name: gc-dependent-of-pg
		  ownerReferences:
		  - {apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, name: gc-owner-pg, uid: "$uid"}
	EOF
	kube delete podgroup.scheduling.volcano.sh gc-owner-pg >/dev/null
fi

step "schema validation of batch.volcano.sh Job"
if [ -f "$CRDS/batch.volcano.sh_jobs.yaml" ]; then
	job() {
		cat <<-EOF
			apiVersion: batch.volcano.sh/v1alpha1
			kind: Job
			metadata: {name: $1}
			spec:
			  minAvailable: $2
			  tasks:
			  - name: main
			    replicas: 1
			    template:
			      spec:
			        containers: [{name: main, image: busybox}]
		EOF
	}
	# --validate=false: no client-side check, so the message is the API server's.
	job bad-min -1 >"$E2E_DIR/bad-min.yaml"
	expect_fail_with "spec.minAvailable" kube apply --validate=false -f "$E2E_DIR/bad-min.yaml"
	expect_fail_with "should be greater than or equal to 0" \
		kube apply --validate=false -f "$E2E_DIR/bad-min.yaml"
	pass "a Job with minAvailable -1 is rejected by the API server"
	gone job.batch.volcano.sh bad-min || fail "the rejected Job exists"
	# The control: the same Job with minAvailable 1 is stored (a custom-resource write).
	job good-min 1 | kube apply --validate=false -f - >/dev/null || fail "a valid Job was rejected"
	[ "$(kube get job.batch.volcano.sh good-min -o jsonpath='{.spec.minAvailable}')" = 1 ] ||
		fail "the valid Job was not stored as written"
	kube delete job.batch.volcano.sh good-min >/dev/null
	pass "the same Job with minAvailable 1 is stored and deleted"
else
	skip "$CRDS/batch.volcano.sh_jobs.yaml does not exist yet: minAvailable validation NOT TESTED"
fi

step "garbage collection of a ConfigMap owned by a ConfigMap"
kube create configmap gc-owner >/dev/null
uid=$(kube get configmap gc-owner -o jsonpath='{.metadata.uid}')
[ -n "$uid" ] || fail "no uid for configmap gc-owner"
kube create -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: gc-dependent
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: gc-owner, uid: "$uid"}
EOF
sleep 1 # the dependent must still be there while its owner is
kube get configmap gc-dependent >/dev/null || fail "the dependent vanished while its owner exists"
kube delete configmap gc-owner >/dev/null
wait_for "configmap gc-dependent to be garbage-collected" 60 gone configmap gc-dependent
pass "the dependent was collected after its owner was deleted"

step "namespace deletion"
kube create namespace smoke-ns >/dev/null
kube create configmap in-ns -n smoke-ns >/dev/null
if has_crd podgroups.scheduling.volcano.sh; then
	kube create -n smoke-ns -f - >/dev/null <<-EOF
		apiVersion: scheduling.volcano.sh/v1beta1
		kind: PodGroup
		metadata: {name: in-ns}
		spec: {minMember: 1}
	EOF
fi
kube delete namespace smoke-ns --wait=false >/dev/null
wait_for "namespace smoke-ns to be deleted" 60 gone namespace smoke-ns
pass "namespace smoke-ns and its contents are gone"

if [ $cr_gc = 1 ]; then
	step "garbage collection of a ConfigMap owned by a PodGroup"
	# Up to one 30 s discovery resync, then the retry back-off of the collector.
	wait_for "configmap gc-dependent-of-pg to be garbage-collected" 120 gone configmap gc-dependent-of-pg
	pass "the dependent of a deleted PodGroup was collected"
fi

step "teardown"
pids=$(cat "$E2E_CLUSTER"/run/*.pid)
[ "$(echo "$pids" | wc -w)" -ge 3 ] || fail "expected at least 3 PID files in $E2E_CLUSTER/run"
port=$(sed -n 's/^APISERVER_PORT=//p' "$E2E_CLUSTER/cluster.env")
e2e_cluster_down
for pid in $pids; do
	if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$E2E_CLUSTER/"; then
		fail "PID $pid of the cluster is still running: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
	fi
done
ls "$E2E_CLUSTER"/run/*.pid >/dev/null 2>&1 && fail "PID files left in $E2E_CLUSTER/run"
ss -Htln | awk '{ print $4 }' | grep -q ":$port\$" && fail "something still listens on $port"
kube get --raw /readyz >/dev/null 2>&1 && fail "the API server still answers"
"$E2E_ROOT/cluster/down.sh" "$E2E_CLUSTER" 2>/dev/null || fail "a second cluster/down.sh failed"
pass "no process of the cluster is left (PIDs $(echo "$pids" | paste -sd ' '))"
