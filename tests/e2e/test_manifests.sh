#!/usr/bin/env bash
# manifests/ (a kustomize base, its components and overlays) against a real API server:
# - every kustomization (manifests/, base/, each of overlays/) renders with `kubectl kustomize`,
#   with what its overlay is for (the scheduler apart, Volcano's names, two replicas, Prometheus,
#   the pod webhooks on or off), and an overlay of one's own swaps the images with `images:`;
# - each passes `kubectl apply -k --dry-run=server` (schemas, defaulting, validation, RBAC
#   escalation checks) and creates nothing; broken copies are refused;
# - installed for real (`kubectl apply -k manifests/`), the ServiceAccounts may do what they need
#   and not more (`kubectl auth can-i`), and so after switching to overlays/production and
#   overlays/volcano; the upgrade step docs/install.md gives for the Job of components/ha holds;
# - every Deployment's flags, in every overlay, are accepted by the binary it runs;
# - the uninstall of docs/install.md leaves nothing behind.
#
# VC_CONTROLLER / VC_WEBHOOK (default build/vc-controller, build/vc-webhook) are the binaries
# whose flag tables are checked; a missing binary skips that step.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/manifests_lib.sh
. "$(dirname "$0")/manifests_lib.sh"

MANIFESTS=$E2E_ROOT/manifests
CONTROLLER=${VC_CONTROLLER:-$E2E_ROOT/build/vc-controller}
HOOK=${VC_WEBHOOK:-$E2E_ROOT/build/vc-webhook}
command -v jq >/dev/null || fail "jq is missing"

# The kustomizations: manifests/ itself, base/ and every overlay, by a short name.
declare -A DIR=([default]=$MANIFESTS [base]=$MANIFESTS/base)
for d in "$MANIFESTS"/overlays/*/; do
	d=${d%/}
	DIR[${d##*/}]=$d
done
NAMES=$(printf '%s\n' "${!DIR[@]}" | sort)

e2e_cluster_up --rbac

step "CRDs and the namespace"
kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
# A server-side dry run creates nothing, so the namespaced objects need the namespace for real.
kube apply -f "$MANIFESTS/base/00-namespace.yaml" >/dev/null || fail "cannot create the namespace"
wait_for "the namespace's default ServiceAccount" 30 kube -n $NS get serviceaccount default
pass "crds/ applied, namespace $NS created"

# --- rendering ---------------------------------------------------------------------------------

R=$E2E_DIR/rendered
mkdir -p "$R"
step "kubectl kustomize: $(tr '\n' ' ' <<<"$NAMES")"
for n in $NAMES; do
	render "${DIR[$n]}" "$R/$n"
done
cmp -s "$R/default.yaml" "$R/base.yaml" || fail "manifests/ does not render as manifests/base/"
# q NAME JQ: a jq query (raw output) on the rendering of NAME (a List).
q() { jq -r "$2" "$R/$1.json"; }
# obj NAME KIND OBJ JQ: a query on one object of the rendering.
obj() { q "$1" ".items[] | select(.kind == \"$2\" and .metadata.name == \"$3\") | $4"; }
# deps NAME: its Deployments' names.
deps() { q "$1" '[.items[] | select(.kind == "Deployment") | .metadata.name] | sort | join(" ")'; }
arg_of() { # NAME DEPLOYMENT FLAG: the value of --FLAG=... of the first container
	obj "$1" Deployment "$2" ".spec.template.spec.containers[0].args[]" | sed -n "s/^--$3=//p"
}
expect() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
NOPOD=/jobs/mutate,/jobs/validate,/podgroups/mutate,/queues/mutate,/queues/validate
WITHPOD=/jobs/mutate,/jobs/validate,/podgroups/mutate,/pods/validate,/pods/mutate,/queues/mutate,/queues/validate

