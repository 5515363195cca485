#!/usr/bin/env bash
# vc-webhook against the local cluster with the real kubectl: certificates from
# `vc-webhook --generate-certs`, the daemon registered by URL (the local cluster has no
# kube-proxy), Volcano's defaults on a valid Job, Volcano's denial messages on invalid ones and on
# deleting the default queue, bad input sent straight to the daemon (it keeps serving), and a
# certificate rotation picked up from the files (new certificate served, new caBundle
# registered, the API server still reaching the webhook).
#
# VC_WEBHOOK (default build/vc-webhook, made by `make build`) is the binary to run; point it at an
# ASan build to check the daemon for leaks and errors against the real server.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HOOK=${VC_WEBHOOK:-$E2E_ROOT/build/vc-webhook}
[ -x "$HOOK" ] || fail "$HOOK is missing: run make build (or set VC_WEBHOOK)"
command -v curl >/dev/null || fail "curl is missing"

e2e_cluster_up --rbac # RBAC: the step without rights on namespaces needs it
CERTS=$E2E_DIR/certs
JOBS=$E2E_DIR/jobs
mkdir -p "$JOBS"

step "vc-webhook --generate-certs"
"$HOOK" --generate-certs "$CERTS" --webhook-service-name volcano-admission-service \
	--webhook-namespace volcano-system >/dev/null || fail "--generate-certs failed"
for f in ca.crt tls.crt tls.key; do [ -s "$CERTS/$f" ] || fail "$CERTS/$f was not written"; done
[ "$(stat -c %a "$CERTS/tls.key")" = 600 ] || fail "tls.key is not mode 0600"
out=$(openssl verify -CAfile "$CERTS/ca.crt" "$CERTS/tls.crt" 2>&1) ||
	fail "the serving certificate does not verify against the CA" "$out"
sans=$(openssl x509 -in "$CERTS/tls.crt" -noout -ext subjectAltName 2>&1)
for want in DNS:volcano-admission-service.volcano-system.svc IP\ Address:127.0.0.1; do
	grep -qF "$want" <<<"$sans" || fail "the certificate lacks $want" "$sans"
done
pass "CA and serving certificate written; SANs cover the Service and 127.0.0.1"

step "CRDs"
kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
# A CRD has no conditions for a moment after its creation, which kubectl wait takes as an error.
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
pass "Volcano's CRDs established"

# --- the daemon --------------------------------------------------------------------------------

