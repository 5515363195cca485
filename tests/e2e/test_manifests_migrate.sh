#!/usr/bin/env bash
# docs/install.md "Migrating from Volcano", in place, against a real API server: Volcano's
# one-file install applied with `kubectl apply -f` (VOLCANO_YAML, default
# /work/shared/volcano/volcano-development.yaml; the test says SKIP without it), then the
# documented steps (scale Volcano down, delete its webhook configurations, keep its CRDs,
# `kubectl apply -k manifests/overlays/volcano`). What must hold: Volcano's Deployments are
# updated, not duplicated or refused (same names and selectors), and hold exactly what the overlay
# renders (one container each, our image, command, flags and volumes; nothing of Volcano's pod
# spec left), at one replica again; the ServiceAccounts, Services and the scheduler ConfigMap are
# Volcano's objects with our content; Volcano's Queues, Jobs and CRDs are still there.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/manifests_lib.sh
. "$(dirname "$0")/manifests_lib.sh"

VOLCANO_YAML=${VOLCANO_YAML:-/work/shared/volcano/volcano-development.yaml}
if ! [ -r "$VOLCANO_YAML" ]; then
	skip "no Volcano install file at $VOLCANO_YAML (set VOLCANO_YAML)"
	exit 0
fi
command -v jq >/dev/null || fail "jq is missing"
OVERLAY=$E2E_ROOT/manifests/overlays/volcano

e2e_cluster_up --rbac

step "Volcano's install, applied as its README says (kubectl apply -f)"
out=$(kube apply -f "$VOLCANO_YAML" 2>&1) || fail "kubectl apply -f $VOLCANO_YAML failed" "$out"
wait_for "Volcano's CRDs to be established" 60 kube wait --for condition=established --timeout=5s crd --all
ncrd=$(kube get crd -o name | grep -c volcano.sh)
kube create namespace team-a >/dev/null
# A Queue and a Job of Volcano's, created before the swap (its webhooks are not served: dropped
# first, as step 2 of the migration does anyway).
kube get mutatingwebhookconfigurations,validatingwebhookconfigurations -o name |
	grep volcano-admission-service- | xargs -r kubectl --kubeconfig="$KUBECONFIG" delete >/dev/null
printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: team-a}\nspec: {weight: 2}\n' |
	kube apply -f - >/dev/null || fail "cannot create a Queue with Volcano's CRDs"
printf 'apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: before, namespace: team-a}
spec:
  schedulerName: volcano
  queue: team-a
  minAvailable: 1
  tasks:
  - name: worker
    replicas: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox}]
' | kube apply -f - >/dev/null || fail "cannot create a Job with Volcano's CRDs"
pass "Volcano installed: $ncrd CRDs, its Deployments, a Queue and a Job"

step "the migration steps of docs/install.md"
kube -n $NS scale deployment volcano-scheduler volcano-controllers --replicas=0 >/dev/null ||
	fail "cannot scale Volcano's scheduler and controllers down"
# (none left: grep finds nothing)
kube get mutatingwebhookconfigurations,validatingwebhookconfigurations -o name |
	{ grep volcano-admission-service- || true; } | xargs -r kubectl --kubeconfig="$KUBECONFIG" delete >/dev/null
kube -n $NS scale deployment volcano-admission --replicas=0 >/dev/null || fail "cannot scale Volcano's admission down"
render "$OVERLAY" "$E2E_DIR/volcano"
out=$(kube apply -k "$OVERLAY" 2>&1) || fail "kubectl apply -k overlays/volcano over Volcano failed" "$out"
for d in volcano-admission volcano-controllers volcano-scheduler; do
	grep -q "^deployment.apps/$d configured$" <<<"$out" || fail "$d was not updated in place" "$out"
done
pass "Volcano's Deployments configured in place"

step "what is left is what the overlay says"
# spec NAME: the parts of a Deployment's pod spec the overlay sets, from the cluster and from
# the rendering, compared as JSON.
pick='{replicas: .spec.replicas, selector: .spec.selector, labels: .spec.template.metadata.labels,
	annotations: .spec.template.metadata.annotations,
	sa: .spec.template.spec.serviceAccountName, priority: .spec.template.spec.priorityClassName,
	podsec: .spec.template.spec.securityContext,
	containers: [.spec.template.spec.containers[] | {name, image, imagePullPolicy, command, args,
		volumeMounts, securityContext, resources, ports: [.ports[]? | {name, containerPort}]}],
	init: [(.spec.template.spec.initContainers // [])[] | {name, image, command}],
	volumes: [.spec.template.spec.volumes[] | .name]}'
for d in volcano-admission volcano-controllers volcano-scheduler; do
	got=$(kube -n $NS get deployment "$d" -o json | jq -S "$pick")
	want=$(jq -S ".items[] | select(.kind == \"Deployment\" and .metadata.name == \"$d\") | $pick" "$E2E_DIR/volcano.json")
	[ "$got" = "$want" ] || fail "$d differs from the overlay" "$(diff <(echo "$want") <(echo "$got"))"
done
expect_keys=$(kube -n $NS get configmap volcano-scheduler-configmap -o json | jq -r '.data | keys | join(",")')
[ "$expect_keys" = volcano-scheduler.conf ] || fail "volcano-scheduler-configmap has keys $expect_keys"
cm=$(kube -n $NS get configmap volcano-scheduler-configmap -o jsonpath='{.data.volcano-scheduler\.conf}')
grep -q 'enqueue, allocate, backfill' <<<"$cm" || fail "volcano-scheduler-configmap is not ours" "$cm"
for sa in volcano-admission volcano-controllers volcano-scheduler; do
	kube -n $NS get serviceaccount "$sa" >/dev/null || fail "ServiceAccount $sa is gone"
done
sel=$(kube -n $NS get service volcano-admission-service -o jsonpath='{.spec.selector.app}')
[ "$sel" = volcano-admission ] || fail "volcano-admission-service selects app=$sel"
[ "$(kube get crd -o name | grep -c volcano.sh)" = "$ncrd" ] || fail "CRDs changed in number"
kube get queue team-a >/dev/null || fail "Volcano's Queue is gone"
kube -n team-a get vcjob before >/dev/null || fail "Volcano's Job is gone"
pass "Deployments equal the rendering (1 replica each), Volcano's ConfigMap, ServiceAccounts, Service, CRDs, Queue and Job kept"