expect "base: objects" "$(q base '.items | length')" 13
expect "base: Deployments" "$(deps base)" "vc-controller vc-webhook"
expect "base: images" "$(q base '[.items[] | select(.kind == "Deployment") | .spec.template.spec |
	(.initContainers // [])[], .containers[] | .image] | unique | join(" ")')" \
	"localhost/caldera/vc-controller-manager:0.1.0 localhost/caldera/vc-webhook-manager:0.1.0"
expect "base: pod webhooks off" "$(arg_of base vc-webhook enabled-admission)" "$NOPOD"
expect "base: replicas" "$(q base '[.items[] | select(.kind == "Deployment") | .spec.replicas] | join(" ")')" "1 1"

expect "scheduler: Deployments" "$(deps scheduler)" "vc-controller vc-scheduler vc-webhook"
expect "scheduler: controller without the scheduler" "$(arg_of scheduler vc-controller enable-scheduler)" false
expect "scheduler: vc-scheduler" "$(obj scheduler Deployment vc-scheduler \
	'.spec.template.spec.containers[0] | "\(.image) \(.command[0])"')" \
	"localhost/caldera/vc-scheduler:0.1.0 /usr/local/bin/vc-scheduler"
expect "scheduler: its Lease" "$(arg_of scheduler vc-scheduler leader-elect-resource-name)" vc-scheduler

expect "ha: replicas" "$(q ha '[.items[] | select(.kind == "Deployment") | .spec.replicas] | join(" ")')" "2 2"
expect "ha: webhook certificates" "$(obj ha Deployment vc-webhook '.spec.template.spec |
	"\(.initContainers // [] | length) \(.volumes | map(.secret.secretName // "-") | join(","))"')" \
	"0 volcano-admission-secret"
expect "ha: the Job" "$(obj ha Job vc-webhook-certs '.spec.template.spec.serviceAccountName')" vc-webhook-certs
expect "ha: leader election" "$(arg_of ha vc-controller leader-elect)" true
expect "ha: the webhook's preStop" "$(obj ha Deployment vc-webhook \
	'.spec.template.spec.containers[0].lifecycle.preStop.exec.command | join(" ")')" "/bin/sleep 5"

expect "metrics: Service" "$(obj metrics Service vc-controller-metrics \
	'"\(.metadata.annotations["prometheus.io/scrape"]) \(.metadata.annotations["prometheus.io/port"]) \(.spec.selector.app) \(.spec.ports[0].targetPort)"')" \
	"true 8081 vc-controller metrics"
expect "metrics: pod annotations" "$(obj metrics Deployment vc-controller \
	'.spec.template.metadata.annotations["prometheus.io/port"]')" 8081
expect "metrics: --enable-metrics" "$(arg_of metrics vc-controller enable-metrics)" true

expect "pod-webhooks: paths" "$(arg_of pod-webhooks vc-webhook enabled-admission)" "$WITHPOD"
expect "pod-webhooks: replicas" "$(obj pod-webhooks Deployment vc-webhook .spec.replicas)" 2

# Volcano's names (volcano-development.yaml): Deployments, ServiceAccounts, app labels, the
# scheduler ConfigMap and its key, the Services.
expect "volcano: Deployments" "$(deps volcano)" "volcano-admission volcano-controllers volcano-scheduler"
for pair in volcano-admission:volcano-admission:volcano-admission \
	volcano-controllers:volcano-controllers:volcano-controller \
	volcano-scheduler:volcano-scheduler:volcano-scheduler; do
	IFS=: read -r d sa app <<<"$pair"
	expect "volcano: $d" "$(obj volcano Deployment "$d" \
		'"\(.spec.template.spec.serviceAccountName) \(.spec.selector.matchLabels.app) \(.spec.template.metadata.labels.app)"')" \
		"$sa $app $app"
	expect "volcano: ServiceAccount $sa" "$(obj volcano ServiceAccount "$sa" .metadata.namespace)" $NS
done
expect "volcano: scheduler ConfigMap" "$(obj volcano ConfigMap volcano-scheduler-configmap '.data | keys | join(",")')" \
	volcano-scheduler.conf
expect "volcano: --scheduler-conf" "$(arg_of volcano volcano-scheduler scheduler-conf)" \
	/volcano.scheduler/volcano-scheduler.conf
expect "volcano: its mount" "$(obj volcano Deployment volcano-scheduler \
	'.spec.template.spec.volumes[0].configMap.name + " " + .spec.template.spec.containers[0].volumeMounts[0].mountPath')" \
	"volcano-scheduler-configmap /volcano.scheduler"
expect "volcano: Services" "$(q volcano '[.items[] | select(.kind == "Service") | "\(.metadata.name)=\(.spec.selector.app)"] | sort | join(" ")')" \
	"volcano-admission-service=volcano-admission volcano-controllers-service=volcano-controller volcano-scheduler-service=volcano-scheduler"
expect "volcano: nothing left with our names" "$(q volcano '[.items[] | select(.kind != "Role" and .kind != "RoleBinding")
	| .metadata.name | select(test("^(vc-|caldera:)"))] | join(" ")')" "caldera:volcano-scheduler"