healthy() { [ "$(curl -sS --cacert "$CERTS/ca.crt" "https://127.0.0.1:$1/healthz" 2>/dev/null)" = ok ]; }
registered() {
	kube get validatingwebhookconfiguration volcano-admission-service-jobs-validate \
		-o jsonpath='{.webhooks[0].clientConfig.url}' | grep -qx "https://127.0.0.1:$PORT/jobs/validate"
}

step "start vc-webhook"
started=
for _ in 1 2 3 4 5; do
	PORT=$(free_port)
	HPORT=$(free_port)
	[ "$PORT" != "$HPORT" ] || continue
	start_daemon webhook "$HOOK" --kubeconfig "$KUBECONFIG" --listen-address 127.0.0.1 \
		--port "$PORT" --tls-cert-file "$CERTS/tls.crt" --tls-private-key-file "$CERTS/tls.key" \
		--ca-cert-file "$CERTS/ca.crt" --webhook-url "https://127.0.0.1:$PORT" \
		--enable-healthz --healthz-address "127.0.0.1:$HPORT" --logtostderr -v=4 \
		--max-queue-depth 2 --enable-queue-allocated-pods-check
	for _ in $(seq 1 100); do
		if healthy "$PORT" && registered 2>/dev/null; then
			started=1
			break
		fi
		daemon_running webhook || break
		sleep 0.2
	done
	[ -n "$started" ] && break
	if ! daemon_running webhook && grep -q 'Address already in use' "$E2E_DIR/daemons/webhook.log"; then
		stop_daemon webhook
		continue # lost a port race: new ports
	fi
	fail "vc-webhook did not become healthy and registered" "$(tail -20 "$E2E_DIR/daemons/webhook.log")"
done
[ -n "$started" ] || fail "vc-webhook lost the race for a free port 5 times"
healthy "$HPORT" || fail "the health listener on port $HPORT does not answer"
n=$(kube get mutatingwebhookconfigurations,validatingwebhookconfigurations \
	-l app.kubernetes.io/managed-by=vc-webhook -o name | wc -l)
[ "$n" = 7 ] || fail "expected 7 registered configurations (the default paths), found $n"
ca_b64=$(base64 -w0 <"$CERTS/ca.crt")
got=$(kube get mutatingwebhookconfiguration volcano-admission-service-jobs-mutate \
	-o jsonpath='{.webhooks[0].clientConfig.caBundle} {.webhooks[0].failurePolicy} {.webhooks[0].sideEffects} {.webhooks[0].timeoutSeconds} {.webhooks[0].name}')
[ "$got" = "$ca_b64 Fail NoneOnDryRun 10 mutatejob.volcano.sh" ] ||
	fail "unexpected jobs-mutate configuration" "$got"
pass "vc-webhook serving on 127.0.0.1:$PORT (health on $HPORT), 7 configurations registered with the CA"

# --- queues ------------------------------------------------------------------------------------

# set_queue_state NAME STATE: Queue status goes through the status subresource (no controller yet).
set_queue_state() {
	kube patch queue "$1" --subresource=status --type=merge \
		-p "{\"status\":{\"state\":\"$2\"}}" >/dev/null
}
queue_state_seen() {
	[ "$(kube get queue "$1" -o jsonpath='{.status.state}')" = "$2" ]
}

step "the default queue"
printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: default}\nspec: {weight: 1}\n' |
	kube apply -f - >/dev/null || fail "cannot create the default queue"
set_queue_state default Open || fail "cannot set the default queue's status"
wait_for "the default queue to be Open" 10 queue_state_seen default Open
[ "$(kube get queue default -o jsonpath='{.spec.reclaimable}')" = true ] ||
	fail "/queues/mutate did not default spec.reclaimable"
pass "default queue Open; /queues/mutate set reclaimable: true"

# --- PodGroups ---------------------------------------------------------------------------------

# /podgroups/mutate moves a PodGroup left in the default queue to its Namespace's
# scheduling.volcano.sh/queue-name (docs/volcano/webhooks.md §10.1). vc-webhook reads the
# Namespace from an informer (no GET per review) and GETs one the informer has not seen yet, so
# the first PodGroup created right after its Namespace lands in the queue too.
pg_moved() {
	local q
	q=$(printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {generateName: pg-, namespace: team-pg}\nspec: {minMember: 1}\n' |
		kube create -f - -o jsonpath='{.spec.queue}') || return 1
	[ "$q" = team-q ] || { echo "spec.queue is $q"; return 1; }
}
step "a PodGroup in the default queue moves to its Namespace's queue"
printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: team-q}\nspec: {weight: 1}\n' |
	kube apply -f - >/dev/null || fail "cannot create queue team-q"
set_queue_state team-q Open || fail "cannot set queue team-q's status"
wait_for "queue team-q to be Open" 10 queue_state_seen team-q Open
printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team-pg, annotations: {scheduling.volcano.sh/queue-name: team-q}}\n' |
	kube apply -f - >/dev/null || fail "cannot create namespace team-pg"
out=$(pg_moved) || fail "the first PodGroup in namespace team-pg did not land in queue team-q" "$out"
grep -qF 'msg="cannot list namespaces' "$E2E_DIR/daemons/webhook.log" 2>/dev/null &&
	fail "vc-webhook did not start its Namespace informer" "$(grep -F namespaces "$E2E_DIR/daemons/webhook.log")"
pass "/podgroups/mutate moved a PodGroup from the default queue to team-q"

