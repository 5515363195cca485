#!/usr/bin/env bash
# The container images of `make image` (scripts/image.sh) on the local cluster, every Caldera
# daemon in a container, as a Deployment would run it: podman (runc, host network, read-only
# root filesystem, no capabilities, no new privileges), user 65532, the in-cluster
# configuration (KUBERNETES_SERVICE_HOST/PORT and a ServiceAccount's token, ca.crt and namespace
# mounted at /var/run/secrets/kubernetes.io/serviceaccount) under the least-privilege RBAC of
# manifests/ (the cluster runs with --rbac):
#
#   images         vc-controller-manager, vc-scheduler and vc-webhook-manager exist, share their
#                  first two layers (vc-webhook-manager has a third, the admission init's), run
#                  as 65532 and start their ENTRYPOINT (--version); vcctl runs there as
#                  kubectl-vc and as Volcano's vsub, vjobs, vqueues, vcancel, vsuspend, vresume
#   certificates   vc-webhook-manager --generate-certs writes into a mounted folder; the
#                  init container of manifests/base/30-webhook.yaml (/bin/sh -c) runs in the image
#   admission init what Volcano's admission init Job runs, ./gen-admission-secret.sh in
#                  vc-webhook-manager, creates the Secret (a ServiceAccount allowed to create
#                  Secrets, as Volcano's chart has); run again it fails as kubectl create does
#   stack          vc-webhook-manager (registered by URL on 127.0.0.1) and
#                  vc-controller-manager's image run as vc-controller (every controller, the
#                  bundled scheduler) healthy;
#                  vc-nodesim on the host plays the kubelet of 4 nodes
#   job            examples/tensorflow-benchmark.yaml runs to Completed; the webhook's
#                  defaults are on it; vcctl and vjobs (in the image) list it
#   start-up       E2E_IMAGE_STARTS (default 5) times each: podman run until /healthz answers,
#                  and the same with the host's binary; the medians are printed
#
# Not part of `make test` (it needs podman and root): `make test-image`, which sets E2E_IMAGE=1;
# without it (tests/e2e/run.sh runs every test_*.sh) the test says SKIP and passes. The images
# are built first when missing (scripts/image.sh); IMAGE_REPO as there. The containers are named
# caldera-e2e-PID-*; on exit they are stopped with their podman processes and removed by name.
if [ "${E2E_IMAGE:-0}" != 1 ]; then
	printf '\n*** SKIP: the images are tested by make test-image (E2E_IMAGE=1) ***\n\n'
	exit 0
fi
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

STARTS=${E2E_IMAGE_STARTS:-5}
# vcctl's other names in /usr/local/bin: Volcano's v* programs.
VCCTL_NAMES=(vsub vjobs vqueues vcancel vsuspend vresume)
NS=volcano-system
CNAME=caldera-e2e-$$ # prefix of the containers' names
# shellcheck source=tests/e2e/image_lib.sh
. "$(dirname "$0")/image_lib.sh"

step "the images"
images_ensure
# layers IMAGE: the first two layers of the image.
layers() { podman image inspect --format '{{index .RootFS.Layers 0}} {{index .RootFS.Layers 1}}' "$REPO/$1:latest"; }
for i in "${IMAGES[@]}"; do
	podman image exists "$REPO/$i:latest" || fail "no image $REPO/$i:latest"
	eq "layers of $i" "$(layers "$i")" "$(layers vc-controller-manager)"
	eq "user of $i" "$(podman image inspect --format '{{.Config.User}}' "$REPO/$i:latest")" 65532:65532
done
eq "entrypoints" "$(for i in "${IMAGES[@]}"; do podman image inspect --format '{{json .Config.Entrypoint}}' "$REPO/$i:latest"; done | paste -sd' ')" \
	'["/usr/local/bin/vc-controller-manager"] ["/usr/local/bin/vc-scheduler"] ["/usr/local/bin/vc-webhook"]'
want=$("$CTRL" --version)
for i in vc-controller-manager vc-scheduler; do
	eq "$i --version" "$("${PODMAN_RUN[@]}" "$REPO/$i:latest" --version 2>&1)" "$want"
done
eq "vc-webhook-manager --version" "$("${PODMAN_RUN[@]}" "$REPO/vc-webhook-manager:latest" --version 2>&1)" "$("$HOOK" --version)"
eq "kubectl-vc version" "$("${PODMAN_RUN[@]}" --entrypoint /usr/local/bin/kubectl-vc "$REPO/vc-controller-manager:latest" version 2>&1)" \
	"$("$VCCTL" version 2>&1)"
