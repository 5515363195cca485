#!/usr/bin/env bash
# Volcano's own one-file install (Volcano HEAD's installer/volcano-development.yaml) with only the
# three image names swapped for Caldera's, on the local cluster:
#
#   install     the YAML, `sed`-ed from docker.io/volcanosh/NAME:latest to $IMAGE_REPO/NAME:latest
#               (nothing else changed), applied: CRDs, RBAC, ConfigMaps, Services, the webhook
#               configurations, the admission init Job and the three Deployments
#   pods        vc-nodesim runs no containers, so the test runs each pod itself with podman,
#               translated from the API objects (not from the file): image, command, args, env,
#               runAsUser, every volume mounted at its mountPath (ConfigMaps and Secrets written
#               to host folders from the API, emptyDirs as empty folders), the token of the
#               pod's ServiceAccount at /var/run/secrets/kubernetes.io/serviceaccount and
#               KUBERNETES_SERVICE_HOST/PORT; the Deployments are scaled to 0 and the Job deleted
#               first so that no pod of theirs reaches vc-nodesim
#   admission   the init Job's ./gen-admission-secret.sh creates volcano-admission-secret; the
#               webhook Deployment serves with it, reads volcano-admission.conf from
#               volcano-admission-configmap and registers the configurations for its Service
#   scheduler   vc-scheduler reads /volcano.scheduler/volcano-scheduler.conf as mounted from
#               volcano-scheduler-configmap (no entry skipped); the binaries are the images'
#               entrypoints, so vc-controller-manager runs the controllers and vc-scheduler the
#               scheduler (argv[0] dispatch); Volcano's flags Caldera lacks are warned about
#   jobs        examples/tensorflow-benchmark.yaml and examples/mpi.yaml are admitted (the
#               webhook's defaults on them), scheduled by vc-scheduler (Events from source
#               volcano) and run to Completed by vc-nodesim; a gang too big for the nodes gets
#               the PodScheduled=False condition on its pods
#
# What differs from a real cluster, exactly:
#   - no kubelet, no container networking: podman runs the containers with the host's network
#     (`--network host`, runc, ulimits as test_image.sh), so the three pods share one network
#     namespace. Their listeners would collide (all three default healthz to :11251, the
#     scheduler's metrics to :8080): each container gets `--healthz-address=127.0.0.1:P` and
#     (controllers, scheduler) `--listen-address=127.0.0.1:P` with free ports, and the webhook
#     `--listen-address=127.0.0.1`, put before the Deployment's arguments, which follow unchanged;
#     the webhook's `--port=8443` is kept unless 8443 is in use on this machine, then replaced;
#   - the API server cannot reach the Service volcano-admission-service (no kube-proxy): once
#     the webhook has registered (caBundle set), the test patches each configuration it
#     registered to clientConfig.url https://127.0.0.1:PORT/PATH (the certificate of
#     gen-admission-secret.sh names 127.0.0.1 too). The two configurations of paths Caldera does
#     not serve (/hypernodes/validate, /cronjobs/validate) keep pointing at the Service;
#   - the pods' seccomp/SELinux options, capabilities add DAC_OVERRIDE and priorityClassName are
#     not applied (podman drops every capability, runs read-only with no new privileges);
#   - Kubernetes v1.20 does not know some fields of HEAD's CRDs (x-kubernetes-validations): the
#     YAML is applied with --validate=false and the API server drops them; v1.20 does not label
#     namespaces with kubernetes.io/metadata.name, so the webhooks' namespaceSelector excludes
#     nothing (volcano-system's objects are admitted too);
#   - the Job's and the Deployments' pods are never created (scaled to 0, deleted): no restarts,
#     no probes, no rolling update.
#
# Under Volcano's RBAC: its ClusterRole volcano-scheduler grants queues/status and pods/status
# `update` only. Caldera's scheduler patches those statuses and, once a patch is Forbidden, PUTs
# them instead (logged): the test checks that the Queues' switch happened and that no other
# request of the three daemons was Forbidden.
#
# Not part of `make test` (needs podman and root, like test_image.sh): `make test-image` runs it
# after test_image.sh (E2E_IMAGE=1). IMAGE_REPO (default localhost/caldera) names the images,
# built with scripts/image.sh when missing.
if [ "${E2E_IMAGE:-0}" != 1 ]; then
	printf '\n*** SKIP: Volcano'"'"'s install is tested by make test-image (E2E_IMAGE=1) ***\n\n'
	exit 0