# Under Volcano's own RBAC the admission ServiceAccount has no right on namespaces: vc-webhook
# must not start the Namespace informer (its list would fail forever) but keep serving, with a
# GET per PodGroup review that is forbidden too, so no patch (Volcano's behaviour there). A
# second vc-webhook, as a ServiceAccount allowed only Queues, answers the same review as the
# first one, sent directly.
step "without rights on namespaces: no informer, a GET per review, no patch"
PG_REVIEW='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e-pg",
"kind":{"group":"scheduling.volcano.sh","version":"v1beta1","kind":"PodGroup"},
"resource":{"group":"scheduling.volcano.sh","version":"v1beta1","resource":"podgroups"},
"namespace":"team-pg","operation":"CREATE","userInfo":{"username":"e2e"},
"object":{"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup",
"metadata":{"name":"pg-direct","namespace":"team-pg"},"spec":{"minMember":1,"queue":"default"}}}}'
pg_review() { # PORT: the answer to PG_REVIEW
	curl -sS --cacert "$CERTS/ca.crt" -H "Content-Type: application/json" --data-binary "$PG_REVIEW" \
		"https://127.0.0.1:$1/podgroups/mutate"
}
out=$(pg_review "$PORT")
grep -qF '"patch":' <<<"$out" || fail "the first vc-webhook made no patch for the direct review" "$out"
kube -n default create serviceaccount hook-queues-only >/dev/null || fail "cannot create the ServiceAccount"
kube create clusterrole hook-queues-only --verb=get,list,watch --resource=queues.scheduling.volcano.sh >/dev/null ||
	fail "cannot create the ClusterRole"
kube create clusterrolebinding hook-queues-only --clusterrole=hook-queues-only \
	--serviceaccount=default:hook-queues-only >/dev/null || fail "cannot create the ClusterRoleBinding"
sa_token() {
	local secret
	secret=$(kube -n default get serviceaccount hook-queues-only -o jsonpath='{.secrets[0].name}') &&
		[ -n "$secret" ] && kube -n default get secret "$secret" -o jsonpath='{.data.token}' | base64 -d
}
wait_for "the ServiceAccount's token" 30 sa_token
NR_KUBECONFIG=$E2E_DIR/queues-only.kubeconfig
kube config view --raw --minify >"$NR_KUBECONFIG"
kubectl --kubeconfig "$NR_KUBECONFIG" config set-credentials queues-only --token="$(sa_token)" >/dev/null
kubectl --kubeconfig "$NR_KUBECONFIG" config set-context --current --user=queues-only >/dev/null
wait_for "the ClusterRole to take effect" 30 kubectl --kubeconfig "$NR_KUBECONFIG" get queues
! kubectl --kubeconfig "$NR_KUBECONFIG" get namespaces >/dev/null 2>&1 ||
	fail "the ServiceAccount may list namespaces"
NR_PORT=$(free_port)
start_daemon webhook-nr "$HOOK" --kubeconfig "$NR_KUBECONFIG" --listen-address 127.0.0.1 \
	--port "$NR_PORT" --tls-cert-file "$CERTS/tls.crt" --tls-private-key-file "$CERTS/tls.key" \
	--ca-cert-file "$CERTS/ca.crt" --webhook-url "https://127.0.0.1:$NR_PORT" --register=false \
	--enabled-admission=/podgroups/mutate --logtostderr -v=4
wait_for "the second vc-webhook serving" 30 healthy "$NR_PORT"
grep -qF 'msg="cannot list namespaces, reading each PodGroup'"'"'s Namespace from the API server"' \
	"$E2E_DIR/daemons/webhook-nr.log" || fail "the second vc-webhook did not say it cannot list namespaces" \
	"$(tail -20 "$E2E_DIR/daemons/webhook-nr.log")"
out=$(pg_review "$NR_PORT")
if ! grep -qF '"allowed":true' <<<"$out" || grep -qF '"patch":' <<<"$out"; then
	fail "the second vc-webhook's answer" "$out"
fi
stop_daemon webhook-nr
pass "listing namespaces refused: no informer; the review allowed without a patch, as Volcano"

# --- Jobs --------------------------------------------------------------------------------------

TEMPLATE='    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: busybox'
# job NAME SPEC: write jobs/NAME.yaml, a Job whose spec is SPEC (YAML indented two spaces).
job() {
	printf 'apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\nspec:\n%s\n' \
		"$1" "$2" >"$JOBS/$1.yaml"
}
# task NAME REPLICAS [EXTRA]: one task of a spec's task list.
task() {
	printf '  - name: %s\n    replicas: %s\n%s%s\n' "$1" "$2" "${3:+$3
}" "$TEMPLATE"
}
# expect_denied NAME MESSAGE: kubectl apply of jobs/NAME.yaml prints exactly kubectl's line for
# a denial by validatejob.volcano.sh with MESSAGE.
expect_denied() {
	local out want
	want="Error from server: error when creating \"$1.yaml\": admission webhook \"validatejob.volcano.sh\" denied the request: $2"
	if out=$(cd "$JOBS" && kube apply -f "$1.yaml" 2>&1); then
		fail "job $1 was admitted, but should have been denied with: $2" "$out"
	fi
	[ "$out" = "$want" ] || fail "job $1: unexpected output" "$(printf 'got:  %s\nwant: %s' "$out" "$want")"
}