expect "production: Deployments" "$(deps production)" "vc-controller vc-scheduler vc-webhook"
expect "production: replicas" "$(q production '[.items[] | select(.kind == "Deployment") | .spec.replicas] | join(" ")')" "2 2 2"
expect "production: scheduler metrics annotations" "$(obj production Deployment vc-scheduler \
	'.spec.template.metadata.annotations["prometheus.io/port"]')" 8080

# The image swap of docs/install.md: an overlay of one's own with images:.
MINE=$E2E_DIR/mine
mkdir -p "$MINE"
cat >"$MINE/kustomization.yaml" <<EOF
resources:
  - $(realpath --relative-to="$MINE" "$MANIFESTS/overlays/production")
images:
  - name: localhost/caldera/vc-controller-manager
    newName: registry.example.com/caldera/vc-controller-manager
    newTag: 0.1.1
  - name: localhost/caldera/vc-scheduler
    newName: registry.example.com/caldera/vc-scheduler
    newTag: 0.1.1
  - name: localhost/caldera/vc-webhook-manager
    newName: registry.example.com/caldera/vc-webhook-manager
    newTag: 0.1.1
EOF
out=$(kube kustomize "$MINE" 2>&1) || fail "an overlay with images: does not render" "$out"
got=$(grep -o 'image: .*' <<<"$out" | sort -u | tr '\n' ' ')
expect "images: swap" "$got" "image: registry.example.com/caldera/vc-controller-manager:0.1.1 image: registry.example.com/caldera/vc-scheduler:0.1.1 image: registry.example.com/caldera/vc-webhook-manager:0.1.1 "
pass "$(wc -w <<<"$NAMES") kustomizations render as their overlays say; images: swaps every image"

# --- server-side dry runs ------------------------------------------------------------------------

step "kubectl apply -k --dry-run=server"
for n in $NAMES; do
	out=$(kube apply -k "${DIR[$n]}" --dry-run=server 2>&1) || fail "the server refused $n" "$out"
	got=$(grep -c '(server dry run)$' <<<"$out")
	want=$(q "$n" '.items | length')
	[ "$got" = "$want" ] || fail "$n: $got objects in the dry run, $want rendered" "$out"
	printf '     %-14s %2s objects\n' "$n" "$got"
done
out=$(kube apply -k "$MANIFESTS" --dry-run=server 2>&1)
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
gone deployment vc-controller -n $NS || fail "the dry run created the Deployment"
# The webhook-first order of docs/install.md: everything but the controller and the scheduler.
out=$(kube apply -k "${DIR[production]}" --dry-run=server \
	-l 'app.kubernetes.io/component!=controller,app.kubernetes.io/component!=scheduler' 2>&1) ||
	fail "the webhook-first apply failed" "$out"
for want in namespace/volcano-system deployment.apps/vc-webhook job.batch/vc-webhook-certs; do
	grep -q "^$want .*(server dry run)$" <<<"$out" || fail "the webhook-first apply lacks $want" "$out"
done
if grep -q 'deployment.apps/vc-controller\|deployment.apps/vc-scheduler' <<<"$out"; then
	fail "the webhook-first apply has the controller or the scheduler" "$out"
fi
gone clusterrole caldera:vc-controller || fail "the dry run created the ClusterRole"
pass "every kustomization accepted by the server, nothing created"

step "broken copies are refused"
BROKEN=$E2E_DIR/broken
cp -r "$MANIFESTS" "$BROKEN"
# The selector no longer matches the pod template's labels: only the server checks that.
sed -i '/matchLabels:/{n;s/app: vc-controller/app: not-vc-controller/}' "$BROKEN/base/40-controller.yaml"
grep -q 'app: not-vc-controller' "$BROKEN/base/40-controller.yaml" || fail "the test could not break the copy"
# shellcheck disable=SC2016 # the backquotes are Kubernetes' own
expect_fail_with '`selector` does not match template `labels`' \
	kube apply --dry-run=server -k "$BROKEN"
