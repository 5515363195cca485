#!/usr/bin/env bash
# manifests/overlays/ha's webhook against a real API server: two vc-webhook replicas behind the
# Service volcano-admission-service, one CA and serving certificate from the Secret the overlay's
# Job vc-webhook-certs creates, and a replica killed with SIGKILL while Volcano Jobs are created.
#
# The local cluster runs no kubelet and no kube-proxy, so the pieces a real cluster adds are
# played on the host:
# - the Job: its rendered command runs here (./gen-admission-secret.sh is
#   scripts/image/gen-admission-secret.sh, the image's script) with the token of its
#   ServiceAccount vc-webhook-certs, so its RBAC is the overlay's;
# - the pods: two vc-webhook processes with the rendered Deployment's flags, the Secret's keys
#   as the files the kubelet would mount, the token of the ServiceAccount vc-webhook, both on
#   the host's first global IPv4 address, each on its own port (two pods would have two IPs and
#   one port; the API server refuses loopback addresses in Endpoints, so 127.0.0.1 and
#   127.0.0.2 cannot stand in for them);
# - the endpoints controller: the Endpoints of the Service are written here, one subset per
#   replica (same IP, its port), the killed one removed afterwards as the controller does when
#   the pod goes away.
# The API server is started with --enable-aggregator-routing=true: it then sends webhook calls
# for a Service to one of its Endpoints (picked at random per connection) instead of the
# ClusterIP, which nothing here routes.
#
# What is asserted: both replicas answer admission requests; while both run, and after the
# killed replica has left the Endpoints, no request fails; the failures between the kill and the
# Endpoints update (the API server still dials the dead address about half of the time, and
# fails the call: it does not retry a POST) are counted and printed, E2E_HA_GAP (seconds,
# default 1) being how long the "endpoints controller" takes to react.
#
# VC_WEBHOOK (default build/vc-webhook) is the binary.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/manifests_lib.sh
. "$(dirname "$0")/manifests_lib.sh"

HOOK=${VC_WEBHOOK:-$E2E_ROOT/build/vc-webhook}
[ -x "$HOOK" ] || fail "$HOOK is missing: run make build (or set VC_WEBHOOK)"
command -v jq >/dev/null || fail "jq is missing"
OVERLAY=$E2E_ROOT/manifests/overlays/ha
GAP=${E2E_HA_GAP:-1}

CALDERA_APISERVER_ARGS="${CALDERA_APISERVER_ARGS:-} --enable-aggregator-routing=true" \
	e2e_cluster_up --rbac

step "CRDs and overlays/ha applied"
RENDERED=$E2E_DIR/ha.json
install_overlay "$OVERLAY" "$RENDERED"
pass "overlays/ha applied for real (no kubelet: its pods do not start)"