fi
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

INSTALL=${VOLCANO_INSTALL:-/work/shared/volcano/volcano-development.yaml}
NS=volcano-system
CNAME=caldera-vi-$$ # prefix of the containers' names
# shellcheck source=tests/e2e/image_lib.sh
. "$(dirname "$0")/image_lib.sh"

command -v jq >/dev/null || fail "jq is missing"
[ -r "$INSTALL" ] || fail "no $INSTALL (VOLCANO_INSTALL)"

step "the images"
images_ensure
pass "$REPO/{vc-controller-manager,vc-scheduler,vc-webhook-manager}:latest"

e2e_cluster_up --rbac
images_trap

step "Volcano's install with the images swapped"
YAML=$E2E_DIR/volcano-development.yaml
sed -E "s#docker\.io/volcanosh/(vc-controller-manager|vc-scheduler|vc-webhook-manager):latest#$REPO/\1:latest#" \
	"$INSTALL" >"$YAML"
eq "lines changed by the swap" "$(diff "$INSTALL" "$YAML" | grep -c '^>' || true)" 4
grep -q 'docker.io/volcanosh' "$YAML" && fail "an image of Volcano's is left" "$(grep -n 'docker.io/volcanosh' "$YAML")"
out=$(kube apply --validate=false -f "$YAML" 2>&1) || fail "kubectl apply of Volcano's install failed" "$out"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
# The pods are the test's to run: read the objects, then make sure none of their pods exists.
SPECS=$E2E_DIR/specs
mkdir -p "$SPECS"
for d in volcano-admission volcano-controllers volcano-scheduler; do
	kube -n $NS get deployment $d -o json | jq '.spec.template.spec' >"$SPECS/$d.json" ||
		fail "cannot read Deployment $d"
	kube -n $NS scale deployment $d --replicas=0 >/dev/null || fail "cannot scale $d to 0"
done
kube -n $NS get job volcano-admission-init -o json | jq '.spec.template.spec' >"$SPECS/volcano-admission-init.json" ||
	fail "cannot read Job volcano-admission-init"
kube -n $NS delete job volcano-admission-init --wait=false >/dev/null
pass "applied ($(grep -c '^kind:' "$YAML") objects); the three Deployments scaled to 0, the init Job deleted after reading"

# --- running a pod as its spec says -------------------------------------------------------------------

