#!/usr/bin/env bash
# manifests/ against a real API server: with crds/ applied and the namespace created, the whole
# folder passes `kubectl apply --dry-run=server -R` (schemas, defaulting, validation, RBAC
# escalation checks); a deliberately broken copy does not. Then the RBAC is applied for real
# and the ServiceAccounts are asked what they may do (least privilege both ways), and the
# Deployments' flags are given to the binaries, which must accept them.
#
# VC_CONTROLLER / VC_WEBHOOK (default build/vc-controller, build/vc-webhook) are the binaries
# whose flag tables are checked; a missing binary skips that step.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

MANIFESTS=$E2E_ROOT/manifests
CONTROLLER=${VC_CONTROLLER:-$E2E_ROOT/build/vc-controller}
HOOK=${VC_WEBHOOK:-$E2E_ROOT/build/vc-webhook}

e2e_cluster_up --rbac

step "CRDs and the namespace"
kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
# A server-side dry run creates nothing, so the namespaced objects need the namespace for real.
kube apply -f "$MANIFESTS/00-namespace.yaml" >/dev/null || fail "cannot create the namespace"
wait_for "the namespace's default ServiceAccount" 30 kube -n volcano-system get serviceaccount default
pass "crds/ applied, namespace volcano-system created"

step "kubectl apply --dry-run=server -R -f manifests/"
out=$(kube apply --dry-run=server -R -f "$MANIFESTS" 2>&1) ||
	fail "the server refused manifests/" "$out"
for want in namespace/volcano-system \
	serviceaccount/vc-controller serviceaccount/vc-webhook \
	clusterrole.rbac.authorization.k8s.io/caldera:vc-controller \
	clusterrole.rbac.authorization.k8s.io/caldera:vc-webhook \
	clusterrolebinding.rbac.authorization.k8s.io/caldera:vc-controller \
	clusterrolebinding.rbac.authorization.k8s.io/caldera:vc-webhook \
	role.rbac.authorization.k8s.io/caldera:vc-controller-leader-election \
	rolebinding.rbac.authorization.k8s.io/caldera:vc-controller-leader-election \
	configmap/vc-scheduler-config service/volcano-admission-service \
	deployment.apps/vc-webhook deployment.apps/vc-controller; do
	grep -q "^$want .*(server dry run)$" <<<"$out" || fail "the dry run did not cover $want" "$out"
done
n=$(grep -c '(server dry run)$' <<<"$out")
[ "$n" -eq 13 ] || fail "expected 13 objects in the dry run, got $n" "$out"
gone deployment vc-controller -n volcano-system || fail "the dry run created the Deployment"
pass "all $n objects accepted by the server, none created"

step "a broken copy is refused"
BROKEN=$E2E_DIR/broken
cp -r "$MANIFESTS" "$BROKEN"
# The selector no longer matches the pod template's labels: only the server checks that.
sed -i '/matchLabels:/{n;s/app: vc-controller/app: not-vc-controller/}' "$BROKEN/40-controller.yaml"
grep -q 'app: not-vc-controller' "$BROKEN/40-controller.yaml" || fail "the test could not break the copy"
# shellcheck disable=SC2016 # the backquotes are Kubernetes' own
expect_fail_with '`selector` does not match template `labels`' \
	kube apply --dry-run=server -R -f "$BROKEN"
# A ConfigMap name that is not a DNS subdomain.
cp "$MANIFESTS/40-controller.yaml" "$BROKEN/40-controller.yaml"
sed -i 's/name: vc-scheduler-config$/name: VC_Scheduler_Config/' "$BROKEN/20-scheduler-config.yaml"
expect_fail_with 'a lowercase RFC 1123 subdomain' kube apply --dry-run=server -R -f "$BROKEN"
pass "a Deployment whose selector misses its template and a bad ConfigMap name are refused"

step "RBAC applied: what the ServiceAccounts may do"
kube apply -f "$MANIFESTS/10-rbac-controller.yaml" -f "$MANIFESTS/11-rbac-webhook.yaml" >/dev/null ||
	fail "cannot apply the RBAC manifests"