# A ConfigMap name that is not a DNS subdomain.
cp "$MANIFESTS/base/40-controller.yaml" "$BROKEN/base/40-controller.yaml"
sed -i 's/name: vc-scheduler-config$/name: VC_Scheduler_Config/' "$BROKEN/base/20-scheduler-config.yaml"
expect_fail_with 'a lowercase RFC 1123 subdomain' kube apply --dry-run=server -k "$BROKEN/overlays/production"
cp "$MANIFESTS/base/20-scheduler-config.yaml" "$BROKEN/base/20-scheduler-config.yaml"
# A base that moved under the components: their `test` operations refuse to patch blindly.
sed -i 's|--enabled-admission=/jobs/mutate,|--enabled-admission=/jobs/validate,/jobs/mutate,|' "$BROKEN/base/30-webhook.yaml"
expect_fail_with 'testing value' kube kustomize "$BROKEN/overlays/pod-webhooks"
cp "$MANIFESTS/base/30-webhook.yaml" "$BROKEN/base/30-webhook.yaml"
sed -i 's|--scheduler-conf=/etc/caldera/scheduler.conf|--scheduler-conf=/etc/scheduler.conf|' "$BROKEN/base/40-controller.yaml"
expect_fail_with 'testing value' kube kustomize "$BROKEN/overlays/volcano"
pass "a bad selector and a bad ConfigMap name refused by the server; components refuse a base they do not fit"

# --- installed: RBAC ------------------------------------------------------------------------------

step "kubectl apply -k manifests/: what the ServiceAccounts may do"
out=$(kube apply -k "$MANIFESTS" 2>&1) || fail "kubectl apply -k manifests/ failed" "$out"
CTRL=system:serviceaccount:$NS:vc-controller
WH=system:serviceaccount:$NS:vc-webhook
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
# controller_rights AS LEASE: what the controller's ClusterRole (and its Lease Role) allow.
controller_rights() {
	local c=$1
	wait_for "the ClusterRole of ${c##*:} to take effect" 30 \
		kube auth can-i create pods --subresource=binding -n default --as="$c"
	can "$c" list jobs.batch.volcano.sh --all-namespaces
	can "$c" update jobs.batch.volcano.sh --subresource=status -n team-a
	can "$c" delete jobs.batch.volcano.sh -n team-a
	can "$c" delete commands.bus.volcano.sh -n team-a
	can "$c" update podgroups.scheduling.volcano.sh -n team-a
	can "$c" create queues.scheduling.volcano.sh
	can "$c" patch queues.scheduling.volcano.sh --subresource=status
	can "$c" patch pods --subresource=status -n team-a
	can "$c" watch nodes
	can "$c" update persistentvolumes
	can "$c" update persistentvolumeclaims -n team-a
	can "$c" watch storageclasses.storage.k8s.io
	can "$c" watch csinodes.storage.k8s.io
	cannot "$c" delete persistentvolumes
	can "$c" update secrets -n team-a
	can "$c" create networkpolicies.networking.k8s.io -n team-a
	can "$c" patch events -n team-a
	can "$c" get replicasets.apps -n team-a
	can "$c" watch statefulsets.apps --all-namespaces
	can "$c" list services --all-namespaces
	can "$c" watch namespaces
	can "$c" list replicationcontrollers --all-namespaces
	can "$c" get jobs.batch -n team-a
	can "$c" create leases.coordination.k8s.io -n $NS
	can "$c" update "leases.coordination.k8s.io/$2" -n $NS
	cannot "$c" update leases.coordination.k8s.io/kube-scheduler -n kube-system
	cannot "$c" update leases.coordination.k8s.io/other -n $NS
	cannot "$c" list secrets -n team-a
	cannot "$c" delete nodes
	cannot "$c" update pods -n team-a
	cannot "$c" delete queues.scheduling.volcano.sh
	cannot "$c" create jobs.batch.volcano.sh -n team-a
	cannot "$c" create clusterroles.rbac.authorization.k8s.io
	cannot "$c" update mutatingwebhookconfigurations.admissionregistration.k8s.io
}
webhook_rights() {
	local w=$1
	wait_for "the ClusterRole of ${w##*:} to take effect" 30 kube auth can-i get namespaces --as="$w"
	can "$w" update mutatingwebhookconfigurations.admissionregistration.k8s.io
	can "$w" create validatingwebhookconfigurations.admissionregistration.k8s.io
	can "$w" watch queues.scheduling.volcano.sh
	can "$w" get namespaces
	can "$w" watch namespaces
	cannot "$w" delete validatingwebhookconfigurations.admissionregistration.k8s.io
	cannot "$w" create pods -n team-a
	cannot "$w" update queues.scheduling.volcano.sh
	cannot "$w" list secrets -n $NS
}
controller_rights "$CTRL" vc-controller-manager
webhook_rights "$WH"
pass "vc-controller and vc-webhook may do what they need and not more"