step "a valid Job gets Volcano's defaults"
job job-ok "  tasks:
$(task worker 2)"
(cd "$JOBS" && kube apply -f job-ok.yaml) >/dev/null || fail "the valid Job was refused"
yaml=$(kube get vcjob job-ok -o yaml)
got=$(kube get vcjob job-ok -o jsonpath='{.spec.queue} {.spec.schedulerName} {.spec.maxRetry} {.spec.minAvailable} {.spec.tasks[0].minAvailable} {.spec.tasks[0].maxRetry}')
[ "$got" = "default volcano 3 2 2 3" ] ||
	fail "job-ok lacks the defaults (queue schedulerName maxRetry minAvailable task minAvailable task maxRetry)" "$yaml"
for want in '  queue: default' '  schedulerName: volcano' '  maxRetry: 3' '  minAvailable: 2'; do
	grep -qxF "$want" <<<"$yaml" || fail "kubectl get vcjob -o yaml lacks '$want'" "$yaml"
done
job job-pytorch "  plugins:
    pytorch: [\"--master=master\", \"--worker=worker\", \"--port=23456\"]
  tasks:
$(task master 1)
$(task worker 2)"
(cd "$JOBS" && kube apply -f job-pytorch.yaml) >/dev/null || fail "the pytorch Job was refused"
got=$(kube get vcjob job-pytorch -o jsonpath='{.spec.plugins}')
[ "$got" = '{"pytorch":["--master=master","--worker=worker","--port=23456"],"svc":[]}' ] ||
	fail "the pytorch plugin did not bring the svc plugin" "$got"
pass "queue default, schedulerName volcano, maxRetry 3, minAvailable 2 (job and task); pytorch adds svc"

step "invalid Jobs are denied with Volcano's messages"
job job-dup "  tasks:
$(task a 1)
$(task a 1)"
expect_denied job-dup "duplicated task name a;"
job job-min "  minAvailable: 5
  tasks:
$(task a 2)"
expect_denied job-min "job 'minAvailable' should not be greater than total replicas in tasks;"
job job-plugin "  plugins:
    nope: []
  tasks:
$(task a 1)"
expect_denied job-plugin "unable to find job plugin: nope;"
job job-cycle "  tasks:
$(task a 1 '    dependsOn:
      name: [b]')
$(task b 1 '    dependsOn:
      name: [a]')"
expect_denied job-cycle "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);"
job job-policy "  policies:
  - exitCode: 0
    action: AbortJob
  tasks:
$(task a 1)"
# The lists of valid events and actions follow Go's map order: only their start is fixed.
out=$(cd "$JOBS" && kube apply -f job-policy.yaml 2>&1) && fail "job-policy was admitted" "$out"
want='Error from server: error when creating "job-policy.yaml": admission webhook "validatejob.volcano.sh" denied the request: 1 error occurred:
	* 0 is not a valid error code'
[[ $out == "$want"* ]] || fail "job-policy: unexpected output" "$out"
grep -qF ' valid events are [' <<<"$out" || fail "job-policy: no list of valid events" "$out"
printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: closed-q}\nspec: {weight: 1}\n' |
	kube apply -f - >/dev/null || fail "cannot create closed-q"
set_queue_state closed-q Closed || fail "cannot close closed-q"
job job-closed "  queue: closed-q
  tasks:
$(task a 1)"
# The informer sees the status change a moment after the API server has it.
closed_denied() { ! (cd "$JOBS" && kube apply -f job-closed.yaml --dry-run=server) >/dev/null 2>&1; }
wait_for "the webhook to see closed-q Closed" 10 closed_denied
expect_denied job-closed "can only submit job to queue with state \`Open\`, queue \`closed-q\` status is \`Closed\`;"
if ! gone vcjob job-dup || ! gone vcjob job-closed; then fail "a denied Job exists"; fi
pass "duplicate task names, minAvailable > replicas, unknown plugin, dependsOn cycle, exitCode 0, closed queue"

step "deleting the default queue is refused"
# shellcheck disable=SC2016 # the backquotes are Volcano's text
expect_fail_with 'Error from server: admission webhook "validatequeue.volcano.sh" denied the request: `default` queue can not be deleted' \
	kube delete queue default
kube get queue default >/dev/null || fail "the default queue is gone"
pass "default queue kept"

step "--max-queue-depth 2 and --enable-queue-allocated-pods-check"
# Volcano HEAD's flags and messages (docs/volcano/webhooks.md §8, §8.1); v1.7 has neither flag
# nor hierarchical queues, so there is no v1.7 run to compare with.
# queue NAME PARENT: apply a Queue under PARENT; prints kubectl's output.
queue() {
	printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: %s}\nspec: {weight: 1, parent: %s}\n' \
		"$1" "$2" | kube apply -f - 2>&1
}
kube get queue root >/dev/null 2>&1 ||
	printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: root}\nspec: {weight: 1}\n' |
	kube apply -f - >/dev/null || fail "cannot create the root queue"