# Volcano's single-command programs: vcctl under their names (it looks at argv[0]), each with
# its own help, as on the host.
for v in "${VCCTL_NAMES[@]}"; do
	eq "$v --help" "$("${PODMAN_RUN[@]}" --entrypoint "/usr/local/bin/$v" "$REPO/vc-controller-manager:latest" --help 2>&1)" \
		"$("$(dirname "$VCCTL")/$v" --help 2>&1)"
done
eq "layer count" "$(for i in "${IMAGES[@]}"; do podman image inspect --format '{{len .RootFS.Layers}}' "$REPO/$i:latest"; done | paste -sd' ')" "2 2 3"
pass "3 images sharing 2 layers (vc-webhook-manager: +1, admission init), user 65532, entrypoints vc-controller-manager, vc-scheduler, vc-webhook; vcctl as kubectl-vc, ${VCCTL_NAMES[*]}"

# --- the cluster, the RBAC, the credentials --------------------------------------------------------

e2e_cluster_up --rbac
images_trap

kube apply -f "$E2E_ROOT/crds" >/dev/null || fail "kubectl apply -f crds failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
kube apply -f "$E2E_ROOT/manifests/base/00-namespace.yaml" -f "$E2E_ROOT/manifests/base/10-rbac-controller.yaml" \
	-f "$E2E_ROOT/manifests/base/11-rbac-webhook.yaml" >/dev/null || fail "cannot apply the namespace and the RBAC of manifests/"