SERVER=$(kube config view --minify -o jsonpath='{.clusters[0].cluster.server}')
API_HOST=${SERVER#https://}
API_PORT=${API_HOST##*:}
API_HOST=${API_HOST%:*}
sa_secret() { kube -n $NS get serviceaccount "$1" -o jsonpath='{.secrets[0].name}' | grep .; }
# sa_dir SA UID: the ServiceAccount's token, ca.crt and namespace as a folder owned by UID.
sa_dir() {
	local d=$E2E_DIR/sa/$1 secret
	wait_for "the token Secret of ServiceAccount $1" 30 sa_secret "$1"
	secret=$(sa_secret "$1")
	mkdir -p "$d"
	for key in token ca.crt namespace; do
		kube -n $NS get secret "$secret" -o json | jq -r ".data[\"$key\"]" | base64 -d >"$d/$key"
	done
	[ -s "$d/token" ] || fail "the Secret $secret has no token"
	chown -R "$2:$2" "$d"
	chmod 0500 "$d"
	chmod 0400 "$d"/*
	echo "$d"
}
# volume_dir POD SPEC VOLUME UID: a host folder with the volume's content (configMap, secret,
# emptyDir), readable by UID.
volume_dir() {
	local d=$E2E_DIR/volumes/$1/$3 v kind name key
	v=$(jq -c --arg n "$3" '.volumes[] | select(.name == $n)' "$2")
	mkdir -p "$d"
	if name=$(jq -er '.configMap.name' <<<"$v"); then
		kind=configmap
	elif name=$(jq -er '.secret.secretName' <<<"$v"); then
		kind=secret
	elif jq -e '.emptyDir' <<<"$v" >/dev/null; then
		chown "$4:$4" "$d"
		echo "$d"
		return
	else
		fail "volume $3 of $1: only configMap, secret and emptyDir volumes are supported" "$v"
	fi
	kube -n $NS get $kind "$name" -o json >"$d.json" || fail "no $kind $name for volume $3 of $1"
	for key in $(jq -r '.data // {} | keys[]' "$d.json"); do
		if [ $kind = secret ]; then
			jq -r --arg k "$key" '.data[$k]' "$d.json" | base64 -d >"$d/$key"
		else
			jq -j --arg k "$key" '.data[$k]' "$d.json" >"$d/$key"
		fi
		chmod 0644 "$d/$key" # defaultMode 420
	done
	echo "$d"
}
# pod_cmd POD SPEC [FLAG...]: the podman command line (NUL-separated) running the first
# container of the pod spec SPEC; the FLAGs go before the container's args.
pod_cmd() {
	local pod=$1 spec=$2 c uid sa vol mount ro dir
	shift 2
	c=$(jq -c '.containers[0]' "$spec")
	uid=$(jq -r '(.securityContext.runAsUser // '"$(jq '.securityContext.runAsUser // 65532' "$spec")"')' <<<"$c")
	sa=$(jq -r '.serviceAccountName // .serviceAccount // "default"' "$spec")
	printf '%s\0' "${PODMAN_RUN[@]}" --name "$CNAME-$pod" --user "$uid:$uid" \
		--env "KUBERNETES_SERVICE_HOST=$API_HOST" --env "KUBERNETES_SERVICE_PORT=$API_PORT" \
		--volume "$(sa_dir "$sa" "$uid"):$SA_MOUNT:ro"
	jq -r '.env // [] | .[] | select(.value != null) | "--env\u0000\(.name)=\(.value)"' <<<"$c" | tr '\n' '\0'
	for vol in $(jq -r '.volumeMounts // [] | .[].name' <<<"$c"); do
		mount=$(jq -r --arg n "$vol" '.volumeMounts[] | select(.name == $n) | .mountPath' <<<"$c")
		ro=$(jq -r --arg n "$vol" '.volumeMounts[] | select(.name == $n) | .readOnly // false' <<<"$c")
		dir=$(volume_dir "$pod" "$spec" "$vol" "$uid")
		# configMap and secret volumes are read-only in a pod whatever the mount says.
		jq -e --arg n "$vol" '.volumes[] | select(.name == $n) | .emptyDir' "$spec" >/dev/null || ro=true
		printf '%s\0' --volume "$dir:$mount$([ "$ro" = true ] && echo :ro)"
	done
	if jq -e '.command' <<<"$c" >/dev/null; then
		printf '%s\0' --entrypoint "$(jq -c '.command' <<<"$c")"
	fi
	printf '%s\0' "$(jq -r '.image' <<<"$c")" "$@"
	jq -r '.args // [] | .[]' <<<"$c" | tr '\n' '\0'
}
# run_pod POD SPEC [FLAG...]: run it to its end; its output on stdout.
run_pod() {
	local cmd=()
	mapfile -d '' cmd < <(pod_cmd "$@")
	printf '%q ' "${cmd[@]}" >"$E2E_DIR/$1.cmd"
	"${cmd[@]}" 2>&1
}
# start_pod POD SPEC [FLAG...]: as a daemon (start_daemon), logging to daemons/POD.log.
start_pod() {
	local cmd=()
	mapfile -d '' cmd < <(pod_cmd "$@")
	printf '%q ' "${cmd[@]}" >"$E2E_DIR/$1.cmd"
	start_daemon "$1" "${cmd[@]}"
}

# --- the pods --------------------------------------------------------------------------------------------

step "the admission init Job's container: ./gen-admission-secret.sh"
out=$(run_pod admission-init "$SPECS/volcano-admission-init.json") || fail "the admission init container failed" "$out"
grep -qx 'secret/volcano-admission-secret created' <<<"$out" || fail "gen-admission-secret.sh did not create the Secret" "$out"
pass "volcano-admission-secret created (the Job's command, as user $(jq '.containers[0].securityContext.runAsUser' "$SPECS/volcano-admission-init.json"))"

step "the volcano-admission Deployment's container"
HOOK_PORT=8443
in_use $HOOK_PORT && HOOK_PORT=$(free_port)
jq --arg p "--port=$HOOK_PORT" '.containers[0].args |= map(if startswith("--port=") then $p else . end)' \
	"$SPECS/volcano-admission.json" >"$SPECS/volcano-admission.run.json"
HOOK_HPORT=$(free_port)
start_pod admission "$SPECS/volcano-admission.run.json" --listen-address=127.0.0.1 \
	"--healthz-address=127.0.0.1:$HOOK_HPORT"
hook_healthy() { curl -fsS --max-time 2 -k "https://127.0.0.1:$HOOK_HPORT/healthz" || curl -fsS --max-time 2 "http://127.0.0.1:$HOOK_HPORT/healthz"; }
wait_for "the webhook healthy" 60 hook_healthy
ca_bundle() { kube get "$1" "$2" -o jsonpath='{.webhooks[0].clientConfig.caBundle}'; }
registered() { [ -n "$(ca_bundle validatingwebhookconfiguration volcano-admission-service-jobs-validate)" ]; }
wait_for "the webhook's registration (caBundle)" 60 registered
patched=()
for kind in mutatingwebhookconfiguration validatingwebhookconfiguration; do
	for name in $(kube get $kind -o name | sed 's#.*/##' | grep '^volcano-admission-service-'); do
		[ -n "$(ca_bundle $kind "$name")" ] || continue
		path=$(kube get $kind "$name" -o jsonpath='{.webhooks[0].clientConfig.service.path}')
		kube patch $kind "$name" --type=json -p "[{\"op\":\"remove\",\"path\":\"/webhooks/0/clientConfig/service\"},
			{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/url\",\"value\":\"https://127.0.0.1:$HOOK_PORT$path\"}]" >/dev/null ||
			fail "cannot patch $kind $name to a URL"
		patched+=("$path")
	done
done
eq "paths registered and patched to a URL" "$(printf '%s\n' "${patched[@]}" | sort | paste -sd' ')" \
	"/jobs/mutate /jobs/validate /podgroups/validate /queues/mutate /queues/validate"
log=$(cat "$E2E_DIR/daemons/admission.log")
grep -qF 'msg="ignoring an argument" arg="2>&1"' <<<"$log" || fail "the webhook did not say it ignores 2>&1" "$log"
grep -qF 'admission paths of Volcano that Caldera does not serve are skipped' <<<"$log" ||
	fail "the webhook did not say it skips /hypernodes/validate and /cronjobs/validate" "$log"
pass "serving on 127.0.0.1:$HOOK_PORT with volcano-admission-secret; 5 configurations patched to URLs"

step "the volcano-controllers and volcano-scheduler Deployments' containers"
CM_HPORT=$(free_port)
start_pod controllers "$SPECS/volcano-controllers.json" "--healthz-address=127.0.0.1:$CM_HPORT" \
	"--listen-address=127.0.0.1:$(free_port)"
SC_HPORT=$(free_port)
SC_MPORT=$(free_port)
start_pod scheduler "$SPECS/volcano-scheduler.json" "--healthz-address=127.0.0.1:$SC_HPORT" \
	"--listen-address=127.0.0.1:$SC_MPORT"
healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$1/healthz"; }
wait_for "vc-controller-manager healthy" 60 healthy "$CM_HPORT"
wait_for "vc-scheduler healthy" 60 healthy "$SC_HPORT"
started() { grep -F 'msg="started"' "$E2E_DIR/daemons/$1.log"; }
wait_for "vc-controller-manager started" 30 started controllers
wait_for "vc-scheduler started" 30 started scheduler
grep -qF 'comp=vc-controller-manager msg="started" scheduler=off' "$E2E_DIR/daemons/controllers.log" ||
	fail "vc-controller-manager: not the controllers alone" "$(started controllers)"
grep -qF 'comp=vc-scheduler msg="started" scheduler=on' "$E2E_DIR/daemons/scheduler.log" ||
	fail "vc-scheduler: not the scheduler" "$(started scheduler)"
grep -qF 'msg="flag --sharding-configmap has no effect in Caldera"' "$E2E_DIR/daemons/controllers.log" ||
	fail "vc-controller-manager did not warn about --sharding-configmap" "$(head -20 "$E2E_DIR/daemons/controllers.log")"
grep -qF 'msg="flag --node-worker-threads has no effect in Caldera"' "$E2E_DIR/daemons/scheduler.log" ||
	fail "vc-scheduler did not warn about --node-worker-threads" "$(head -20 "$E2E_DIR/daemons/scheduler.log")"
curl -fsS "http://127.0.0.1:$SC_MPORT/metrics" | grep -x 'volcano_scheduler_configuration_skipped_entries 0' >/dev/null ||
	fail "vc-scheduler skipped entries of volcano-scheduler-configmap" "$(grep 'entry skipped' "$E2E_DIR/daemons/scheduler.log")"
start_daemon nodesim "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix node \
	--nodes 4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110 --fast-delete --heartbeat-period 5s
wait_for "4 Ready nodes" 30 nodes_ready 4
wait_for "the default queue Open" 30 queue_open
pass "vc-controller-manager (controllers) and vc-scheduler (scheduler, volcano-scheduler.conf from the ConfigMap) healthy; 4 simulated nodes"

# --- the seed jobs -----------------------------------------------------------------------------------------

for ex in tensorflow-benchmark:tensorflow-benchmark mpi:lm-mpi-job; do
	file=${ex%%:*}
	J=${ex#*:}
	step "examples/$file.yaml"
	ns "vi-$file"
	apply_job "$E2E_ROOT/examples/$file.yaml"
	eq "queue of $J (the webhook's default)" "$(jfield "$J" '{.spec.queue}')" default
	wait_phase "$J" Completed 120
	eq "sources of the Scheduled Events" "$(k get events --field-selector reason=Scheduled \
		-o jsonpath='{range .items[*]}{.source.component}{"\n"}{end}' | sort -u)" volcano
	pass "$J admitted, scheduled by vc-scheduler (source volcano) and Completed"
done
step "a gang that cannot be placed: its pods' PodScheduled=False condition"
# 5 x 5 CPUs: enqueued (25 of the 32 CPUs are idle), but only one such pod fits a node (8 CPUs).
ns vi-unfit
k apply -f - >/dev/null <<'YAML' || fail "cannot create the job unfit"
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: unfit
spec:
  schedulerName: volcano
  minAvailable: 5
  tasks:
  - name: big
    replicas: 5
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
          resources: {requests: {cpu: "5"}}
YAML
unschedulable() {
	[ "$(pfield unfit-big-0 '{.status.conditions[?(@.type=="PodScheduled")].status}')" = False ]
}
wait_for "PodScheduled=False on unfit-big-0" 60 unschedulable
# Schedulable (fits, the gang does not) or Unschedulable, as Volcano's reasons.
msg=$(pfield unfit-big-0 '{.status.conditions[?(@.type=="PodScheduled")].reason}: {.status.conditions[?(@.type=="PodScheduled")].message}')
grep -qE '^(Schedulable|Unschedulable): .' <<<"$msg" || fail "the PodScheduled condition of unfit-big-0" "$msg"
k delete vcjob unfit --wait=false >/dev/null
pass "PodScheduled=False, $msg"

step "Volcano's RBAC"
switched='msg="patching the status is forbidden, updating it instead"'
grep -qF "$switched resource=queues/status" "$E2E_DIR/daemons/scheduler.log" ||
	fail "vc-scheduler did not fall back to updating queues/status" "$(grep -i forbidden "$E2E_DIR/daemons/scheduler.log")"
left=$(grep -h 'forbidden' "$E2E_DIR"/daemons/{admission,controllers,scheduler}.log | grep -vF "$switched" || true)
[ -z "$left" ] || fail "requests Forbidden by Volcano's RBAC" "$left"
grep -qF "$switched resource=pods/status" "$E2E_DIR/daemons/scheduler.log" ||
	fail "vc-scheduler did not fall back to updating pods/status" "$(grep -i forbidden "$E2E_DIR/daemons/scheduler.log")"
pass "queues/status and pods/status PUT after a Forbidden PATCH; nothing else Forbidden"
for d in scheduler controllers admission; do
	stop_daemon $d
done
pass "the three containers stopped"