API_HOST=${SERVER#https://}
API_PORT=${API_HOST##*:}
API_HOST=${API_HOST%:*}

step "the Job vc-webhook-certs creates the Secret once"
sa_dir vc-webhook-certs
job_script=$(jq -r '.items[] | select(.kind == "Job" and .metadata.name == "vc-webhook-certs")
	| .spec.template.spec.containers[0].args[0]' "$RENDERED")
grep -q gen-admission-secret.sh <<<"$job_script" || fail "cannot find the Job's script" "$job_script"
JOBDIR=$E2E_DIR/job
mkdir -p "$JOBDIR/bin" "$JOBDIR/tmp"
ln -s "$E2E_ROOT/scripts/image/gen-admission-secret.sh" "$JOBDIR/gen-admission-secret.sh"
ln -s "$HOOK" "$JOBDIR/bin/vc-webhook"
job=$(jq -c '.items[] | select(.kind == "Job" and .metadata.name == "vc-webhook-certs")
	| .spec.template.spec | {image: .containers[0].image, cmd: .containers[0].command,
	wd: .containers[0].workingDir, user: "\(.securityContext.runAsUser):\(.securityContext.runAsGroup)"}' "$RENDERED")
[ "$(jq -c .cmd <<<"$job")" = '["/bin/sh","-c"]' ] || fail "the Job's command is not /bin/sh -c" "$job"
# run_job: the container's command, as the pod would run it. On the host: in a folder that has
# ./gen-admission-secret.sh (the image's script), the image's PATH with vc-webhook, the
# ServiceAccount's mount, the API server's address. With E2E_IMAGE=1 (as root, after make
# image; make test-image's switch), in the Job's image with podman, as test_image.sh runs
# containers: its user, working directory, read-only root and /tmp (the Job's emptyDir).
run_job() {
	if [ "${E2E_IMAGE:-0}" = 1 ]; then
		podman run --rm --pull never --runtime runc --network host --read-only --cap-drop all \
			--security-opt no-new-privileges --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
			--user "$(jq -r .user <<<"$job")" --workdir "$(jq -r .wd <<<"$job")" --tmpfs /tmp \
			--env "KUBERNETES_SERVICE_HOST=$API_HOST" --env "KUBERNETES_SERVICE_PORT=$API_PORT" \
			--volume "$E2E_DIR/sa/vc-webhook-certs:/var/run/secrets/kubernetes.io/serviceaccount:ro" \
			--entrypoint /bin/sh "$(jq -r .image <<<"$job")" -c "$job_script"
		return
	fi
	(cd "$JOBDIR" && PATH=$JOBDIR/bin:$PATH TMPDIR=$JOBDIR/tmp SA_DIR=$E2E_DIR/sa/vc-webhook-certs \
		KUBERNETES_SERVICE_HOST=$API_HOST KUBERNETES_SERVICE_PORT=$API_PORT sh -c "$job_script")
}
if [ "${E2E_IMAGE:-0}" = 1 ]; then
	chown -R 65532:65532 "$E2E_DIR/sa/vc-webhook-certs"
	chmod 0500 "$E2E_DIR/sa/vc-webhook-certs"
	chmod 0400 "$E2E_DIR/sa/vc-webhook-certs"/*
fi
out=$(run_job 2>&1) || fail "the Job's command failed" "$out"
grep -q 'secret/volcano-admission-secret created' <<<"$out" || fail "the Job did not create the Secret" "$out"
ca1=$(kube -n $NS get secret volcano-admission-secret -o jsonpath='{.data.ca\.crt}')
out=$(run_job 2>&1) || fail "the Job's command failed on its second run (Secret present)" "$out"
grep -q 'exists: kept' <<<"$out" || fail "the second run did not keep the Secret" "$out"
[ "$(kube -n $NS get secret volcano-admission-secret -o jsonpath='{.data.ca\.crt}')" = "$ca1" ] ||
	fail "the second run changed the CA"
kube -n $NS auth can-i get secrets --as=system:serviceaccount:$NS:vc-webhook-certs >/dev/null 2>&1 &&
	fail "vc-webhook-certs may read Secrets"
where=host
[ "${E2E_IMAGE:-0}" != 1 ] || where="image $(jq -r .image <<<"$job")"
pass "Secret created by the Job's command ($where) with its own ServiceAccount; a second run keeps it"

step "two vc-webhook replicas with the Deployment's flags and the Secret's certificates"
CERTS=$E2E_DIR/secret # what the secret volume of the Deployment holds
mkdir -p "$CERTS"
for k in ca.crt tls.crt tls.key; do
	kube -n $NS get secret volcano-admission-secret -o jsonpath="{.data.${k//./\\.}}" | base64 -d >"$CERTS/$k"
done
chmod 0440 "$CERTS"/* # the Deployment's defaultMode
dep=$(jq -c '.items[] | select(.kind == "Deployment" and .metadata.name == "vc-webhook")' "$RENDERED")
[ "$(jq -r '.spec.replicas' <<<"$dep")" = 2 ] || fail "overlays/ha's vc-webhook does not run 2 replicas"
[ "$(jq -r '.spec.template.spec.initContainers // [] | length' <<<"$dep")" = 0 ] ||
	fail "overlays/ha's vc-webhook still has an init container"
mnt=$(jq -r '.spec.template.spec.containers[0].volumeMounts[] | select(.name == "certs") | .mountPath' <<<"$dep")
[ "$(jq -r '.spec.template.spec.volumes[] | select(.name == "certs") | .secret.secretName' <<<"$dep")" = volcano-admission-secret ] ||
	fail "the certs volume is not the Secret volcano-admission-secret" "$dep"
mapfile -t flags < <(jq -r '.spec.template.spec.containers[0].args[]' <<<"$dep")
# The pod's flags, with the mount path turned into the folder here and the listeners each on
# its own loopback address (a pod has its own IP; here they share the host).
replica_flags() {
	local f
	for f in "${flags[@]}"; do
		case $f in
		--port=* | --healthz-address=*) ;;
		*) printf '%s\n' "${f//$mnt/$CERTS}" ;;
		esac
	done
	printf '%s\n' --kubeconfig="$KCFG" --listen-address="$HOSTIP" --port="${PORT[$1]}" \
		--healthz-address="$HOSTIP:${HPORT[$1]}" --logtostderr -v=4
}
KCFG=$(kubeconfig_of vc-webhook)
HOSTIP=$(ip -4 -o addr show scope global | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
[ -n "$HOSTIP" ] || fail "this host has no global IPv4 address for the replicas to listen on"
declare -A PORT=() HPORT=()
for i in 1 2; do
	PORT[$i]=$(free_port)
	HPORT[$i]=$(free_port)
done
[ "$(printf '%s\n' "${PORT[@]}" "${HPORT[@]}" | sort -u | wc -l)" = 4 ] || fail "free_port gave a port twice"
for i in 1 2; do
	mapfile -t a < <(replica_flags "$i")
	start_daemon "webhook-$i" "$HOOK" "${a[@]}"
done
# healthy ADDR: the replica on ADDR answers /healthz, with the Service's name checked against its
# certificate as the API server checks it.
SVC_DNS=volcano-admission-service.$NS.svc
healthy() {
	[ "$(curl -sS --cacert "$CERTS/ca.crt" --resolve "$SVC_DNS:${HPORT[$1]}:$HOSTIP" \
		"https://$SVC_DNS:${HPORT[$1]}/healthz" 2>/dev/null)" = ok ]
}
wait_for "replica 1 to be healthy" 30 healthy 1
wait_for "replica 2 to be healthy" 30 healthy 2
registered() {
	local n
	n=$(kube get mutatingwebhookconfigurations,validatingwebhookconfigurations \
		-l app.kubernetes.io/managed-by=vc-webhook -o name | wc -l)
	[ "$n" = 5 ]
}
wait_for "5 webhook configurations (no pod webhooks)" 30 registered
ca_b64=$(base64 -w0 <"$CERTS/ca.crt")
got=$(kube get validatingwebhookconfiguration volcano-admission-service-jobs-validate -o json |
	jq -r '.webhooks[0] | "\(.clientConfig.service.namespace)/\(.clientConfig.service.name):\(.clientConfig.service.port) \(.clientConfig.caBundle == "'"$ca_b64"'") \(.failurePolicy)"')
[ "$got" = "$NS/volcano-admission-service:443 true Fail" ] ||
	fail "jobs-validate does not point at the Service with the Secret's CA" "$got"
for n in pods-mutate pods-validate; do
	if ! gone mutatingwebhookconfiguration "volcano-admission-service-$n" ||
		! gone validatingwebhookconfiguration "volcano-admission-service-$n"; then
		fail "the pod webhook $n is registered, but overlays/ha leaves it off"
	fi
done
for i in 1 2; do
	daemon_running "webhook-$i" || fail "replica $i exited" "$(tail -20 "$E2E_DIR/daemons/webhook-$i.log")"
done
pass "replicas on $HOSTIP:${PORT[1]} and $HOSTIP:${PORT[2]}, both registered the same CA for the Service"

# endpoints REPLICA...: the Service's Endpoints, as the endpoints controller writes them for
# ready pods: one subset per replica (the port name is the Service port's, which the API server
# matches).
endpoints() {
	local subsets='' i
	for i in "$@"; do
		subsets+="${subsets:+,}{\"addresses\":[{\"ip\":\"$HOSTIP\"}],\"ports\":[{\"name\":\"https\",\"port\":${PORT[$i]},\"protocol\":\"TCP\"}]}"
	done
	printf '{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"volcano-admission-service","namespace":"%s"},"subsets":[%s]}' \
		"$NS" "$subsets" | kube apply -f - >/dev/null
}

step "the API server reaches both replicas through the Service"
endpoints 1 2 || fail "cannot write the Endpoints"
kube create namespace team-a >/dev/null
printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: default}\nspec: {weight: 1}\n' |
	kube apply -f - >/dev/null || fail "cannot create the default queue (through /queues/mutate and /queues/validate)"
# job N: a valid Volcano Job; job_bad N: one /jobs/validate refuses (minAvailable > replicas).
JOB='apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: %s, namespace: team-a}
spec:
  minAvailable: %s
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox}]
'
# The Queue's state comes from the queue controller, which does not run here.
kube patch queue default --subresource=status --type=merge -p '{"status":{"state":"Open"}}' >/dev/null ||
	fail "cannot open the default queue"
# probe: a Job is admitted by each replica in turn (their Queue informers saw the state):
# a few in a row, each dialled at random.
probe() {
	local k
	for k in 1 2 3 4 5 6; do
		# shellcheck disable=SC2059 # JOB is the format
		printf "$JOB" "probe-$k" 2 | kube create --dry-run=server -f - >/dev/null || return 1
	done
}
wait_for "both replicas to see the default queue Open" 30 probe
RESULTS=$E2E_DIR/results
: >"$RESULTS"
# attempt N PHASE: create a valid Job and a Job the webhook must refuse; one line per call in
# results: PHASE ok|FAIL DETAIL.
attempt() {
	local out
	# shellcheck disable=SC2059 # JOB is the format
	if out=$(printf "$JOB" "ok-$1" 2 | kube create -f - 2>&1); then
		echo "$2 ok create" >>"$RESULTS"
	else
		echo "$2 FAIL create ok-$1: $out" >>"$RESULTS"
	fi
	# shellcheck disable=SC2059
	out=$(printf "$JOB" "bad-$1" 3 | kube create -f - 2>&1) && {
		echo "$2 FAIL admitted bad-$1" >>"$RESULTS"
		return
	}
	case $out in
	*'denied the request: job '*'minAvailable'*) echo "$2 ok denied" >>"$RESULTS" ;;
	*) echo "$2 FAIL deny bad-$1: $out" >>"$RESULTS" ;;
	esac
}
reviews() { grep -c 'admission review' "$E2E_DIR/daemons/webhook-$1.log" || true; }
for i in $(seq 1 20); do attempt "$i" both; done
r1=$(reviews 1)
r2=$(reviews 2)
bad=$(grep -c ' FAIL ' "$RESULTS" || true)
[ "$bad" = 0 ] || fail "$bad admission failures with both replicas up" "$(grep ' FAIL ' "$RESULTS")"
[ $((r1 + r2)) -gt 0 ] || fail "no replica logged an admission review"
pass "40 calls, no failure; admission reviews: replica 1 $r1, replica 2 $r2"

# The API server keeps its connections (one per webhook configuration) open and dials again
# only when one closes: most calls go to the replica it dialled first. That one is killed, so
# that every connection breaks and is dialled again.
step "kill -9 the busier replica while Jobs are created"
for i in $(seq 21 30); do attempt "$i" both; done
if [ "$(reviews 1)" -gt "$(reviews 2)" ]; then dead=1 live=2; else dead=2 live=1; fi
read -r pid _ <"$E2E_DIR/daemons/webhook-$dead.pid"
before=$(reviews $live)
# (bash reports a child killed by a signal on stderr when it reaps it: not news here)
{
	kill -KILL "$pid"
	wait "$pid" || true
} 2>/dev/null
t_kill=$(date +%s.%N)
# The kubelet and the endpoints controller take a moment to drop the pod from the Endpoints.
(sleep "$GAP" && endpoints $live) &
updater=$!
i=31
while kill -0 "$updater" 2>/dev/null; do
	attempt "$i" gap
	i=$((i + 1))
done
wait "$updater" || fail "cannot update the Endpoints"
t_upd=$(date +%s.%N)
for _ in $(seq 1 30); do
	attempt "$i" after
	i=$((i + 1))
done
rm -f "$E2E_DIR/daemons/webhook-$dead.pid" # killed on purpose: not a crash for the exit handler
gap_calls=$(grep -c '^gap ' "$RESULTS" || true)
gap_bad=$(grep -c '^gap FAIL' "$RESULTS" || true)
after_calls=$(grep -c '^after ' "$RESULTS" || true)
after_bad=$(grep -c '^after FAIL' "$RESULTS" || true)
both_bad=$(grep -c '^both FAIL' "$RESULTS" || true)
grep '^gap FAIL' "$RESULTS" | head -3 | sed 's/^/     gap failure: /' || true
[ "$both_bad" = 0 ] || fail "$both_bad failures before the kill" "$(grep '^both FAIL' "$RESULTS")"
[ "$after_bad" = 0 ] ||
	fail "$after_bad of $after_calls calls failed after the Endpoints update" "$(grep '^after FAIL' "$RESULTS")"
daemon_running "webhook-$live" || fail "replica $live died"
after_reviews=$(($(reviews $live) - before))
[ "$after_reviews" -gt 0 ] || fail "replica $live answered nothing after replica $dead was killed"
printf '     measured: %s calls in the %.1fs between kill -9 and the Endpoints update, %s failed;\n' \
	"$gap_calls" "$(awk "BEGIN { print $t_upd - $t_kill }")" "$gap_bad"
printf '     %s calls after the update, none failed; replica %s answered %s reviews after the kill\n' \
	"$after_calls" "$live" "$after_reviews"
pass "no admission failure while both replicas ran and after the dead one left the Endpoints"