SERVER=$(kube config view --minify -o jsonpath='{.clusters[0].cluster.server}')
API_HOST=${SERVER#https://}
API_PORT=${API_HOST##*:}
API_HOST=${API_HOST%:*}
# sa_dir NAME: the ServiceAccount's token Secret (Kubernetes 1.20 makes one) as a folder to mount.
sa_secret() { kube -n $NS get serviceaccount "$1" -o jsonpath='{.secrets[0].name}' | grep .; }
sa_dir() {
	local d=$E2E_DIR/sa/$1 secret
	wait_for "the token Secret of ServiceAccount $1" 30 sa_secret "$1"
	secret=$(sa_secret "$1")
	mkdir -p "$d"
	kube -n $NS get secret "$secret" -o jsonpath='{.data.token}' | base64 -d >"$d/token"
	kube -n $NS get secret "$secret" -o jsonpath='{.data.ca\.crt}' | base64 -d >"$d/ca.crt"
	kube -n $NS get secret "$secret" -o jsonpath='{.data.namespace}' | base64 -d >"$d/namespace"
	{ [ -s "$d/token" ] && [ -s "$d/ca.crt" ]; } ||
		fail "the Secret $secret has no token or ca.crt"
	chown -R 65532:65532 "$d"
	chmod 0500 "$d"
	chmod 0400 "$d"/*
}
sa_dir vc-controller
sa_dir vc-webhook
# in_cluster SA: podman flags for a pod of ServiceAccount SA.
in_cluster() {
	echo "--env=KUBERNETES_SERVICE_HOST=$API_HOST --env=KUBERNETES_SERVICE_PORT=$API_PORT" \
		"--volume=$E2E_DIR/sa/$1:$SA_MOUNT:ro"
}
pass "RBAC of manifests/ applied; tokens of vc-controller and vc-webhook; API server $API_HOST:$API_PORT"

# --- the stack -----------------------------------------------------------------------------------

step "certificates by vc-webhook-manager --generate-certs"
CERTS=$E2E_DIR/certs
mkdir -p "$CERTS"
chown 65532:65532 "$CERTS"
out=$("${PODMAN_RUN[@]}" --name "$CNAME-certs" --volume "$CERTS:/certs" "$REPO/vc-webhook-manager:latest" \
	--generate-certs /certs --webhook-service-name volcano-admission-service --webhook-namespace $NS 2>&1) ||
	fail "vc-webhook-manager --generate-certs failed" "$out"
for f in ca.crt tls.crt tls.key; do
	[ -s "$CERTS/$f" ] || fail "no $f in $CERTS" "$out"
done
pass "ca.crt, tls.crt, tls.key written by user $(stat -c %u "$CERTS/tls.key")"

step "the init container of manifests/base/30-webhook.yaml in vc-webhook-manager"
# Its /bin/sh -c script, both ways: from the Secret's files, and generated.
init_script=$(awk '/initContainers:/ { f = 1 } f && /- \|$/ { g = 1; next }
	g && /^ *securityContext:/ { exit } g { sub(/^              /, ""); print }' "$E2E_ROOT/manifests/base/30-webhook.yaml")
grep -q 'generate-certs' <<<"$init_script" || fail "cannot find the init container's script in manifests/base/30-webhook.yaml" "$init_script"
for from in generated secret; do
	mkdir -p "$E2E_DIR/init-$from/certs" "$E2E_DIR/init-$from/secret"
	chown 65532:65532 "$E2E_DIR/init-$from/certs"
	# A Secret volume's files are 0644 (defaultMode).
	[ $from = generated ] || install -m 0644 "$CERTS"/* "$E2E_DIR/init-$from/secret/"
	out=$("${PODMAN_RUN[@]}" --name "$CNAME-init-$from" --volume "$E2E_DIR/init-$from/certs:/certs" \
		--volume "$E2E_DIR/init-$from/secret:/secret:ro" --entrypoint /bin/sh \
		"$REPO/vc-webhook-manager:latest" -c "$init_script" 2>&1) || fail "the init container's script failed" "$out"
	want=generated
	[ $from = generated ] || want="from the Secret volcano-admission-secret"
	grep -qx "certificates: $want" <<<"$out" || fail "the init container's script did not say 'certificates: $want'" "$out"
	[ -s "$E2E_DIR/init-$from/certs/tls.key" ] || fail "the init container's script left no tls.key" "$out"
done
pass "certificates generated, and copied from a Secret's files"

step "Volcano's admission init: ./gen-admission-secret.sh in vc-webhook-manager"
INIT=caldera-admission-init
{ kube -n $NS create serviceaccount $INIT &&
	kube -n $NS create role $INIT --verb=create --resource=secrets &&
	kube -n $NS create rolebinding $INIT --role=$INIT --serviceaccount=$NS:$INIT; } >/dev/null ||
	fail "cannot create the ServiceAccount, Role and RoleBinding $INIT"
sa_dir $INIT
# admission_init: the init Job's command, as Volcano's chart gives it.
admission_init() {
	# shellcheck disable=SC2046 # the flags are words
	"${PODMAN_RUN[@]}" --name "$CNAME-admission-init" $(in_cluster $INIT) \
		--entrypoint ./gen-admission-secret.sh "$REPO/vc-webhook-manager:latest" \
		--service volcano-admission-service --namespace $NS --secret volcano-admission-secret 2>&1
}
out=$(admission_init) || fail "gen-admission-secret.sh failed" "$out"
grep -qx 'secret/volcano-admission-secret created' <<<"$out" || fail "gen-admission-secret.sh did not say it created the Secret" "$out"
SECRET=$E2E_DIR/admission-secret
mkdir -p "$SECRET"
for key in ca.crt tls.crt tls.key; do
	kube -n $NS get secret volcano-admission-secret -o jsonpath="{.data.${key//./\\.}}" | base64 -d >"$SECRET/$key"
	[ -s "$SECRET/$key" ] || fail "the Secret volcano-admission-secret has no $key"
done
check "tls.crt is signed by ca.crt" openssl verify -CAfile "$SECRET/ca.crt" "$SECRET/tls.crt"
san=$(openssl x509 -in "$SECRET/tls.crt" -noout -ext subjectAltName)
grep -q 'DNS:volcano-admission-service.volcano-system.svc\b' <<<"$san" || fail "tls.crt does not name the Service" "$san"
[ "$(openssl x509 -in "$SECRET/tls.crt" -noout -pubkey | openssl sha256)" = \
	"$(openssl pkey -in "$SECRET/tls.key" -pubout | openssl sha256)" ] || fail "tls.key does not belong to tls.crt"
out=$(admission_init) && fail "gen-admission-secret.sh succeeded with the Secret already there" "$out"
grep -q 'AlreadyExists' <<<"$out" || fail "the second gen-admission-secret.sh did not fail with AlreadyExists" "$out"
pass "the Secret volcano-admission-secret holds a CA and a certificate for the Service; a second run fails (AlreadyExists)"

# hook_args PORT HEALTHZ_PORT: vc-webhook's flags (as manifests/base/30-webhook.yaml, registered by URL).
hook_args() {
	echo "--listen-address=127.0.0.1 --port=$1 --tls-cert-file=/etc/caldera/certs/tls.crt" \
		"--tls-private-key-file=/etc/caldera/certs/tls.key --ca-cert-file=/etc/caldera/certs/ca.crt" \
		"--webhook-namespace=$NS --webhook-service-name=volcano-admission-service" \
		"--webhook-url=https://127.0.0.1:$1 --enable-healthz=true --healthz-address=127.0.0.1:$2"
}
# ctrl_args HEALTHZ_PORT: vc-controller's flags (those of jobs_lib.sh's ctrl_start).
ctrl_args() {
	echo "--leader-elect=false --controllers=* --kube-api-qps=500 --kube-api-burst=1000" \
		"--schedule-period=500ms --enable-healthz=true --healthz-address=127.0.0.1:$1" \
		"--listen-address=127.0.0.1:$(free_port)"
}
healthz() { curl -fsS --max-time 2 "$@"; }

step "vc-webhook-manager in a container"
HOOK_PORT=$(free_port)
HOOK_HPORT=$(free_port)
# shellcheck disable=SC2046 # the flags are words
start_daemon webhook "${PODMAN_RUN[@]}" --name "$CNAME-webhook" $(in_cluster vc-webhook) \
	--volume "$CERTS:/etc/caldera/certs:ro" "$REPO/vc-webhook-manager:latest" $(hook_args "$HOOK_PORT" "$HOOK_HPORT")
registered() {
	kube get validatingwebhookconfiguration volcano-admission-service-jobs-validate \
		-o jsonpath='{.webhooks[0].clientConfig.url}' | grep -qx "https://127.0.0.1:$HOOK_PORT/jobs/validate"
}
wait_for "vc-webhook-manager healthy" 60 healthz --cacert "$CERTS/ca.crt" "https://127.0.0.1:$HOOK_HPORT/healthz"
wait_for "vc-webhook-manager's registration" 30 registered
eq "user of the webhook's process" "$(podman top "$CNAME-webhook" huser | awk 'NR == 2 { print $1 }')" 65532
pass "healthy on 127.0.0.1:$HOOK_HPORT, registered at https://127.0.0.1:$HOOK_PORT"

step "vc-nodesim on the host, vc-controller-manager in a container"
start_daemon nodesim "$SIM" --kubeconfig "$KUBECONFIG" --node-prefix node \
	--nodes 4:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110 --fast-delete --heartbeat-period 5s
wait_for "4 Ready nodes" 30 nodes_ready 4
CTRL_NAME=vc-controller-manager
CTRL_DAEMONS=("$CTRL_NAME")
CTRL_HPORT=$(free_port)
# shellcheck disable=SC2046 # the flags are words
# The entrypoint vc-controller (not the image's vc-controller-manager, which runs the controllers
# alone since the argv[0] dispatch): every controller and the bundled scheduler in one process.
start_daemon $CTRL_NAME "${PODMAN_RUN[@]}" --name "$CNAME-controller" $(in_cluster vc-controller) \
	--entrypoint /usr/local/bin/vc-controller "$REPO/vc-controller-manager:latest" $(ctrl_args "$CTRL_HPORT")
wait_for "vc-controller-manager healthy" 60 healthz "http://127.0.0.1:$CTRL_HPORT/healthz"
wait_for "the default queue Open" 30 queue_open
pass "4 simulated nodes, vc-controller-manager healthy on 127.0.0.1:$CTRL_HPORT, queue default Open"

# --- a job ---------------------------------------------------------------------------------------

step "examples/tensorflow-benchmark.yaml"
ns tf
apply_job "$E2E_ROOT/examples/tensorflow-benchmark.yaml"
J=tensorflow-benchmark
# The webhook's defaults (the example names neither the queue nor maxRetry).
eq "queue and maxRetry of $J" "$(jfield $J '{.spec.queue} {.spec.maxRetry}')" "default 3"
wait_phase $J Completed 120
# The bundled scheduler (in the container) placed the 3 pods (the ps is gone once the job completes).
eq "pods of $J placed" "$(k get events --field-selector reason=Scheduled,involvedObject.kind=Pod \
	-o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -c "^Successfully assigned tf/$J-.* to node-")" 3
# shellcheck disable=SC2046 # the flags are words
out=$("${PODMAN_RUN[@]}" --name "$CNAME-vcctl" $(in_cluster vc-controller) \
	--entrypoint /usr/local/bin/vcctl "$REPO/vc-controller-manager:latest" job list -n tf 2>&1) ||
	fail "vcctl job list in the image failed" "$out"
grep -qE "^$J +.* Completed " <<<"$out" || fail "vcctl job list does not show $J Completed" "$out"
# shellcheck disable=SC2046 # the flags are words
out=$("${PODMAN_RUN[@]}" --name "$CNAME-vjobs" $(in_cluster vc-controller) \
	--entrypoint /usr/local/bin/vjobs "$REPO/vc-controller-manager:latest" -N tf 2>&1) ||
	fail "vjobs -N tf in the image failed" "$out"
grep -qE "^$J +.* Completed " <<<"$out" || fail "vjobs -N tf does not show $J Completed" "$out"
pass "$J Completed with every daemon in a container; vcctl and vjobs in the image list it"

# The daemons must have logged no error about their file system (read-only root, user 65532).
for d in webhook $CTRL_NAME; do
	if grep -iE 'read-only file system|permission denied' "$E2E_DIR/daemons/$d.log"; then
		fail "$d logged a file-system error" "$(grep -iE 'read-only file system|permission denied' "$E2E_DIR/daemons/$d.log")"
	fi
done
stop_daemon $CTRL_NAME
stop_daemon webhook
CTRL_NAME=
CTRL_DAEMONS=()
pass "both containers stopped cleanly (TERM through podman run)"

# --- start-up time ----------------------------------------------------------------------------------

# ms: milliseconds since the epoch.
ms() { echo $(($(date +%s%N) / 1000000)); }
# median N...: the median of the numbers (the lower one of the middle two).
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# start_time NAME URL CURL_FLAGS CMD...: milliseconds from the start of CMD (a daemon) until URL
# answers; the daemon is stopped afterwards.
start_time() {
	local name=$1 url=$2 flags=$3 t0 t1
	shift 3
	t0=$(ms)
	start_daemon "$name" "$@"
	# shellcheck disable=SC2086 # the flags are words
	until curl -fsS --max-time 1 $flags "$url" >/dev/null 2>&1; do
		daemon_running "$name" || fail "$name exited before /healthz answered" "$(tail -20 "$E2E_DIR/daemons/$name.log")"
		[ $(($(ms) - t0)) -lt 30000 ] || fail "$name: no /healthz after 30 s" "$(tail -20 "$E2E_DIR/daemons/$name.log")"
		sleep 0.02
	done
	t1=$(ms)
	stop_daemon "$name"
	echo $((t1 - t0))
}
if [ "$STARTS" -gt 0 ]; then
	step "start-up: podman run (or the host's binary) until /healthz answers, $STARTS times each"
	declare -A T=()
	for n in $(seq 1 "$STARTS"); do
		hp=$(free_port)
		# shellcheck disable=SC2046 # the flags are words
		T[ctrl_image]+=" $(start_time "bench-ctrl-image-$n" "http://127.0.0.1:$hp/healthz" "" \
			"${PODMAN_RUN[@]}" --name "$CNAME-bench-ctrl-$n" $(in_cluster vc-controller) \
			--entrypoint /usr/local/bin/vc-controller "$REPO/vc-controller-manager:latest" $(ctrl_args "$hp"))"
		hp=$(free_port)
		# shellcheck disable=SC2046 # the flags are words
		T[ctrl_host]+=" $(start_time "bench-ctrl-host-$n" "http://127.0.0.1:$hp/healthz" "" \
			"$CTRL" --kubeconfig "$KUBECONFIG" $(ctrl_args "$hp"))"
		p=$(free_port)
		hp=$(free_port)
		# shellcheck disable=SC2046 # the flags are words
		T[hook_image]+=" $(start_time "bench-hook-image-$n" "https://127.0.0.1:$hp/healthz" "--cacert $CERTS/ca.crt" \
			"${PODMAN_RUN[@]}" --name "$CNAME-bench-hook-$n" $(in_cluster vc-webhook) \
			--volume "$CERTS:/etc/caldera/certs:ro" "$REPO/vc-webhook-manager:latest" $(hook_args "$p" "$hp"))"
		p=$(free_port)
		hp=$(free_port)
		# shellcheck disable=SC2046 # the flags are words
		T[hook_host]+=" $(start_time "bench-hook-host-$n" "https://127.0.0.1:$hp/healthz" "--cacert $CERTS/ca.crt" \
			"$HOOK" --kubeconfig "$KUBECONFIG" $(hook_args "$p" "$hp" | sed "s|/etc/caldera/certs|$CERTS|g"))"
	done
	for key in ctrl_image ctrl_host hook_image hook_host; do
		# shellcheck disable=SC2086 # the times are words
		printf '     start-up %-10s median %5s ms  (runs:%s)\n' "$key" "$(median ${T[$key]})" "${T[$key]}"
	done
	pass "start-up measured"
fi
