#!/usr/bin/env bash
# vc-webhook against hostile and broken clients, on 127.0.0.1 with its own certificates (the
# local cluster only feeds its Queue informer; nothing is registered): while a well-behaved
# client keeps sending Job reviews, tests/e2e/webhook_hostile.py runs slowloris headers and
# bodies, connections that never finish their TLS handshake, 1,000 idle TLS connections, 3 MiB
# reviews (answered) and 100 MiB bodies and a 1 MiB header (refused early), malformed and
# deeply nested reviews, TLS 1.0/1.1 clients, plain HTTP and random bytes on the TLS port, and a
# flood of valid reviews. Each phase must leave the well-behaved reviews answered within 2 s and
# the daemon alive; slow clients are cut at Go's read-header (5 s) and read (30 s) timeouts
# (docs/volcano/webhooks.md §1.2). The figures per phase are printed and kept in
# $E2E_DIR/hostile.txt (bench/README.md, "vc-webhook under hostile clients").
#
# Volcano v1.7's webhook (Go's net/http) has no connection limit and, in v1.7, no timeouts at
# all; the 5 s/30 s timeouts are the spec's. Not run against Volcano (E2E_IMPL=volcano does not
# swap the webhook).
#
# VC_WEBHOOK (default build/vc-webhook) is the binary to run.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HOOK=${VC_WEBHOOK:-$E2E_ROOT/build/vc-webhook}
[ -x "$HOOK" ] || fail "$HOOK is missing: run make build (or set VC_WEBHOOK)"
command -v python3 >/dev/null || fail "python3 is missing"

e2e_cluster_up
CERTS=$E2E_DIR/certs

step "certificates, CRDs and the default queue"
"$HOOK" --generate-certs "$CERTS" --webhook-service-name volcano-admission-service \
	--webhook-namespace volcano-system >/dev/null || fail "--generate-certs failed"
kube apply -f "$E2E_ROOT/crds/" >/dev/null || fail "kubectl apply -f crds/ failed"
established() { kube wait --for condition=established --timeout=5s crd --all; }
wait_for "the CRDs to be established" 60 established
printf 'apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: default}\nspec: {weight: 1}\n' |
	kube apply -f - >/dev/null || fail "cannot create the default queue"
kube patch queue default --subresource=status --type=merge -p '{"status":{"state":"Open"}}' \
	>/dev/null || fail "cannot open the default queue"
pass "certificates written, the default queue Open"

step "start vc-webhook"
# 1,000 idle connections and the attacks beside them need more descriptors than a soft limit
# of 1024: raise it to 4096 when the hard limit allows (the daemon inherits it). Below that, the
# idle phase opens what the limit leaves room for and the report says so.
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
	ulimit -Sn 4096
fi
echo "file descriptor limit: soft $(ulimit -Sn), hard $hard"
healthy() { [ "$(curl -sS --cacert "$CERTS/ca.crt" "https://127.0.0.1:$1/healthz" 2>/dev/null)" = ok ]; }
started=
for _ in 1 2 3 4 5; do
	PORT=$(free_port)
	start_daemon webhook "$HOOK" --kubeconfig "$KUBECONFIG" --listen-address 127.0.0.1 \
		--port "$PORT" --tls-cert-file "$CERTS/tls.crt" --tls-private-key-file "$CERTS/tls.key" \
		--ca-cert-file "$CERTS/ca.crt" --webhook-url "https://127.0.0.1:$PORT" --register=false \
		--logtostderr -v=2
	for _ in $(seq 1 100); do
		healthy "$PORT" && started=1 && break
		daemon_running webhook || break
		sleep 0.2
	done
	[ -n "$started" ] && break
	if ! daemon_running webhook && grep -q 'Address already in use' "$E2E_DIR/daemons/webhook.log"; then
		stop_daemon webhook
		continue
	fi
	fail "vc-webhook did not become healthy" "$(tail -20 "$E2E_DIR/daemons/webhook.log")"
done
[ -n "$started" ] || fail "vc-webhook lost the race for a free port 5 times"
PID=$(awk '{ print $1 }' "$E2E_DIR/daemons/webhook.pid")
pass "vc-webhook serving on 127.0.0.1:$PORT (pid $PID)"

step "hostile clients"
python3 "$E2E_ROOT/tests/e2e/webhook_hostile.py" "$PORT" "$CERTS/ca.crt" "$PID" \
	"$E2E_DIR/hostile.txt" || fail "the webhook did not hold against hostile clients" \
	"$(tail -20 "$E2E_DIR/daemons/webhook.log")"
daemon_running webhook || fail "vc-webhook is not running after the attacks"
healthy "$PORT" || fail "vc-webhook does not answer /healthz after the attacks"
pass "every phase: well-behaved reviews answered within 2 s, the daemon alive"

step "stop vc-webhook"
stop_daemon webhook
pass "stopped by PID; no sanitizer report in its log"