step "switched to overlays/production, then overlays/volcano added"
out=$(kube apply -k "${DIR[production]}" 2>&1) || fail "kubectl apply -k overlays/production failed" "$out"
SCHED=system:serviceaccount:$NS:vc-scheduler
controller_rights "$SCHED" vc-scheduler
cannot "$SCHED" update leases.coordination.k8s.io/vc-controller-manager -n $NS
cannot "$CTRL" update leases.coordination.k8s.io/vc-scheduler -n $NS
CERTS=system:serviceaccount:$NS:vc-webhook-certs
can "$CERTS" create secrets -n $NS
cannot "$CERTS" get secrets -n $NS
cannot "$CERTS" create secrets -n team-a
expect "the Job after the switch" "$(kube -n $NS get job vc-webhook-certs -o jsonpath='{.spec.template.spec.serviceAccountName}')" vc-webhook-certs
out=$(kube apply -k "${DIR[volcano]}" 2>&1) || fail "kubectl apply -k overlays/volcano failed" "$out"
controller_rights system:serviceaccount:$NS:volcano-controllers vc-controller-manager
controller_rights system:serviceaccount:$NS:volcano-scheduler vc-scheduler
webhook_rights system:serviceaccount:$NS:volcano-admission
pass "vc-scheduler, vc-webhook-certs and Volcano's names get their rights and no more"

step "upgrade: a new image for the Job of components/ha"
# A Job's pod template is immutable: a new image is refused until the old Job is deleted
# (docs/install.md, "Upgrading").
expect_fail_with 'field is immutable' kube apply -k "$MINE"
kube -n $NS delete job vc-webhook-certs >/dev/null || fail "cannot delete the Job"
out=$(kube apply -k "$MINE" 2>&1) || fail "the upgrade failed after deleting the Job" "$out"
expect "upgraded image" "$(kube -n $NS get deployment vc-scheduler -o jsonpath='{.spec.template.spec.containers[0].image}')" \
	registry.example.com/caldera/vc-scheduler:0.1.1
pass "a changed Job is refused until deleted, then the upgrade applies"

# --- flags ----------------------------------------------------------------------------------------

step "every Deployment's flags are its binary's flags"
checked=0
# shellcheck disable=SC2016 # $d is jq's
for n in $NAMES; do
	while IFS=$'\t' read -r dep cmd args; do
		case $cmd in
		*/vc-webhook) bin=$HOOK ;;
		*/vc-controller) bin=$CONTROLLER ;;
		# The same program by another name: it runs that role with that role's flags.
		*/vc-controller-manager | */vc-scheduler)
			bin=$E2E_DIR/bin/${cmd##*/}
			mkdir -p "$E2E_DIR/bin" && ln -sf "$CONTROLLER" "$bin"
			;;
		*) fail "$n: $dep runs $cmd, which this test does not know" ;;
		esac
		if ! [ -x "$bin" ]; then
			skip "$bin is missing (make build): its flags are not checked"
			continue
		fi
		mapfile -t a < <(jq -r '.[]' <<<"$args")
		[ ${#a[@]} -gt 3 ] || fail "no args found for $dep in $n"
		out=$("$bin" "${a[@]}" --version 2>&1) || fail "$n: $bin refuses the flags of $dep" "$out"
		checked=$((checked + 1))
	done < <(q "$n" '.items[] | select(.kind == "Deployment") | .metadata.name as $d
		| .spec.template.spec.containers[] | [$d, .command[0], (.args | tojson)] | @tsv')
done
[ "$checked" -ge 16 ] || fail "only $checked containers checked"
pass "$checked containers' flags accepted"

# --- uninstall ------------------------------------------------------------------------------------

step "uninstall as docs/install.md says"
out=$(kube delete -k "${DIR[production]}" --dry-run=server 2>&1) || fail "delete -k --dry-run=server failed" "$out"
kube -n $NS get deployment vc-scheduler >/dev/null || fail "the dry run deleted something"
kube -n $NS delete deployment -l app.kubernetes.io/name=caldera >/dev/null || fail "cannot delete the Deployments"
kube delete mutatingwebhookconfigurations,validatingwebhookconfigurations \
	-l app.kubernetes.io/managed-by=vc-webhook >/dev/null || fail "cannot delete the webhook configurations"
for n in volcano production; do
	out=$(kube delete -k "${DIR[$n]}" --ignore-not-found 2>&1) || fail "kubectl delete -k overlays/$n failed" "$out"
done
left=$(kube get clusterroles,clusterrolebindings -l app.kubernetes.io/name=caldera -o name)
[ -z "$left" ] || fail "cluster-wide objects left after the uninstall" "$left"
wait_for "the namespace to go" 60 gone namespace $NS
pass "Deployments, webhook configurations, then delete -k: nothing of ours left"