out=$(queue d1 root) || fail "queue d1 under root was denied" "$out"
# d2 is checked against the webhook's cache of d1: retry until the informer has it.
wait_for "queue d2 under d1 admitted" 10 queue d2 d1
denied_depth() {
	local out
	out=$(queue d3 d2) && return 1
	grep -qxF 'Error from server: error when creating "STDIN": admission webhook "validatequeue.volcano.sh" denied the request: queue d3 exceeds the maximum allowed depth of 2' <<<"$out" ||
		{ echo "$out"; return 1; }
}
wait_for "queue d3 under d2 denied for its depth" 10 denied_depth
out=$(queue busy root) || fail "queue busy was denied" "$out"
kube patch queue busy --subresource=status --type=merge -p '{"status":{"allocated":{"pods":"3"}}}' \
	>/dev/null || fail "cannot set queue busy's allocated pods"
denied_delete() {
	local out
	out=$(kube delete queue busy 2>&1) && fail "queue busy with 3 allocated pods was deleted"
	grep -qxF 'Error from server: admission webhook "validatequeue.volcano.sh" denied the request: queue busy cannot be deleted because it has allocated Pods: 3' <<<"$out" ||
		{ echo "$out"; return 1; }
}
wait_for "deleting queue busy denied for its allocated pods" 10 denied_delete
kube delete queue d2 >/dev/null || fail "cannot delete queue d2 (no allocated pods)"
pass "depth 3 denied under --max-queue-depth 2; a queue with allocated pods kept"

# --- bad input ---------------------------------------------------------------------------------

# post CONTENT-TYPE DATA-ARG: POST to /jobs/validate; prints "STATUS BODY".
post() {
	curl -sS --cacert "$CERTS/ca.crt" -o "$E2E_DIR/body" -w '%{http_code}' -H "Content-Type: $1" \
		--data-binary "$2" "https://127.0.0.1:$PORT/jobs/validate"
	printf ' %s' "$(cat "$E2E_DIR/body")"
}
still_serving() {
	healthy "$PORT" || fail "vc-webhook stopped answering /healthz after $1"
	daemon_running webhook || fail "vc-webhook died after $1"
}

step "bad input sent to the daemon"
got=$(post application/json '{"request": {')
[[ $got == "400 cannot decode AdmissionReview: "* ]] || fail "malformed JSON: expected 400" "$got"
still_serving "malformed JSON"
got=$(post application/json '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}')
[[ $got == "400 "* ]] || fail "a review without a request: expected 400" "$got"
still_serving "a review without a request"
got=$(post 'application/json; charset=utf-8' '{}')
[ "$got" = "415 unsupported content type 'application/json; charset=utf-8': expect application/json" ] ||
	fail "wrong content type: expected 415" "$got"