CTRL=system:serviceaccount:volcano-system:vc-controller
WH=system:serviceaccount:volcano-system:vc-webhook
# can AS VERB RESOURCE [flags]: the answer must be yes; cannot: no.
can() {
	local as=$1
	shift
	out=$(kube auth can-i "$@" --as="$as" 2>&1) || fail "${as##*:} may not: $*" "$out"
}
cannot() {
	local as=$1
	shift
	if out=$(kube auth can-i "$@" --as="$as" 2>&1); then
		fail "${as##*:} may, but should not: $*" "$out"
	fi
}
wait_for "the controller's ClusterRole to take effect" 30 \
	kube auth can-i create pods --subresource=binding -n default --as="$CTRL"
can "$CTRL" list jobs.batch.volcano.sh --all-namespaces
can "$CTRL" update jobs.batch.volcano.sh --subresource=status -n team-a
can "$CTRL" delete jobs.batch.volcano.sh -n team-a
can "$CTRL" delete commands.bus.volcano.sh -n team-a
can "$CTRL" update podgroups.scheduling.volcano.sh -n team-a
can "$CTRL" create queues.scheduling.volcano.sh
can "$CTRL" patch queues.scheduling.volcano.sh --subresource=status
can "$CTRL" patch pods --subresource=status -n team-a
can "$CTRL" watch nodes
can "$CTRL" update secrets -n team-a
can "$CTRL" create networkpolicies.networking.k8s.io -n team-a
can "$CTRL" patch events -n team-a
can "$CTRL" get replicasets.apps -n team-a
can "$CTRL" get jobs.batch -n team-a
can "$CTRL" create leases.coordination.k8s.io -n volcano-system
can "$CTRL" update leases.coordination.k8s.io/vc-controller-manager -n volcano-system
cannot "$CTRL" update leases.coordination.k8s.io/kube-scheduler -n kube-system
cannot "$CTRL" update leases.coordination.k8s.io/other -n volcano-system
cannot "$CTRL" list secrets -n team-a
cannot "$CTRL" delete nodes
cannot "$CTRL" update pods -n team-a
cannot "$CTRL" delete queues.scheduling.volcano.sh
cannot "$CTRL" create jobs.batch.volcano.sh -n team-a
cannot "$CTRL" create clusterroles.rbac.authorization.k8s.io
cannot "$CTRL" update mutatingwebhookconfigurations.admissionregistration.k8s.io
can "$WH" update mutatingwebhookconfigurations.admissionregistration.k8s.io
can "$WH" create validatingwebhookconfigurations.admissionregistration.k8s.io
can "$WH" watch queues.scheduling.volcano.sh
can "$WH" get namespaces
cannot "$WH" delete validatingwebhookconfigurations.admissionregistration.k8s.io
cannot "$WH" create pods -n team-a
cannot "$WH" update queues.scheduling.volcano.sh
cannot "$WH" list secrets -n volcano-system
pass "vc-controller and vc-webhook may do what they need and not more"

step "the Deployments' flags are the binaries' flags"
# args CONTAINER FILE: the args of the Deployment's container, one per line (the Deployment's
# document is cut out of the file first: a file of several objects prints as a List).
args() {
	awk 'BEGIN { RS = "\n---\n" } /\nkind: Deployment\n/' "$2" |
		kube create --dry-run=client -f - -o \
			jsonpath="{range .spec.template.spec.containers[?(@.name==\"$1\")].args[*]}{@}{'\n'}{end}"
}
checked=0
for pair in "vc-controller:$CONTROLLER:40-controller.yaml" "vc-webhook:$HOOK:30-webhook.yaml"; do
	IFS=: read -r name bin file <<<"$pair"
	if ! [ -x "$bin" ]; then
		skip "$bin is missing (make build): its flags are not checked"
		continue
	fi
	mapfile -t a < <(args "$name" "$MANIFESTS/$file" | grep -v '^$')
	[ ${#a[@]} -gt 3 ] || fail "no args found for $name in $file"
	out=$("$bin" "${a[@]}" --version 2>&1) || fail "$name refuses the flags of $file" "$out"
	checked=$((checked + 1))
done
pass "$checked binar(y/ies) accept the manifests' flags"