still_serving "a wrong content type"
head -c $((3 * 1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >"$E2E_DIR/big.json"
got=$(post application/json "@$E2E_DIR/big.json")
[ "$got" = "413 request body too large" ] || fail "a body over 3 MiB: expected 413" "$got"
still_serving "a body over 3 MiB"
if out=$(curl -sS -m 5 "http://127.0.0.1:$PORT/jobs/validate" 2>&1); then
	fail "plain HTTP on the TLS port got an HTTP answer" "$out"
fi
still_serving "plain HTTP"
# Garbage where a TLS handshake belongs: the server closes the connection at once. (Garbage
# whose first byte has the high bit set reads as the length of an SSLv2-style hello, which the
# server waits for like any slow client, until its 30 s idle timeout.)
garbage() {
	exec 3<>"/dev/tcp/127.0.0.1/$PORT" || return 1
	{
		printf 'B'
		head -c 4095 /dev/urandom
	} >&3 2>/dev/null
	timeout 5 cat <&3 >/dev/null 2>&1
	local rc=$?
	exec 3<&- 3>&-
	[ $rc -ne 124 ]
}
for _ in 1 2 3 4 5; do
	garbage || fail "the server did not close a connection that sent TLS garbage"
done
still_serving "TLS garbage"
# Clients that stall in the middle of a handshake, or of a record they announced, do not block
# the others.
exec 4<>"/dev/tcp/127.0.0.1/$PORT"
printf '\x16\x03\x01' >&4
exec 5<>"/dev/tcp/127.0.0.1/$PORT"
printf '\xff\xff' >&5
head -c 1000 /dev/urandom >&5
(cd "$JOBS" && kube apply -f job-dup.yaml) >/dev/null 2>&1 && fail "job-dup admitted while a client stalled"
healthy "$PORT" || fail "a stalled handshake blocked the server"
exec 4<&- 4>&- 5<&- 5>&-
still_serving "a stalled handshake"
metrics=$(curl -sS --cacert "$CERTS/ca.crt" "https://127.0.0.1:$HPORT/metrics")
grep -qE '^vc_webhook_denials_total\{path="/jobs/validate"\} ([7-9]|[1-9][0-9]+)$' <<<"$metrics" ||
	fail "the metrics do not count the denials" "$(grep vc_webhook_ <<<"$metrics")"
if ! grep -qx 'vc_webhook_requests_total{path="/jobs/validate",code="400"} 2' <<<"$metrics" ||
	! grep -qx 'vc_webhook_requests_total{path="/jobs/validate",code="415"} 1' <<<"$metrics"; then
	fail "the metrics do not count the refusals" "$(grep vc_webhook_ <<<"$metrics")"
fi
# TLS 1.2 is the floor, as Volcano's webhook sets it.
if echo | timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -tls1_1 \
	-cipher 'DEFAULT@SECLEVEL=0' 2>&1 |
	grep -q 'Cipher is [A-Z]'; then
	fail "a TLS 1.1 handshake succeeded"
fi
echo | timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -tls1_2 2>&1 | grep -q 'Cipher is [A-Z]' ||
	fail "a TLS 1.2 handshake failed"
still_serving "TLS version checks"
pass "400, 400, 415, 413, closed connections for plain HTTP and garbage; TLS 1.1 refused; still serving"

# --- rotation ----------------------------------------------------------------------------------

step "certificate rotation"
old_ca=$(cat "$CERTS/ca.crt")
"$HOOK" --generate-certs "$CERTS" --webhook-service-name volcano-admission-service \
	--webhook-namespace volcano-system >/dev/null || fail "--generate-certs failed"
[ "$(cat "$CERTS/ca.crt")" != "$old_ca" ] || fail "the new CA is the old one"
wait_for "the new certificate to be served" 15 healthy "$PORT"
new_b64=$(base64 -w0 <"$CERTS/ca.crt")
bundle_is_new() {
	[ "$(kube get validatingwebhookconfiguration volcano-admission-service-jobs-validate \
		-o jsonpath='{.webhooks[0].clientConfig.caBundle}')" = "$new_b64" ]
}
wait_for "the new caBundle to be registered" 30 bundle_is_new
expect_denied job-dup "duplicated task name a;"
pass "new certificate served from the files, caBundle updated, the API server still calls the webhook"

step "stop vc-webhook"
stop_daemon webhook
pass "stopped by PID; no sanitizer report in its log"
